package compact

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/contextkit/compact/internal/msg"
	"github.com/contextkit/compact/internal/msgtest"
	"github.com/contextkit/compact/models"
	"github.com/contextkit/compact/prune"
)

// sonnetPrices are the prices the cost tests reason with: a cache that
// reads at a tenth of the input price and writes at 1.25 times it, for
// five minutes.
func sonnetPrices(t *testing.T) models.Pricing {
	t.Helper()
	m, ok := models.Lookup("claude-sonnet-4-5")
	require.True(t, ok)
	require.True(t, m.Pricing.Known())
	return m.Pricing
}

// A Compressor's bill is what the usage reports say, priced when the
// prices are known and "unknown" (nil) otherwise; the hit ratio is the
// provider's.
func TestStatusCostAddsUpTheUsageReports(t *testing.T) {
	reports := []Usage{
		{PromptTokens: 10_000, CompletionTokens: 200, CacheWriteTokens: 10_000},
		{PromptTokens: 10_500, CompletionTokens: 300, CachedTokens: 10_000, CacheWriteTokens: 500},
	}
	unpriced := newTestCompressor(&recorder{})
	priced := newTestCompressor(&recorder{}, WithPricing(sonnetPrices(t)))
	for _, u := range reports {
		unpriced.UpdateUsage(u)
		priced.UpdateUsage(u)
	}
	want := models.Tokens{CacheRead: 10_000, CacheWrite: 10_500, Output: 500}
	for _, c := range []*Compressor{unpriced, priced} {
		got := c.Status().Cost
		assert.Equal(t, 2, got.Requests)
		assert.Equal(t, want, got.Billed)
		assert.InDelta(t, 10_000.0/20_500, got.HitRatio(), 1e-9)
	}
	assert.Nil(t, unpriced.Status().Cost.Dollars, "no prices: the cost is unknown, not zero")
	assert.Nil(t, unpriced.Status().Cost.Equivalent)
	eq, err := sonnetPrices(t).Equivalent(want)
	require.NoError(t, err)
	require.NotNil(t, priced.Status().Cost.Equivalent)
	assert.InDelta(t, eq, *priced.Status().Cost.Equivalent, 1e-6)
}

// WithPricing takes the prices in place of the model table's; a price that
// is negative or not finite keeps the table's, and Status says so.
func TestWithPricingRefusesAnInvalidPrice(t *testing.T) {
	bad := sonnetPrices(t)
	bad.CacheRead = -0.3
	c := New(WithModel("claude-sonnet-4-5"), WithPricing(bad))
	assert.Contains(t, c.Status().Adjusted, "WithPricing(Pricing.CacheRead -0.3): invalid, the model table's prices kept")
	assert.True(t, c.Status().Cost.Equivalent != nil, "the table's prices still price the bill")

	unknown := New(WithModel("claude-sonnet-4-5"), WithPricing(models.Pricing{}))
	assert.Empty(t, unknown.Status().Adjusted, "the zero Pricing is valid: unknown prices")
	assert.Nil(t, unknown.Status().Cost.Equivalent)
}

// With the prices known, a compaction leaves the system prompt as it was,
// so its cache survives: the note rides in the summary message, once,
// however often the history is compacted. Without prices the note goes
// where it always went.
func TestAPricedCompactionLeavesTheSystemPromptAlone(t *testing.T) {
	in := longSession(30)
	c := newTestCompressor(&recorder{}, WithPricing(sonnetPrices(t)))
	res, err := c.Compress(context.Background(), in, Force())
	require.NoError(t, err)
	require.NoError(t, checkContracts(in, res))
	assert.Equal(t, in[0], res.Messages[0], "the system prompt is byte-identical")
	assert.Equal(t, 1, strings.Count(Text(res.Messages[res.SummaryIndex]), CompactionNote))
	assert.NotContains(t, res.Summary, CompactionNote, "the body a summarizer wrote has no note")

	grown := append(Clone(res.Messages), longSession(30)[2:]...)
	again, err := c.Compress(context.Background(), grown, Force())
	require.NoError(t, err)
	require.NoError(t, checkContracts(grown, again))
	assert.Equal(t, in[0], again.Messages[0])
	assert.Equal(t, 1, strings.Count(Text(again.Messages[again.SummaryIndex]), CompactionNote), "the note does not stack")
	assert.NotContains(t, again.Summary, CompactionNote, "an earlier note is not summarised")

	unpriced, err := newTestCompressor(&recorder{}).Compress(context.Background(), in, Force())
	require.NoError(t, err)
	assert.True(t, strings.HasSuffix(Text(unpriced.Messages[0]), CompactionNote))
}

