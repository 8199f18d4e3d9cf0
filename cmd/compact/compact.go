package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"time"

	"github.com/contextkit/compact"
	"github.com/contextkit/compact/openaicompat"
	"github.com/contextkit/compact/prune"
	"github.com/contextkit/compact/tokens"
)

// outcome is what compacting one transcript gave.
type outcome struct {
	in      *transcript
	hist    []compact.Message // the history compacted: the input, after repair
	out     []compact.Message // the history written: compacted, or hist unchanged
	res     *compact.Result   // nil when nothing was compacted, or pruning alone ran (-prune-only)
	pruned  []prune.Change
	repairs []compact.Repair
	note    string // why nothing was compacted, for a person to read

	tc                  tokens.Counter
	encoding            string
	model               string // the model whose window and encoding were used ("" for none)
	window, threshold   int
	fit                 fit
	account             []messageReport
	settings            []pageSetting // the settings used, for the HTML view
	adjusted            []string      // the settings the library moved (Status().Adjusted)
	tokensIn            int           // the input as given
	tokensBefore, after int           // the history compacted (the input after repair), and the result
	elapsed             time.Duration
	pruneTime           time.Duration // -prune-only: how long Prune took
}

// engine builds what compactions need once per run: the summarizer, the
// token counters by encoding, the logger.
type engine struct {
	o          *options
	name       string             // the summarizer's name on the command line
	summarizer compact.Summarizer // nil: the library's default (extractive)
	counters   map[string]tokens.Counter
	logger     *slog.Logger
}

// newEngine prepares the summarizer name names.
func newEngine(o *options, name string, logger *slog.Logger) (*engine, error) {
	e := &engine{o: o, name: name, counters: map[string]tokens.Counter{}, logger: logger}
	switch name {
	case "extractive":
	case "openai":
		s, err := openAISummarizer(o.summaryModel, logger)
		if err != nil {
			return nil, err
		}
		e.summarizer = s
	case "drop":
		e.summarizer = dropSummarizer{}
	default:
		return nil, fmt.Errorf("unknown summarizer %q", name)
	}
	return e, nil
}

// openAISummarizer reads the endpoint and key from the environment, as the
// official clients do.
func openAISummarizer(model string, logger *slog.Logger) (compact.Summarizer, error) {
	key, base := os.Getenv("OPENAI_API_KEY"), os.Getenv("OPENAI_BASE_URL")
	if key == "" && base == "" {
		return nil, errors.New("-summarizer openai needs OPENAI_API_KEY (or OPENAI_BASE_URL for a local server that takes no key)")
	}
	return openaicompat.New(model,
		openaicompat.WithAPIKey(key), openaicompat.WithBaseURL(base), openaicompat.WithLogger(logger))
}

// dropSummarizer is the probe's baseline: a summary that keeps no facts,
// so what survives under it survived by the tail alone.
type dropSummarizer struct{}

func (dropSummarizer) Name() string { return "drop" }

func (dropSummarizer) Summarize(ctx context.Context, _ compact.SummaryRequest) (string, error) {
	if err := ctx.Err(); err != nil {
		return "", err
	}
	return "Earlier turns were dropped.", nil
}

// counter returns the exact counter for model's encoding, shared by every
// file of a run so its memo serves them all.
func (e *engine) counter(model string) (tokens.Counter, string, error) {
	enc := tokens.EncodingForModel(model)
	if tc, ok := e.counters[enc]; ok {
		return tc, enc, nil
	}
	tc, err := tokens.ForEncoding(enc)
	if err != nil {
		return nil, "", err
	}
	e.counters[enc] = tc
	return tc, enc, nil
}

// compressor builds a Compressor with the command line's settings. A
// window of 0 is the model's, from the model table, as WithModel takes it.
func (e *engine) compressor(model string, tc tokens.Counter, window int) *compact.Compressor {
	opts := []compact.Option{
		compact.WithModel(model),
		compact.WithTokenCounter(tc), compact.WithLogger(e.logger), compact.WithSummaryTimeout(e.o.timeout),
	}
	if e.o.set["threshold"] {
		// Set only when given: the library's default fraction is bounded
		// by its default cap, a fraction set is honoured as it is.
		opts = append(opts, compact.WithThreshold(e.o.threshold))
	}
	if window > 0 {
		opts = append(opts, compact.WithContextWindow(window))
	}
	if e.o.set["reserve"] {
		opts = append(opts, compact.WithReserveTokens(e.o.reserve))
	}
	if e.summarizer != nil {
		opts = append(opts, compact.WithSummarizer(e.summarizer))
	}
	return compact.New(opts...)
}

