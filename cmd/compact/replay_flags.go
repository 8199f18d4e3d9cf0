package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/contextkit/compact"
	"github.com/contextkit/compact/models"
)

// Defaults of replay's own flags.
const (
	// defaultReplayInterval is the simulated time between one request and
	// the next: an agent's turn (a model call and a tool run) takes
	// seconds to a minute, well inside a five-minute cache lifetime.
	defaultReplayInterval = 30 * time.Second

	// settingDropOldest names the baseline that never compacts: it drops
	// the oldest messages when a request would not fit the window.
	settingDropOldest = "drop-oldest"
	// settingDefault names the settings the command line gives.
	settingDefault = "default"
	// settingEconomy names the command line's setting in economy mode
	// (compact.WithEconomy).
	settingEconomy = "economy"
)

// replayOptions are replay's command line.
type replayOptions struct {
	setting      // the command line's own setting, "default"
	model        string
	compare      string
	prices       string
	cacheTTL     string
	interval     time.Duration
	userDelay    time.Duration
	timeout      time.Duration
	summaryModel string
	join         bool
	repair       bool
	json         bool
	html         string
	verbose      bool

	settings []setting // parsed from -compare
	paths    []string
}

// setting is one way of running compaction that replay measures.
type setting struct {
	name          string
	window        int
	threshold     float64 // used only when thresholdSet: the library's default is bounded by its cap
	thresholdSet  bool
	reserve       int // used only when reserveSet
	reserveSet    bool
	floor         int // the threshold's floor; -1: the library's
	summarizer    string
	summaryTokens int // > 0: the stub summarizer
	pruneOnly     bool
	dropOldest    bool
	economy       bool // compact.WithEconomy
	noPrices      bool // the library is not told the prices
	rendered      bool // the stub renders the turns rather than share the agent's history
	recall        bool // the library is told the archive recalls what it folds
}

const replayUsageText = `usage: compact replay [flags] FILE|DIR ...

Replays agent transcripts as the agent sent them and prints what each
setting costs. A request is sent before each assistant message of the
transcript, holding everything before it; after a compaction the agent
goes on from the compacted history, appending the transcript's later
messages to it. The assistant message is the reply.

The cache rule: each price table (-price) has a prompt cache that serves
the longest run of leading messages byte-identical to the previous
request's, when that request was stored (it was at least the family's
minimum cacheable prefix) and the cache is warm (the previous request
was sent at most the cache lifetime ago, on a simulated clock that
advances -interval per request, plus -user-delay before a request that
follows a new user message). The rest of the request is written to the
cache at the family's write price (1.25x the input price at Anthropic,
2x with -cache-ttl 1h; 1x at OpenAI); a request shorter than the minimum
prefix is billed in full. Summarizer calls are billed at the same prices,
uncached, or, when the library offers a summarizer the agent's own history
(compact.SummaryRequest.History), as a request of that history and one
instruction message through the same cache. The agent's replies cost the
same under every setting and are reported apart.

The library decides with the first price table's prices (see
compact.WithPricing): its cheaper defaults, economy mode and the shared
summarizer depend on them; -no-prices withholds them, which compacts as
the library did before it knew prices. The verbatim end is the longest run
of the conversation's last messages a request carries unchanged.

Costs are in US dollars and in base input tokens (the input tokens billed
in full that would cost as much). A model without known prices is
"unknown". The facts are the probe's kinds, found in the whole
conversation; present means in the last request or its reply,
recoverable means context_search finds it in the conversation's
archive. The command fails when a request of any setting is over the
usable window (the window less the reply's reserve).

Flags may come before or after the files; "--" ends them.
`

