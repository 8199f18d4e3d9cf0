package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/contextkit/compact"
	"github.com/contextkit/compact/internal/msg"
	"github.com/contextkit/compact/models"
	"github.com/contextkit/compact/prune"
	"github.com/contextkit/compact/tokens"
)

// The kinds of compaction replay counts.
const (
	kindSummary  = "summary"  // the summarizer folded turns
	kindFallback = "fallback" // the summarizer failed; the extractive summary was used
	kindPrune    = "prune"    // the cheap tier alone was enough
	kindDrop     = "drop"     // the baseline dropped the oldest messages
)

// libraryThresholdCap is the library's threshold cap (256,000 tokens, see
// compact.WithThresholdBounds), kept when -floor sets a floor.
const libraryThresholdCap = 256_000

// conversation is one history replay sends, with what it needs of it
// once, whatever the setting.
type conversation struct {
	name  string            // the file, or the files joined
	msgs  []compact.Message // valid: checked or repaired
	keys  []msgKey          // msgs' keys
	facts facts             // the facts of the whole conversation
}

// newConversation keys msgs and finds their facts: those of the messages
// replay sends, up to the last assistant message (what follows it is in
// no request).
func newConversation(name string, msgs []compact.Message) *conversation {
	keys := make([]msgKey, len(msgs))
	sent := 0
	for i, m := range msgs {
		keys[i] = keyOf(m)
		if m.Role == compact.RoleAssistant {
			sent = i + 1
		}
	}
	return &conversation{name: name, msgs: msgs, keys: keys, facts: factsOf(msgs[:sent])}
}

// outcome of one setting, summed over the conversations replayed.
type tally struct {
	threshold   int // the threshold the setting compacted at (the last conversation's)
	requests    int
	sent        int // tokens, every request together
	peak        int // the largest request
	overWindow  int // requests over the usable window
	usable      int
	compactions map[string]int
	sumCalls    int // summarizer calls
	sumModel    int // of those, calls billed as a model's (none for the extractive summarizer)
	sumInput    int // summarizer tokens billed: rendered prompts
	sumShared   int // and prompts that sent the agent's history
	sumOutput   int // and replies
	agentOutput int // the agent's replies, the same under every setting

	bills    []models.Tokens // per price table: the requests' tokens by how they were billed
	sumBills []models.Tokens // per price table: the shared summarizer prompts'

	// shortEnd counts the requests whose verbatim end (the conversation's
	// last messages carried unchanged) is under verbatimGoal tokens while
	// the conversation is longer; minEnd is the shortest such end (-1:
	// none yet).
	shortEnd, minEnd int

	// points are the requests one after another (conversation after
	// conversation), for -html's chart; cached is by the first price
	// table's cache rule, 0 without prices.
	points []chartPoint

	kinds       [numKinds]struct{ n, present int }
	lost        int // facts not present at the end
	recoverable int // of those, the ones context_search finds in the archive
}

// window is a request history with each message's key and token count.
type window struct {
	msgs   []compact.Message
	keys   []msgKey
	tokens []int
}

func (w *window) add(m compact.Message, k msgKey, n int) {
	w.msgs, w.keys, w.tokens = append(w.msgs, m), append(w.keys, k), append(w.tokens, n)
}

// total is the request's size: its messages and the reply priming.
func (w *window) total() int {
	n := tokens.ReplyPrimingTokens
	for _, t := range w.tokens {
		n += t
	}
	return n
}

// reset replaces the history with msgs, keying and counting them.
func (w *window) reset(msgs []compact.Message, tc tokens.Counter) {
	w.msgs, w.keys, w.tokens = nil, nil, nil
	for _, m := range msgs {
		w.add(m, keyOf(m), tc.CountMessage(m))
	}
}

// replayer runs conversations under one setting.
type replayer struct {
	o      *replayOptions
	s      setting
	tc     tokens.Counter
	model  string
	prices []priceTable
	logger *slog.Logger // the library's and the summarizer's
}

// verbatimGoal is the end of the conversation every request of economy
// mode keeps verbatim (issue 24); the replay counts the requests of every
// setting that keep less.
const verbatimGoal = 8_000