// Result.Cost counts what the next request writes again (from the first
// changed message on), what it clears, and the summarizer's call; with
// prices it says what that costs and after how many requests it pays back.
func TestResultCostIsTheRewriteTheClearingAndTheSummarizer(t *testing.T) {
	p := sonnetPrices(t)
	in := longSession(30)
	c := newTestCompressor(&recorder{}, WithPricing(p))
	res, err := c.Compress(context.Background(), in, Force())
	require.NoError(t, err)
	rewritten := 0
	for _, m := range res.Messages[res.SummaryIndex:] {
		rewritten += byteCounter{}.CountMessage(m)
	}
	got := res.Cost
	assert.Equal(t, rewritten, got.Rewritten, "from the summary on: the system prompt is still cached")
	assert.Equal(t, res.TokensBefore-res.TokensAfter, got.Cleared)
	assert.Positive(t, got.Summarizer.Uncached, "a model summarizer reads the rendered turns")
	assert.Equal(t, byteCounter{}.CountText(res.Summary), got.Summarizer.Output)
	require.NotNil(t, got.Payback)
	want := p.PriceEdit(models.Edit{Rewritten: got.Rewritten, Cleared: got.Cleared, Summarizer: got.Summarizer})
	assert.Equal(t, *want.Payback, *got.Payback)
	assert.Greater(t, *got.Payback, 0.0)

	free, err := newTestCompressor(nil, WithPricing(p)).Compress(context.Background(), in, Force())
	require.NoError(t, err)
	assert.Zero(t, free.Cost.Summarizer, "the extractive summarizer calls no model")

	unpriced, err := newTestCompressor(&recorder{}).Compress(context.Background(), in, Force())
	require.NoError(t, err)
	assert.Positive(t, unpriced.Cost.Rewritten)
	assert.Nil(t, unpriced.Cost.Payback, "no prices, no payback")

	skipped, err := newTestCompressor(&recorder{}, WithPricing(p)).Compress(context.Background(), in[:3])
	require.NoError(t, err)
	assert.Zero(t, skipped.Cost, "nothing done costs nothing")
}

// Pruning alone stands in for a summary only when it costs less per
// request: with the prices known and a summarizer that costs nothing (the
// extractive one), a prune that leaves the history larger than a summary
// would gives way to the summary; with a model summarizer to pay, or
// without prices, the cheap tier goes first.
func TestPruningAloneOnlyWhenItCostsLessPerRequest(t *testing.T) {
	in := msgtest.AgentRun(12)
	opts := []Option{WithPruning(true), WithPruneOptions(prune.WithClearAtLeast(0))}
	unpriced, err := newTestCompressor(nil, opts...).Compress(context.Background(), in)
	require.NoError(t, err)
	require.Equal(t, -1, unpriced.SummaryIndex, "pruning alone")

	priced := append(opts, WithPricing(sonnetPrices(t)))
	c := newTestCompressor(nil, priced...)
	res, err := c.Compress(context.Background(), in)
	require.NoError(t, err)
	require.NoError(t, checkContracts(in, res))
	assert.GreaterOrEqual(t, res.SummaryIndex, 0, "a summary, which leaves less to read at every request")
	assert.Less(t, res.TokensAfter, unpriced.TokensAfter)
	assert.Equal(t, map[string]int{"summary": 1}, c.Status().Cost.Compactions)

	paid, err := newTestCompressor(&recorder{}, priced...).Compress(context.Background(), in)
	require.NoError(t, err)
	assert.Equal(t, -1, paid.SummaryIndex, "a model reading the turns in full costs more than the prune saves")
}