// settingFlags declares the flags a setting takes on fs, into s.
func settingFlags(fs *flag.FlagSet, s *setting) {
	fs.IntVar(&s.window, "window", compact.DefaultContextWindow, "context window in `tokens`")
	fs.Float64Var(&s.threshold, "threshold", compact.DefaultThreshold, "compact at this `fraction` of the usable window, in (0, 1] (see -floor)")
	fs.IntVar(&s.floor, "floor", -1, "the threshold's floor in `tokens` (-1 or 0: none, the library's default), which a low -threshold does not go under")
	fs.IntVar(&s.reserve, "reserve", 0, "output `tokens` reserved out of the window (default: the library's, 8192 capped at a quarter of the window)")
	fs.StringVar(&s.summarizer, "summarizer", "extractive", "summarizer `name`: extractive (offline, no model call) or openai (OPENAI_API_KEY, OPENAI_BASE_URL)")
	fs.IntVar(&s.summaryTokens, "summary-tokens", 0, "summarise with a stub that returns a summary of `N` tokens keeping no facts, billed as a model call (offline, deterministic)")
	fs.BoolVar(&s.pruneOnly, "prune-only", false, "compact with the cheap tier alone (no summarizer)")
	fs.BoolVar(&s.economy, "economy", false, "economy mode: compact when and as deep as is cheapest (compact.WithEconomy)")
	fs.BoolVar(&s.noPrices, "no-prices", false, "do not tell the library the prices: it compacts as it did before it knew them")
	fs.BoolVar(&s.recall, "recall", false, "tell the library that what it folds stays recoverable, as a session with recall does (compact.SessionMeta.Recall): economy mode folds deeper")
	fs.BoolVar(&s.rendered, "rendered", false, "the -summary-tokens stub reads a rendered transcript, never the agent's own history (a summarizer on another model, or an endpoint without a cache)")
}

// newReplayFlagSet declares replay's flags on o.
func newReplayFlagSet(o *replayOptions, stderr io.Writer) *flag.FlagSet {
	fs := commandFlagSet("compact replay", replayUsageText, stderr)
	settingFlags(fs, &o.setting)
	fs.StringVar(&o.model, "model", "", "model `NAME` whose encoding counts tokens and whose prices bill (default: a logged request's model, else o200k_base and no prices)")
	fs.StringVar(&o.compare, "compare", settingDefault, "`settings` side by side, separated by \";\": "+settingDefault+" (the flags given), "+settingEconomy+" (the flags given and -economy), "+settingDropOldest+" (no compaction: drop the oldest messages when over the window), or flags over the defaults (\"-threshold 0.5\")")
	fs.StringVar(&o.prices, "price", "", "bill with these models' prices, comma-separated `names` (default: -model's)")
	fs.StringVar(&o.cacheTTL, "cache-ttl", "5m", "cache lifetime the agent asks for: `5m`, or 1h where the provider offers it (writes cost more)")
	fs.DurationVar(&o.interval, "interval", defaultReplayInterval, "simulated `time` between requests")
	fs.DurationVar(&o.userDelay, "user-delay", 0, "simulated `time` added before a request that follows a new user message")
	fs.DurationVar(&o.timeout, "timeout", defaultSummaryTimeout, "bound on one summarizer call")
	fs.StringVar(&o.summaryModel, "summary-model", defaultSummaryModel, "`model` -summarizer openai asks")
	fs.BoolVar(&o.join, "join", false, "replay the files as one conversation, in the order given (directories in name order): later system prompts are dropped, and a call left unanswered at the end of a file is removed")
	fs.BoolVar(&o.repair, "repair", false, "repair broken tool-call pairing instead of rejecting the input")
	fs.BoolVar(&o.json, "json", false, "write the results as JSON")
	fs.StringVar(&o.html, "html", "", "also write the results to `FILE` as a self-contained HTML page, with a chart of every request's size per setting")
	fs.BoolVar(&o.verbose, "v", false, "log the library's compaction lines to standard error")
	return fs
}

// parseReplayArgs parses replay's command line (without "replay").
func parseReplayArgs(args []string, stderr io.Writer) (*replayOptions, error) {
	o := &replayOptions{}
	fs := newReplayFlagSet(o, stderr)
	paths, err := parseFlags(fs, args)
	if err != nil {
		return nil, err
	}
	o.name = settingDefault
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	o.reserveSet, o.thresholdSet = set["reserve"], set["threshold"]
	o.paths = paths
	if err := o.check(); err != nil {
		say(stderr, "compact: replay: %s\n", errText(err))
		return nil, errUsage
	}
	return o, nil
}