// replayEpoch is when a replay's simulated clock starts.
var replayEpoch = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// compressor returns a new Compressor with the setting's options, on the
// simulated clock now, and the metered summarizer it calls (nil when it
// calls no model).
func (r *replayer) compressor(now *time.Duration) (*compact.Compressor, *meteredSummarizer, error) {
	opts := []compact.Option{
		compact.WithModel(r.model), compact.WithContextWindow(r.s.window),
		compact.WithTokenCounter(r.tc), compact.WithSummaryTimeout(r.o.timeout), compact.WithLogger(r.logger),
		compact.WithEconomy(r.s.economy), compact.WithClock(func() time.Time { return replayEpoch.Add(*now) }),
	}
	switch {
	case r.s.noPrices:
		opts = append(opts, compact.WithPricing(models.Pricing{}))
	case len(r.prices) > 0:
		opts = append(opts, compact.WithPricing(r.prices[0].pricing))
	}
	if r.s.reserveSet {
		opts = append(opts, compact.WithReserveTokens(r.s.reserve))
	}
	if r.s.thresholdSet {
		opts = append(opts, compact.WithThreshold(r.s.threshold))
	}
	if r.s.floor > 0 {
		opts = append(opts, compact.WithThresholdBounds(r.s.floor, libraryThresholdCap))
	}
	var inner compact.Summarizer
	switch {
	case r.s.summaryTokens > 0:
		inner = &stubSummarizer{tokens: r.s.summaryTokens, tc: r.tc}
	case r.s.summarizer == "openai":
		s, err := openAISummarizer(r.o.summaryModel, r.logger)
		if err != nil {
			return nil, nil, err
		}
		inner = s
	}
	var m *meteredSummarizer
	if inner != nil {
		m = &meteredSummarizer{inner: inner, tc: r.tc, shares: !r.s.rendered}
		opts = append(opts, compact.WithSummarizer(m))
	}
	c := compact.New(opts...)
	if r.s.recall {
		c.OnSessionStart("replay", compact.SessionMeta{Recall: true})
	}
	return c, m, nil
}