// coldClock is a clock a test moves by hand.
type coldClock struct{ now time.Time }

func (c *coldClock) Now() time.Time { return c.now }

// Once the provider's cache has gone cold, an edit re-bills nothing
// extra: a history half-way to the threshold is due then, and never while
// the cache is warm.
func TestIdleCompactionOnlyWhenTheCacheIsCold(t *testing.T) {
	clock := &coldClock{now: time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)}
	p := sonnetPrices(t)
	c := newTestCompressor(&recorder{}, WithPricing(p), WithClock(clock.Now))
	th := c.threshold()
	in := longSession(15)
	n := c.count(in)
	require.Greater(t, n, th/2)
	require.Less(t, n, th)

	assert.False(t, c.ShouldCompress(n), "no request reported yet: nothing says the cache is cold")
	c.UpdateUsage(Usage{PromptTokens: n - 100})
	clock.now = clock.now.Add(p.CacheLifetime)
	assert.False(t, c.ShouldCompress(n), "the cache is still warm")
	res, err := c.Compress(context.Background(), in)
	require.NoError(t, err)
	assert.NotEmpty(t, res.Skipped)

	clock.now = clock.now.Add(time.Second)
	assert.True(t, c.ShouldCompress(n), "the cache went cold")
	assert.False(t, c.ShouldCompress(th/3), "too little to be worth it")
	res, err = c.Compress(context.Background(), in)
	require.NoError(t, err)
	require.NoError(t, checkContracts(in, res))
	assert.Empty(t, res.Skipped)
	assert.Equal(t, map[string]int{"summary": 1, "idle": 1}, c.Status().Cost.Compactions)

	unpriced := newTestCompressor(&recorder{}, WithClock(clock.Now))
	unpriced.UpdateUsage(Usage{PromptTokens: n, At: clock.now.Add(-time.Hour)})
	assert.False(t, unpriced.ShouldCompress(n), "without prices the threshold alone decides")
}

// economyRun replays a growing agent session through c as a host drives
// it: a request before each assistant turn, compacted when c says so, and
// its usage reported. It returns each request sent and the conversation
// as it stood then.
func economyRun(t *testing.T, c *Compressor, turns int) (sent, convs [][]Message) {
	t.Helper()
	var live, conv []Message
	add := func(ms ...Message) {
		live = append(live, ms...)
		conv = append(conv, ms...)
	}
	add(sys("You are a coding agent."), user("Fix the failing tests in pkg/store."))
	for i := 0; i < turns; i++ {
		if c.ShouldCompressMessages(live) {
			res, err := c.Compress(context.Background(), live)
			require.NoError(t, err)
			if res.Skipped == "" {
				require.NoError(t, checkContracts(live, res))
				live = res.Messages
			}
		}
		sent = append(sent, Clone(live))
		convs = append(convs, Clone(conv))
		c.UpdateUsage(Usage{PromptTokens: c.count(live), CachedTokens: c.count(live) / 2})
		id := fmt.Sprintf("call_%d", i)
		add(msgtest.BashRound(id, fmt.Sprintf("go test ./pkg/store -run Test%d", i), msgtest.ShellOutput(id, 4+i%7*6, i%2))...)
		if i%9 == 8 {
			add(user(fmt.Sprintf("Also look at pkg/cache, step %d.", i)))
		}
	}
	return sent, convs
}

// verbatimEnd is the tokens of the longest run of conv's last messages that
// end req unchanged.
func verbatimEnd(req, conv []Message) int {
	n := 0
	for k := 1; k <= len(req) && k <= len(conv) && msg.EqualMessage(req[len(req)-k], conv[len(conv)-k]); k++ {
		n += byteCounter{}.CountMessage(req[len(req)-k])
	}
	return n
}