// check rejects values replay cannot run with, and parses -compare.
func (o *replayOptions) check() error {
	switch {
	case len(o.paths) == 0:
		return errors.New("no input: give FILEs or DIRs (-h for help)")
	case o.interval < 0 || o.userDelay < 0:
		return fmt.Errorf("-interval %v, -user-delay %v: want durations of 0 or more", o.interval, o.userDelay)
	case o.timeout <= 0:
		return fmt.Errorf("-timeout %v: want a positive duration", o.timeout)
	case o.cacheTTL != "5m" && o.cacheTTL != "1h":
		return fmt.Errorf("-cache-ttl %q: want 5m or 1h", o.cacheTTL)
	}
	for _, p := range o.paths {
		if p == "-" {
			return errors.New("replay reads files, not standard input")
		}
	}
	if err := o.setting.check(); err != nil {
		return err
	}
	for _, spec := range strings.Split(o.compare, ";") {
		spec = strings.TrimSpace(spec)
		if spec == "" {
			continue
		}
		s, err := o.parseSetting(spec)
		if err != nil {
			return fmt.Errorf("-compare %q: %w", spec, err)
		}
		o.settings = append(o.settings, s)
	}
	if len(o.settings) == 0 {
		return fmt.Errorf("-compare %q names no setting", o.compare)
	}
	_, err := o.priceTables()
	return err
}

// parseSetting reads one -compare entry: a name, or flags over the
// command line's own setting.
func (o *replayOptions) parseSetting(spec string) (setting, error) {
	switch spec {
	case settingDefault:
		return o.setting, nil
	case settingDropOldest:
		s := o.setting
		s.name, s.dropOldest = spec, true
		return s, nil
	case settingEconomy:
		s := o.setting
		s.name, s.economy = spec, true
		return s, nil
	}
	s := o.setting
	fs := flag.NewFlagSet(spec, flag.ContinueOnError)
	var msg strings.Builder
	fs.SetOutput(&msg)
	settingFlags(fs, &s)
	// Declaring the flags set the library's defaults; a setting starts
	// from the command line's values instead (the flags still point at s).
	s = o.setting
	if err := fs.Parse(strings.Fields(spec)); err != nil {
		return setting{}, errors.New(strings.TrimSpace(strings.SplitN(msg.String(), "\n", 2)[0]))
	}
	if fs.NArg() > 0 {
		return setting{}, fmt.Errorf("%q is not a flag (a setting is %s, %s, or flags)", fs.Arg(0), settingDefault, settingDropOldest)
	}
	fs.Visit(func(f *flag.Flag) {
		switch f.Name {
		case "reserve":
			s.reserveSet = true
		case "threshold":
			s.thresholdSet = true
		}
	})
	s.name = spec
	return s, s.check()
}

// check rejects a setting's values the library would not take.
func (s setting) check() error {
	if err := checkWindow(s.window, s.threshold, s.reserveSet, s.reserve); err != nil {
		return err
	}
	switch {
	case s.floor < -1:
		return fmt.Errorf("-floor %d: want tokens, 0 for none or -1 for the library's", s.floor)
	case s.summaryTokens < 0:
		return fmt.Errorf("-summary-tokens %d: want a positive number of tokens", s.summaryTokens)
	case s.summarizer != "extractive" && s.summarizer != "openai":
		return fmt.Errorf("-summarizer %q: want extractive or openai", s.summarizer)
	case s.summaryTokens > 0 && s.summarizer == "openai":
		return errors.New("-summary-tokens is a stub in place of a summarizer; it takes no -summarizer openai")
	}
	return nil
}

// priceTable is one model's prices as the replay bills them.
type priceTable struct {
	model   string
	pricing models.Pricing // unknown when the model has no known prices
}

// priceTables returns the prices -price names (default -model's), with
// the lifetime -cache-ttl asks for.
func (o *replayOptions) priceTables() ([]priceTable, error) {
	names := o.prices
	if names == "" {
		names = o.model
	}
	var out []priceTable
	for _, n := range strings.Split(names, ",") {
		if n = strings.TrimSpace(n); n == "" {
			continue
		}
		m, _ := models.Lookup(n)
		p := m.Pricing
		if o.cacheTTL == "1h" && p.Known() {
			long, ok := p.Long()
			if !ok {
				return nil, fmt.Errorf("-cache-ttl 1h: %s offers no hour-long cache", n)
			}
			p = long
		}
		out = append(out, priceTable{model: n, pricing: p})
	}
	return out, nil
}