// run replays conv, adding what it cost to t, and returns the history it
// ends with: the last request sent and its reply. Each conversation gets
// a Compressor of its own, as a host creates one per conversation.
func (r *replayer) run(ctx context.Context, conv *conversation, t *tally) ([]compact.Message, error) {
	var now time.Duration
	c, metered, err := r.compressor(&now)
	if err != nil {
		return nil, err
	}
	t.threshold = c.Status().Threshold
	caches := make([]*promptCache, len(r.prices))
	for i, p := range r.prices {
		caches[i] = newPromptCache(p.pricing)
	}
	var (
		live      window
		last      []compact.Message
		next      int
		usable    int
		summaries int
		convSoFar int // tokens of the conversation's messages so far
	)
	for a, m := range conv.msgs {
		if m.Role != compact.RoleAssistant {
			continue
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		userSpoke := false
		for i := next; i < a; i++ {
			n := r.tc.CountMessage(conv.msgs[i])
			live.add(conv.msgs[i], conv.keys[i], n)
			convSoFar += n
			userSpoke = userSpoke || compact.IsRealUser(conv.msgs[i])
		}
		if last != nil {
			now += r.o.interval
			if userSpoke {
				now += r.o.userDelay
			}
		}
		if usable == 0 && len(live.msgs) > 0 {
			usable = c.Preflight(live.msgs[:1]).Usable
		}
		kind, err := r.compact(ctx, c, &live, usable, t.threshold)
		if err != nil {
			return nil, fmt.Errorf("request %d (before message %d): %w", t.requests+1, a, err)
		}
		if kind != "" {
			t.compactions[kind]++
		}
		if metered != nil {
			for _, sc := range metered.takeShared() {
				for i, cache := range caches {
					b := cache.bill(sc.keys, sc.tokens, tokens.ReplyPrimingTokens, now)
					t.sumBills[i] = addTokens(t.sumBills[i], b)
					if i == 0 {
						t.sumShared += b.CacheRead + b.CacheWrite + b.Uncached
					}
				}
			}
		}
		if end := verbatimEnd(&live, conv.keys[:a], r.tc); end < min(verbatimGoal, convSoFar) {
			t.shortEnd++
			if t.minEnd < 0 || end < t.minEnd {
				t.minEnd = end
			}
		}
		if kind == kindSummary {
			summaries++
		}
		total := live.total()
		t.requests++
		t.sent += total
		t.peak = max(t.peak, total)
		if total > usable {
			t.overWindow++
		}
		out := r.tc.CountMessage(m)
		t.agentOutput += out
		var cached, written int
		for i, cache := range caches {
			b := cache.bill(live.keys, live.tokens, tokens.ReplyPrimingTokens, now)
			t.bills[i] = addTokens(t.bills[i], b)
			if i == 0 {
				cached, written = b.CacheRead, b.CacheWrite
			}
		}
		t.points = append(t.points, chartPoint{Sent: total, Cached: cached, Compaction: kind})
		c.UpdateUsage(compact.Usage{PromptTokens: total, CompletionTokens: out, TotalTokens: total + out,
			CachedTokens: cached, CacheWriteTokens: written, At: replayEpoch.Add(now)})
		live.add(m, conv.keys[a], out)
		convSoFar += out
		last = live.msgs
		next = a + 1
	}
	t.usable = usable
	if metered != nil {
		calls, in, reply := metered.totals()
		t.sumCalls += calls
		t.sumModel += calls
		t.sumInput += in
		t.sumOutput += reply
	} else {
		t.sumCalls += summaries // the extractive summarizer: calls, but no model billed
	}
	return last, nil
}

// compact does what the setting does before a request and returns the
// kind of compaction it did, "" for none: the baseline drops the oldest
// messages while the request is over the usable window; -prune-only runs
// the cheap tier when the Compressor would compact; the others compact
// when the Compressor says so.
func (r *replayer) compact(ctx context.Context, c *compact.Compressor, live *window, usable, threshold int) (string, error) {
	switch {
	case r.s.dropOldest:
		if dropOldest(live, usable) > 0 {
			return kindDrop, nil
		}
		return "", nil
	case !c.ShouldCompressMessages(live.msgs):
		return "", nil
	case r.s.pruneOnly:
		pr := prune.Apply(live.msgs, prune.WithTokenCounter(r.tc), prune.WithPressure(threshold/2))
		if !pr.Committed {
			return "", nil
		}
		live.reset(pr.Messages, r.tc)
		return kindPrune, nil
	}
	res, err := c.Compress(ctx, live.msgs)
	var backoff *compact.BackoffError
	switch {
	case errors.Is(err, compact.ErrNothingToCompress), errors.Is(err, compact.ErrNoSavings),
		errors.Is(err, compact.ErrPaused), errors.As(err, &backoff):
		return "", nil
	case err != nil:
		return "", err
	case res.Skipped != "":
		return "", nil
	}
	kind := kindSummary
	switch {
	case res.SummaryIndex < 0:
		kind = kindPrune
	case res.Fallback:
		kind = kindFallback
	}
	live.reset(res.Messages, r.tc)
	return kind, nil
}

// verbatimEnd returns the tokens of the longest run of conv's last
// messages that end w unchanged; the first of them may carry the summary
// merged in front of it (compact.WithUserFirst), and counts without it.
func verbatimEnd(w *window, conv []msgKey, tc tokens.Counter) int {
	n := 0
	for k := 1; k <= len(w.keys) && k <= len(conv); k++ {
		if w.keys[len(w.keys)-k] == conv[len(conv)-k] {
			n += w.tokens[len(w.tokens)-k]
			continue
		}
		if _, own, ok := msg.SplitMerged(w.msgs[len(w.msgs)-k]); ok && keyOf(own) == conv[len(conv)-k] {
			n += tc.CountMessage(own)
		}
		break
	}
	return n
}

// addTokens returns the sum of two bills.
func addTokens(a, b models.Tokens) models.Tokens {
	return models.Tokens{CacheRead: a.CacheRead + b.CacheRead, CacheWrite: a.CacheWrite + b.CacheWrite,
		Uncached: a.Uncached + b.Uncached, Output: a.Output + b.Output}
}

// dropOldest drops the oldest turns after the system prompt (a message,
// and when it is an assistant's tool calls, the results answering them)
// while the request is over usable and more than one message is left; a
// tool result left first goes too, since it would answer nothing. It
// returns how many messages it dropped.
func dropOldest(w *window, usable int) int {
	start := 0
	for start < len(w.msgs) && w.msgs[start].Role == compact.RoleSystem {
		start++
	}
	total, end := w.total(), start
	drop := func() {
		total -= w.tokens[end]
		end++
	}
	for end < len(w.msgs)-1 && total > usable {
		calls := len(w.msgs[end].ToolCalls) > 0
		drop()
		for calls && end < len(w.msgs)-1 && w.msgs[end].Role == compact.RoleTool {
			drop()
		}
	}
	for end < len(w.msgs)-1 && w.msgs[end].Role == compact.RoleTool {
		drop()
	}
	if end == start {
		return 0
	}
	w.msgs = append(w.msgs[:start:start], w.msgs[end:]...)
	w.keys = append(w.keys[:start:start], w.keys[end:]...)
	w.tokens = append(w.tokens[:start:start], w.tokens[end:]...)
	return end - start
}