// compactOne compacts t at window (0: the model's). force compacts under
// the threshold.
// The errors it returns are the transcript's fault (an *inputError) or the
// summarizer's; the library's "nothing to compress" and "no savings" are
// outcomes, with the input returned unchanged and a note saying why.
func (e *engine) compactOne(ctx context.Context, t *transcript, window int, force bool) (*outcome, error) {
	start := time.Now()
	model := e.o.model
	if model == "" {
		model = t.model
	}
	tc, enc, err := e.counter(model)
	if err != nil {
		return nil, err
	}
	msgs := t.msgs
	oc := &outcome{in: t, hist: msgs, out: msgs, tc: tc, encoding: enc, model: model}
	if ps := compact.Problems(msgs); len(ps) > 0 {
		if !e.o.repair {
			return nil, &inputError{index: ps[0].Index, msg: ps[0].Detail + " (-repair fixes it)"}
		}
		msgs, oc.repairs = compact.RepairToolPairs(msgs)
		if err := compact.Validate(msgs); err != nil {
			return nil, fmt.Errorf("after repair: %w", err)
		}
		oc.hist, oc.out = msgs, msgs
	}
	c := e.compressor(model, tc, window)
	st := c.Status()
	oc.window, oc.threshold = st.Window, st.Threshold
	oc.tokensIn = tokens.CountMessages(tc, t.msgs)
	oc.tokensBefore = tokens.CountMessages(c.Counter(), msgs)
	oc.after = oc.tokensBefore
	oc.settings, oc.adjusted = e.settings(oc, st), st.Adjusted
	defer func() {
		oc.account = accountOf(oc)
		oc.fit = fitOf(oc, c)
		oc.elapsed = time.Since(start)
	}()

	partial := e.o.keep > 0
	if !force && !partial && oc.tokensBefore < oc.threshold {
		oc.note = fmt.Sprintf("under the threshold (%s of %s tokens): nothing to do; use -force or a smaller -window to see a compaction",
			thousands(oc.tokensBefore), thousands(oc.threshold))
		return oc, nil
	}
	if e.o.pruneOnly {
		return e.pruneOnly(oc, msgs, tc)
	}
	var copts []compact.CompressOption
	if force {
		copts = append(copts, compact.Force())
	}
	if e.o.focus != "" {
		copts = append(copts, compact.WithFocus(e.o.focus))
	}
	var res *compact.Result
	if partial {
		res, err = compact.CompressHere(ctx, c, msgs, e.o.keep, copts...)
	} else {
		res, err = c.Compress(ctx, msgs, copts...)
	}
	switch {
	case errors.Is(err, compact.ErrNothingToCompress) && partial:
		oc.note = fmt.Sprintf("nothing to compress: -keep %d keeps every exchange there is (an exchange starts at a user message); the input is written unchanged", e.o.keep)
		return oc, nil
	case errors.Is(err, compact.ErrNothingToCompress):
		oc.note = "nothing to compress: every message is protected (system prompt, head, recent tail); the input is written unchanged"
		return oc, nil
	case errors.Is(err, compact.ErrNoSavings):
		oc.note = "a compaction would not have made the history smaller; the input is written unchanged"
		return oc, nil
	case err != nil:
		return nil, err
	}
	oc.res, oc.out, oc.after, oc.pruned = res, res.Messages, res.TokensAfter, res.Pruned
	return oc, nil
}

// pruneOnly runs the cheap tier alone, as the Compressor runs it before
// summarising: every message but the system prompt, the recent tool uses,
// the latest user message and the last few messages may be pruned, and the
// tail is demoted when it alone is over half the threshold.
func (e *engine) pruneOnly(oc *outcome, msgs []compact.Message, tc tokens.Counter) (*outcome, error) {
	start := time.Now()
	pr := prune.Apply(msgs, prune.WithTokenCounter(tc), prune.WithPressure(oc.threshold/2))
	oc.pruneTime = time.Since(start)
	if !pr.Committed {
		oc.note = fmt.Sprintf("pruning would reclaim %s, fewer than the %s a pruning must; the input is written unchanged",
			plural(pr.Reclaimable, "token"), thousands(pr.ClearAtLeast))
		return oc, nil
	}
	oc.out, oc.pruned = pr.Messages, pr.Changes
	oc.after = tokens.CountMessages(tc, pr.Messages)
	return oc, nil
}