// Economy mode compacts earlier than the threshold when that costs less
// per request, never later, keeps the last 8,000 tokens of conversation
// verbatim in every request (all of it while shorter), and never sends a
// request over the usable window.
func TestEconomyCompactsEarlyAndKeepsTheEndVerbatim(t *testing.T) {
	c := New(WithContextWindow(128_000), WithTokenCounter(byteCounter{}), WithSummarizer(&recorder{}),
		WithPricing(sonnetPrices(t)), WithEconomy(true))
	st := c.Status()
	require.True(t, st.Economy)
	require.Less(t, st.Trigger, st.Threshold)
	sent, convs := economyRun(t, c, 400)
	peak := 0
	for i, req := range sent {
		n := c.count(req)
		peak = max(peak, n)
		assert.LessOrEqual(t, n, st.Threshold+2_000, "request %d: about the threshold at most", i)
		assert.GreaterOrEqual(t, verbatimEnd(req, convs[i]), min(economyVerbatimTokens, c.count(convs[i][1:])-3),
			"request %d keeps the end of the conversation verbatim", i)
	}
	got := c.Status().Cost.Compactions
	assert.Positive(t, got["economy"], "compactions came before the threshold")
	assert.Equal(t, got["summary"]+got["prune"], got["economy"], "every one of them early")
	assert.Less(t, peak, st.Threshold/2, "the history stays well under the threshold")
}

// Economy mode needs prices: without them the Compressor compacts as it
// does by default. With the session's archive recalling what is folded,
// it folds deeper: the facts index may shrink to the summary's bound.
func TestEconomyNeedsPricesAndFoldsDeeperWithRecall(t *testing.T) {
	off := newTestCompressor(&recorder{}, WithEconomy(true))
	assert.False(t, off.Status().Economy)
	assert.Equal(t, off.Status().Threshold, off.Status().Trigger)

	c := New(WithContextWindow(128_000), WithPricing(sonnetPrices(t)), WithEconomy(true))
	before := c.th
	c.OnSessionStart("s", SessionMeta{Recall: true})
	assert.True(t, c.Status().Economy)
	assert.Less(t, c.th.factsCap, before.factsCap)
	assert.Equal(t, economyVerbatimTokens, c.th.minVerbatim, "the verbatim end stays")
	assert.Zero(t, c.th.carry)
}

// No pause lets a request over the usable window go out as it is: a paused
// Compressor still says yes to it, and compacts it.
func TestNoPauseLetsARequestOverTheUsableWindow(t *testing.T) {
	// A tail of half the threshold: the pause would last past the window.
	c := newTestCompressor(&recorder{}, WithStrikeLimit(1), WithTail(0.5, 4))
	_, err := c.Compress(context.Background(), overThreshold(), Force())
	require.NoError(t, err)
	c.ShouldCompress(c.threshold() + 1) // the next request, counted and reported, is over
	c.UpdateUsage(Usage{PromptTokens: c.threshold() + 1})
	require.True(t, c.Status().Paused)
	usable := c.Preflight(overThreshold()).Usable

	assert.False(t, c.ShouldCompress(usable), "at the window: paused")
	assert.True(t, c.ShouldCompress(usable+1), "over it: compacted all the same")
	_, err = c.Compress(context.Background(), overThreshold())
	assert.ErrorIs(t, err, ErrPaused)
	big := longSession(40)
	require.Greater(t, c.count(big), usable)
	res, err := c.Compress(context.Background(), big)
	require.NoError(t, err)
	require.NoError(t, checkContracts(big, res))
	assert.True(t, res.Fits)

	r := &recorder{Err: errors.New("503")}
	backing := newTestCompressor(r, WithFailurePolicy(AbortOnFailure))
	_, err = backing.Compress(context.Background(), big, Force())
	require.Error(t, err)
	r.SetErr(nil)
	res, err = backing.Compress(context.Background(), big)
	require.NoError(t, err, "backing off does not hold a request over the window either")
	assert.True(t, res.Fits)
}

// A pause ends once the history has grown a tail's budget past where it
// began: the tail can then let go of what it had to keep.
func TestAPauseLiftsOnceTheHistoryGrowsATailsBudget(t *testing.T) {
	c := newTestCompressor(&recorder{}, WithStrikeLimit(1))
	_, err := c.Compress(context.Background(), overThreshold(), Force())
	require.NoError(t, err)
	at := c.threshold() + 1
	c.UpdateUsage(Usage{PromptTokens: at})
	require.True(t, c.Status().Paused)
	c.UpdateUsage(Usage{PromptTokens: at + c.th.tail - 1})
	assert.True(t, c.Status().Paused)
	c.UpdateUsage(Usage{PromptTokens: at + c.th.tail})
	assert.False(t, c.Status().Paused)
}

// sharer is a model summarizer that can send the agent's own history.
type sharer struct {
	*recorder
	model string
}

func (s sharer) SharesPrefix(model string) bool { return model == s.model }

// A summarizer that can send the agent's history gets it when the cache is
// warm and reading it from there costs less than a rendered transcript:
// the request as sent, what stays verbatim, the tools and the model.
func TestASummarizerThatSharesGetsTheAgentsHistory(t *testing.T) {
	in := chattyRun(40)
	clock := &coldClock{now: time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)}
	newC := func(s Summarizer, opts ...Option) *Compressor {
		return newTestCompressor(s, append([]Option{WithModel("claude-sonnet-4-5"), WithContextWindow(20_000),
			WithClock(clock.Now), WithThresholdBounds(0, 0)}, opts...)...)
	}
	s := sharer{&recorder{}, "claude-sonnet-4-5"}
	c := newC(s)
	c.UpdateUsage(Usage{PromptTokens: c.count(in[:len(in)-2])})
	res, err := c.Compress(context.Background(), in, Force())
	require.NoError(t, err)
	req := s.Last()
	require.NotNil(t, req.History)
	assert.True(t, equalHistory(in, req.History))
	assert.Equal(t, len(in)-(res.SummarizedTo+1), req.Kept)
	assert.Equal(t, "claude-sonnet-4-5", req.Model)
	assert.Positive(t, res.Cost.Summarizer.CacheRead, "billed mostly as a cache read")
	assert.Zero(t, res.Cost.Summarizer.Uncached)

	pending := append(Clone(in), call("next", "c_next", "bash"))
	for name, tt := range map[string]struct {
		s       *recorder
		shares  string // the model the summarizer shares for; "" cannot share
		opts    []Option
		history []Message
		report  bool
		cold    bool
	}{
		"another model":  {&recorder{}, "gpt-5", nil, in, true, false},
		"no prices":      {&recorder{}, "claude-sonnet-4-5", []Option{WithPricing(models.Pricing{})}, in, true, false},
		"no request yet": {&recorder{}, "claude-sonnet-4-5", nil, in, false, false},
		"a cold cache":   {&recorder{}, "claude-sonnet-4-5", nil, in, true, true},
		"cannot share":   {&recorder{}, "", nil, in, true, false},
		"a pending call": {&recorder{}, "claude-sonnet-4-5", nil, pending, true, false},
	} {
		t.Run(name, func(t *testing.T) {
			var s Summarizer = tt.s
			if tt.shares != "" {
				s = sharer{tt.s, tt.shares}
			}
			c := newC(s, tt.opts...)
			if tt.report {
				c.UpdateUsage(Usage{PromptTokens: c.count(in[:len(in)-2]), At: clock.now})
			}
			if tt.cold {
				clock.now = clock.now.Add(time.Hour)
			}
			_, err := c.Compress(context.Background(), tt.history, Force())
			require.NoError(t, err)
			require.Len(t, tt.s.Requests(), 1)
			assert.Nil(t, tt.s.Last().History)
		})
	}
}

// heldOver returns an economy Compressor on a 128,000-token window and a
// history it compacted once already, held near the threshold by one huge
// assistant reply its verbatim end must keep whole: a summary now could
// fold only the summary and a short turn before the reply. The usage of
// the last request is reported, so the provider's cache holds it.
func heldOver(t *testing.T, opts ...Option) (*Compressor, []Message) {
	t.Helper()
	base := []Option{WithContextWindow(128_000), WithTokenCounter(byteCounter{}), WithSummarizer(&recorder{}),
		WithEconomy(true), WithPricing(sonnetPrices(t))}
	c := New(append(base, opts...)...)
	msgs := []Message{sys("You are a coding agent."), user("Fix the flaky test in internal/store.")}
	for i := range 12 {
		id := fmt.Sprintf("c%d", i)
		msgs = append(msgs, call(fmt.Sprintf("step %d", i), id, "bash"), result(id, strings.Repeat("a line of output\n", 40)))
	}
	c.UpdateUsage(Usage{PromptTokens: c.count(msgs), CachedTokens: c.count(msgs) / 2})
	msgs = append(msgs, asst("The benchmark table:\n"+strings.Repeat("| model | 80.1 | 63.2 | diff |\n", 11_400)))
	require.Greater(t, c.count(msgs), c.threshold())
	res, err := c.Compress(context.Background(), msgs)
	require.NoError(t, err, "folding the turns before the reply pays back")
	require.GreaterOrEqual(t, res.SummaryIndex, 0)
	msgs = append(Clone(res.Messages), user("Which model is best?"))
	c.UpdateUsage(Usage{PromptTokens: c.count(res.Messages), CachedTokens: c.count(res.Messages)})
	for i := 0; c.count(msgs) < c.threshold(); i++ {
		id := fmt.Sprintf("d%d", i)
		msgs = append(msgs, call("grep best", id, "bash"), result(id, "no match"))
	}
	require.Less(t, c.count(msgs), c.th.usable)
	return c, msgs
}

// With prices known, a summary that would write the cached history again
// to clear a few tokens, which it could not pay back before the history
// must shrink anyway, is not made (ErrNoSavings): it is made when forced,
// without prices, and when the cache is cold.
func TestAPricedSummaryMustPayBackItsRewrite(t *testing.T) {
	c, in := heldOver(t)
	n := c.Status().Compressions
	_, err := c.Compress(context.Background(), in)
	require.ErrorIs(t, err, ErrNoSavings)
	assert.Equal(t, n, c.Status().Compressions)

	res, err := c.Compress(context.Background(), in, Force())
	require.NoError(t, err, "a person's /compress is done")
	require.NoError(t, checkContracts(in, res))

	unpriced, in := heldOver(t, WithPricing(models.Pricing{}))
	_, err = unpriced.Compress(context.Background(), in)
	require.NoError(t, err, "without prices the threshold alone decides")

	clock := &coldClock{now: time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)}
	cold, in := heldOver(t, WithClock(clock.Now))
	clock.now = clock.now.Add(time.Hour)
	_, err = cold.Compress(context.Background(), in)
	require.NoError(t, err, "a cold cache rewrites nothing extra")
}

// With prices known and the extractive summarizer, whose summary keeps the
// user's asks and their facts, the default carries no verbatim copies of
// earlier user messages: what a compaction keeps is read again on every
// request. A model summarizer, no prices, or a budget the host set keeps
// the carry.
func TestAPricedExtractiveCompactionCarriesNoCopies(t *testing.T) {
	s := longSession(20)
	in := append(Clone(s[:12]), user("Also check the retry loop in internal/store/retry.go."))
	in = append(append(in, s[12:20]...), user("Then run the whole suite."))
	in = append(in, s[20:]...)
	tests := []struct {
		name    string
		s       Summarizer
		opts    []Option
		carried bool
	}{
		{"extractive, priced", nil, []Option{WithPricing(sonnetPrices(t))}, false},
		{"model, priced", &recorder{}, []Option{WithPricing(sonnetPrices(t))}, true},
		{"extractive, no prices", nil, nil, true},
		{"extractive, priced, a budget set", nil, []Option{WithPricing(sonnetPrices(t)), WithCarriedUserTokens(20_000)}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newTestCompressor(tt.s, tt.opts...)
			assert.Equal(t, tt.carried, c.th.carry > 0)
			res, err := c.Compress(context.Background(), in, Force())
			require.NoError(t, err)
			require.NoError(t, checkContracts(in, res))
			assert.Equal(t, tt.carried, res.Carried > 0, "%+v", res)
			if !tt.carried {
				assert.Contains(t, res.Summary, "internal/store/retry.go", "the summary keeps the ask")
			}
		})
	}
}
