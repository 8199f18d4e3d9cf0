package compact

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/contextkit/compact/internal/msg"
	openai "github.com/sashabaranov/go-openai"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// longSession is a coding session of n tool rounds after one task message.
func longSession(n int) []Message {
	msgs := []Message{sys("You are a coding agent."), user("Fix the flaky test in internal/store.")}
	for i := 0; i < n; i++ {
		id := fmt.Sprintf("c%d", i)
		msgs = append(msgs, call(fmt.Sprintf("step %d", i), id, "bash"),
			result(id, strings.Repeat(fmt.Sprintf("line %d of output\n", i), 20)))
	}
	return append(msgs, asst("All tests pass now."))
}

func newTestCompressor(s Summarizer, opts ...Option) *Compressor {
	// Pruning is off so these tests see the summarizer at work; prune
	// tests turn it on with WithPruning.
	base := []Option{WithContextWindow(4000), WithTokenCounter(byteCounter{}), WithSummarizer(s),
		WithThresholdBounds(0, 0), WithPruning(false)}
	return New(append(base, opts...)...)
}

func TestThresholds(t *testing.T) {
	tests := []struct {
		name     string
		opts     []Option
		want     int
		adjusted string // what Status().Adjusted says, "" for nothing
	}{
		{"default window", nil, 89_856, ""},                                               // 0.75 × (128k − 8192)
		{"small window keeps the fraction", []Option{WithContextWindow(8000)}, 4_500, ""}, // reserve 2000
		{"a low fraction is honoured on a large window", []Option{WithThreshold(0.3)}, 35_942, ""},
		{"a low fraction is honoured on a small window", []Option{WithContextWindow(32_000), WithThreshold(0.5)}, 12_000, ""},
		{"a floor set lifts a low fraction", []Option{WithThreshold(0.3), WithThresholdBounds(64_000, 0)}, 64_000,
			"threshold: 64000 tokens, not 35942 (0.3 of the 119808 usable): WithThresholdBounds(64000, 0) moved it"},
		{"a floor set never lifts past the default fraction", []Option{WithContextWindow(32_000), WithThreshold(0.5), WithThresholdBounds(20_000, 0)}, 18_000,
			"threshold: 18000 tokens, not 12000 (0.5 of the 24000 usable): WithThresholdBounds(20000, 0) moved it"},
		{"cap on a huge window", []Option{WithContextWindow(1_000_000)}, 256_000, ""},
		{"the default cap bounds the default fraction only", []Option{WithContextWindow(1_000_000), WithThreshold(0.5)}, 495_904, ""},
		{"a cap set bounds any fraction", []Option{WithContextWindow(1_000_000), WithThreshold(0.5), WithThresholdBounds(0, 256_000)}, 256_000,
			"threshold: 256000 tokens, not 495904 (0.5 of the 991808 usable): WithThresholdBounds(0, 256000) moved it"},
		{"a cap set bounds the default fraction", []Option{WithThresholdBounds(0, 50_000)}, 50_000,
			"threshold: 50000 tokens, not 89856 (0.75 of the 119808 usable): WithThresholdBounds(0, 50000) moved it"},
		{"no bounds", []Option{WithContextWindow(1_000_000), WithThresholdBounds(0, 0)}, 743_856, ""},
		{"explicit reserve", []Option{WithContextWindow(100_000), WithReserveTokens(20_000)}, 60_000, ""},
		{"a reserve that takes the window", []Option{WithContextWindow(8_000), WithReserveTokens(8_000)}, 1,
			"WithReserveTokens(8000): leaves nothing of the 8000-token window; 1 token usable"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := New(append(tt.opts, WithTokenCounter(byteCounter{}))...)
			assert.Equal(t, tt.want, c.threshold())
			var want []string
			if tt.adjusted != "" {
				want = []string{tt.adjusted}
			}
			assert.Equal(t, want, c.Status().Adjusted)
		})
	}
	// An invalid value is reported as such, and the default kept.
	c := New(WithContextWindow(-1), WithThreshold(3), WithTokenCounter(byteCounter{}))
	assert.Equal(t, 89_856, c.threshold())
	assert.Len(t, c.Status().Adjusted, 2)
}

// An adjustment follows the window: a model switch to a window where the
// bounds no longer move the threshold clears it.
func TestThresholdAdjustmentFollowsTheWindow(t *testing.T) {
	c := New(WithContextWindow(32_000), WithThreshold(0.5), WithThresholdBounds(20_000, 0), WithTokenCounter(byteCounter{}))
	require.Len(t, c.Status().Adjusted, 1)
	c.SwitchModel("bigger", 200_000)
	assert.Equal(t, 95_904, c.Status().Threshold)
	assert.Empty(t, c.Status().Adjusted)
}

func TestCompressKeepsSystemHeadTailAndLatestUser(t *testing.T) {
	r := &recorder{}
	c := newTestCompressor(r)
	in := longSession(30)
	before := Clone(in)
	res, err := c.Compress(context.Background(), in)
	require.NoError(t, err)
	out := res.Messages

	require.NoError(t, Validate(out))
	assert.True(t, reflect.DeepEqual(before, in), "input unchanged")
	assert.Equal(t, in[0].Content+msg.CompactionNoteSep+CompactionNote, out[0].Content, "system prompt plus the note")
	assert.Equal(t, in[len(in)-1], out[len(out)-1], "last message verbatim")
	assert.True(t, IsSummary(out[res.SummaryIndex]))
	assert.Less(t, res.TokensAfter, res.TokensBefore)
	// The single task message, the latest user message, is never kept in
	// the head: it follows the summary, verbatim, in the summary's message
	// (the history opens on a user turn: WithUserFirst).
	assert.Equal(t, 1, res.Lifted)
	_, own, shared := msg.SplitMerged(out[res.SummaryIndex])
	assert.True(t, shared)
	assert.Equal(t, in[1], own)
	assert.Equal(t, RoleUser, out[res.SummaryIndex].Role)
	// Every input message is in the output or in the summarised range.
	for i, m := range in[1:] {
		if i+1 < res.SummarizedFrom || i+1 > res.SummarizedTo {
			assert.Contains(t, out, m, "message %d", i+1)
		}
	}
	// The tail is the input's suffix, verbatim.
	tail := in[res.SummarizedTo+1:]
	assert.Equal(t, tail, out[len(out)-len(tail):])
	// The summarizer saw exactly the summarised range.
	assert.Equal(t, in[res.SummarizedFrom:res.SummarizedTo+1], r.Last().Turns)
}

func TestRecompactionYieldsOneSummaryAndDecaysTheHead(t *testing.T) {
	r := &recorder{}
	c := newTestCompressor(r)
	first, err := c.Compress(context.Background(), longSession(30))
	require.NoError(t, err)
	grown := append(Clone(first.Messages), longSession(30)[2:]...)
	second, err := c.Compress(context.Background(), grown, Force())
	require.NoError(t, err)

	n := 0
	for _, m := range second.Messages {
		if IsSummary(m) {
			n++
		}
	}
	assert.Equal(t, 1, n, "one summary after two compactions")
	assert.Equal(t, 1, second.SummarizedFrom, "the head decayed to the system prompt")
	assert.Equal(t, first.Summary, r.Last().PreviousSummary, "the old summary is updated, not re-summarised")
	for _, turn := range r.Last().Turns {
		assert.False(t, IsSummary(turn), "the old summary is not among the turns")
	}
	assert.Equal(t, 1, strings.Count(second.Messages[0].Content, CompactionNote), "the note is added once")
	// The task message stays lifted verbatim, the new summary merged in
	// front of it as the old one was.
	assert.Equal(t, 1, second.Lifted)
	summary, own, _ := msg.SplitMerged(second.Messages[second.SummaryIndex])
	assert.Equal(t, longSession(30)[1], own)
	assert.True(t, strings.HasPrefix(summary, second.Summary), "the summary in the task's message is the new one")
}

func TestIncomingMessageComesBackLastAndIsNotSummarised(t *testing.T) {
	r := &recorder{}
	c := newTestCompressor(r)
	in := longSession(30)
	incoming := user("Now also check internal/cache.")
	res, err := c.Compress(context.Background(), in, WithIncoming(incoming))
	require.NoError(t, err)
	assert.Equal(t, incoming, res.Messages[len(res.Messages)-1])
	for _, m := range r.Last().Turns {
		assert.NotEqual(t, incoming.Content, m.Content)
	}
	require.NoError(t, Validate(res.Messages))
}

// A history that ends with a summary has no tail; its latest real user
// message must not be lifted in front of an incoming user message, which
// would make two user turns that compaction created. It is carried inside
// the summary instead.
func TestNoLiftInFrontOfAnIncomingUserTurn(t *testing.T) {
	in := []Message{sys("s"), user("the task"), asst(strings.Repeat("a long answer ", 200)),
		user("a question"), {Role: RoleAssistant, Content: PrefixSummary("earlier work")}}
	incoming := user("next")
	res, err := newTestCompressor(&recorder{}).Compress(context.Background(), in, Force(), WithIncoming(incoming))
	require.NoError(t, err)
	out := res.Messages
	assert.Equal(t, "s u", roles(out), "the summary merged in front of the incoming turn (WithUserFirst)")
	_, own, _ := msg.SplitMerged(out[len(out)-1])
	assert.Equal(t, incoming, own)
	assert.Equal(t, -1, res.Lifted)
	assert.Contains(t, out[res.SummaryIndex].Content, "a question", "carried verbatim in the summary")
}

func TestFocusReachesTheSummarizer(t *testing.T) {
	r := &recorder{}
	_, err := newTestCompressor(r).Compress(context.Background(), longSession(30), WithFocus("flaky test"))
	require.NoError(t, err)
	assert.Equal(t, "flaky test", r.Last().Focus)
}

func TestPendingCallsAtTheEndStay(t *testing.T) {
	in := append(longSession(30), user("go on"), call("running", "p1", "bash", "p2", "read"), result("p1", "done"))
	res, err := newTestCompressor(&recorder{}).Compress(context.Background(), in)
	require.NoError(t, err)
	out := res.Messages
	assert.Equal(t, in[len(in)-2:], out[len(out)-2:])
	require.NoError(t, Validate(out))
}

func TestNothingToCompress(t *testing.T) {
	c := newTestCompressor(&recorder{})
	tiny := []Message{sys("s"), user("hi"), asst("hello")}
	assert.False(t, c.HasContentToCompress(tiny))
	_, err := c.Compress(context.Background(), tiny, Force())
	assert.ErrorIs(t, err, ErrNothingToCompress)
}

func TestNoSavings(t *testing.T) {
	// The summarised turns are two short messages; the summary, even cut to
	// twice its target, is longer than they are.
	r := &recorder{Out: strings.Repeat("a very long summary ", 2000)}
	c := newTestCompressor(r, WithHeadMessages(0))
	in := []Message{sys("s"), user(strings.Repeat("first question ", 25)), asst(strings.Repeat("first answer ", 15)),
		user(strings.Repeat("the real task ", 300)), asst(strings.Repeat("a long answer ", 300))}
	_, err := c.Compress(context.Background(), in, Force())
	assert.ErrorIs(t, err, ErrNoSavings)
	require.NotEmpty(t, r.Requests(), "the summarizer ran; its summary was too long")
}

// Turns smaller than the summary prefix cannot be folded into less: the
// summarizer is not even asked.
func TestNoSavingsWithoutCallingTheSummarizer(t *testing.T) {
	r := &recorder{}
	c := newTestCompressor(r, WithHeadMessages(0))
	in := []Message{sys("s"), user("hi"), asst("hello"),
		user(strings.Repeat("the real task ", 300)), asst(strings.Repeat("a long answer ", 300))}
	_, err := c.Compress(context.Background(), in, Force())
	assert.ErrorIs(t, err, ErrNoSavings)
	assert.Empty(t, r.Requests())
}

func TestSummaryIsCappedNearItsTarget(t *testing.T) {
	r := &recorder{Out: strings.Repeat("word ", 20_000)}
	res, err := newTestCompressor(r).Compress(context.Background(), longSession(60))
	require.NoError(t, err)
	target := r.Last().TargetTokens
	assert.LessOrEqual(t, byteCounter{}.CountText(res.Summary), 2*target)
	assert.Contains(t, res.Summary, "characters cut")
}

func TestInvalidInput(t *testing.T) {
	bad := append(longSession(30), result("nope", "orphan"))
	_, err := newTestCompressor(&recorder{}).Compress(context.Background(), bad)
	var ve *ValidationError
	require.ErrorAs(t, err, &ve)
	assert.Equal(t, len(bad)-1, ve.Index)
	assert.ErrorIs(t, err, ErrInvalidHistory)

	res, err := newTestCompressor(&recorder{}, WithRepair(true)).Compress(context.Background(), bad)
	require.NoError(t, err)
	require.Len(t, res.Repairs, 1)
	assert.Equal(t, "dropped orphan tool result", res.Repairs[0].Kind.String())
}

func TestSummaryRole(t *testing.T) {
	u, a, s, tool := user("u"), asst("a"), sys("s"), result("c", "r")
	tests := []struct {
		name string
		prev *Message
		next []Message
		want string
	}{
		{"after system, before assistant", &s, []Message{a}, RoleUser},
		{"after system, before user", &s, []Message{u}, RoleAssistant},
		{"after a tool result, before user", &tool, []Message{u}, RoleAssistant},
		{"nothing around", nil, nil, RoleUser},
		{"after user, before user", &u, []Message{u}, RoleAssistant},
		{"after assistant, before assistant", &a, []Message{a}, RoleUser},
		{"after user, before assistant: no role fits", &u, []Message{a}, ""},
		{"after assistant, before user: no role fits", &a, []Message{u}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, summaryRole(tt.prev, tt.next))
		})
	}
}

// In a plain chat the head ends on a user turn and the tail starts on an
// assistant turn (or the other way round): no summary role fits between, so
// the head gives up a turn rather than the summary breaking alternation.
func TestHeadGivesWayWhenNoRoleFits(t *testing.T) {
	var in []Message
	for i := 0; i < 30; i++ {
		in = append(in, user(fmt.Sprintf("question %d %s", i, strings.Repeat("x", 200))),
			asst(fmt.Sprintf("answer %d %s", i, strings.Repeat("y", 200))))
	}
	for _, head := range []int{1, 2, 3, 4} {
		t.Run(fmt.Sprint("head ", head), func(t *testing.T) {
			res, err := newTestCompressor(&recorder{}, WithHeadMessages(head)).Compress(context.Background(), in)
			require.NoError(t, err)
			out := res.Messages
			require.NoError(t, Validate(out))
			for i := 1; i < len(out); i++ {
				assert.False(t, msg.Clashes(out[i-1], out[i]), "seam at %d: %s", i, roles(out))
			}
			assert.Equal(t, in[:res.SummarizedFrom], out[:res.SummarizedFrom], "the kept head is verbatim")
		})
	}
}

func TestCarriedUserMessages(t *testing.T) {
	var in []Message
	in = append(in, sys("s"))
	for i := 0; i < 12; i++ {
		in = append(in, user(fmt.Sprintf("ask %d: %s", i, strings.Repeat("please ", 30))))
		for k := 0; k < 3; k++ {
			id := fmt.Sprintf("c%d_%d", i, k)
			in = append(in, call("", id, "bash"), result(id, strings.Repeat("out ", 100)))
		}
		in = append(in, asst(fmt.Sprintf("done with ask %d", i)))
	}
	c := newTestCompressor(&recorder{}, WithCarriedUserTokens(200), WithHeadMessages(0))
	res, err := c.Compress(context.Background(), in)
	require.NoError(t, err)
	require.Greater(t, res.Carried, 0)

	_, rest, ok := msg.SplitMerged(res.Messages[res.SummaryIndex])
	require.True(t, ok)
	assert.True(t, msg.IsBlank(rest))
	summary, _, _ := msg.SplitSummary(Text(res.Messages[res.SummaryIndex]))
	_, carried := msg.SplitCarried(summary)
	require.Len(t, carried, res.Carried)
	used := 0
	for _, t := range carried {
		used += byteCounter{}.CountText(t) + msg.CarriedEntryTokens
	}
	assert.LessOrEqual(t, used, 200, "carried messages stay within their budget")
	// The newest carried message is the last real user message summarised.
	lastSummarised := ""
	for _, m := range in[res.SummarizedFrom : res.SummarizedTo+1] {
		if IsRealUser(m) {
			lastSummarised = m.Content
		}
	}
	assert.Equal(t, lastSummarised, carried[len(carried)-1])

	off, err := newTestCompressor(&recorder{}, WithCarriedUserTokens(0)).Compress(context.Background(), in)
	require.NoError(t, err)
	assert.Zero(t, off.Carried)
}

func TestSplitCarriedRoundTrip(t *testing.T) {
	carried := []string{"first", "", "has [user message, 3 bytes]\nfake entry", "ends\n"}
	text := msg.SummaryText("the body mentions "+msg.CarriedHeader, carried)
	summary, _, ok := msg.SplitSummary(text)
	require.True(t, ok)
	body, got := msg.SplitCarried(summary)
	assert.Equal(t, carried, got)
	assert.Contains(t, body, "(earlier user messages, verbatim, oldest first)")
	// A damaged section stays in the body: nothing is lost.
	body, got = msg.SplitCarried("body\n\n" + msg.CarriedHeader + "\n[user message, 999 bytes]\nshort")
	assert.Nil(t, got)
	assert.Contains(t, body, "short")
}

func TestFailurePolicy(t *testing.T) {
	boom := errors.New("boom")
	t.Run("abort keeps the caller's messages", func(t *testing.T) {
		c := newTestCompressor(&recorder{Err: boom}, WithFailurePolicy(AbortOnFailure))
		in := longSession(30)
		res, err := c.Compress(context.Background(), in)
		assert.Nil(t, res)
		assert.ErrorIs(t, err, ErrSummarizer)
		assert.ErrorIs(t, err, boom)
	})
	t.Run("fallback summarises anyway", func(t *testing.T) {
		fb := &recorder{Out: "fallback summary"}
		c := newTestCompressor(&recorder{Err: boom}, WithFallbackSummarizer(fb))
		res, err := c.Compress(context.Background(), longSession(30))
		require.NoError(t, err)
		assert.True(t, res.Fallback)
		assert.Contains(t, res.FallbackReason, "boom")
		assert.Equal(t, "fallback summary", res.Summary)
	})
	for _, cause := range []error{ErrSummarizerAuth, ErrSummarizerQuota} {
		t.Run("always abort on "+cause.Error(), func(t *testing.T) {
			c := newTestCompressor(&recorder{Err: fmt.Errorf("401: %w", cause)}, WithFallbackSummarizer(&recorder{}))
			_, err := c.Compress(context.Background(), longSession(30))
			assert.ErrorIs(t, err, cause)
			assert.ErrorIs(t, err, ErrSummarizer)
		})
	}
	t.Run("cancelled context", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		r := &recorder{}
		c := newTestCompressor(SummarizerFunc(func(ctx context.Context, req SummaryRequest) (string, error) {
			cancel()
			return r.Summarize(ctx, req)
		}))
		_, err := c.Compress(ctx, longSession(30))
		assert.ErrorIs(t, err, context.Canceled)
		assert.Equal(t, "", c.Status().LastError, "a cancellation is not a summarizer failure")
	})
}

func TestBackoff(t *testing.T) {
	now := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	clock := func() time.Time { return now }
	r := &recorder{Err: errors.New("503")}
	c := newTestCompressor(r, WithFailurePolicy(AbortOnFailure), WithClock(clock))
	in := overThreshold()
	big := c.threshold() + 1

	for i, wait := range []time.Duration{60 * time.Second, 300 * time.Second, 900 * time.Second, 900 * time.Second} {
		_, err := c.Compress(context.Background(), in, Force())
		require.ErrorIs(t, err, ErrSummarizer, "failure %d", i+1)
		assert.Equal(t, now.Add(wait), c.Status().BackoffUntil, "failure %d", i+1)
		assert.False(t, c.ShouldCompress(big), "no automatic compaction while backing off")
		_, err = c.Compress(context.Background(), in)
		var be *BackoffError
		require.ErrorAs(t, err, &be)
		assert.ErrorIs(t, err, ErrBackoff)
		assert.Equal(t, i+1, be.Failures)
	}
	calls := r.Calls()
	now = now.Add(901 * time.Second)
	assert.True(t, c.ShouldCompress(big), "backoff over")
	r.SetErr(nil)
	_, err := c.Compress(context.Background(), in)
	require.NoError(t, err)
	assert.Equal(t, calls+1, r.Calls())
	assert.True(t, c.Status().BackoffUntil.IsZero(), "a success resets the backoff")
}

func TestBackoffWithFallbackSkipsTheFailingSummarizer(t *testing.T) {
	r := &recorder{Err: errors.New("503")}
	fb := &recorder{Out: "extractive"}
	c := newTestCompressor(r, WithFallbackSummarizer(fb))
	in := overThreshold()
	_, err := c.Compress(context.Background(), in)
	require.NoError(t, err)
	require.Len(t, r.Requests(), 1)
	res, err := c.Compress(context.Background(), in)
	require.NoError(t, err)
	assert.Len(t, r.Requests(), 1, "while backing off the failing summarizer is not called")
	assert.True(t, res.Fallback)
	assert.Contains(t, res.FallbackReason, "backing off")
}

// overThreshold is a history over the test Compressor's threshold (2,250
// tokens) that still fits its usable window (3,000).
func overThreshold() []Message { return longSession(25) }

func TestAntiThrash(t *testing.T) {
	c := newTestCompressor(&recorder{})
	th := c.threshold()
	in := overThreshold()

	for strike := 1; strike <= 2; strike++ {
		_, err := c.Compress(context.Background(), in)
		require.NoError(t, err)
		// The next request, counted and reported, is still over.
		c.ShouldCompress(th + 100)
		c.UpdateUsage(Usage{PromptTokens: th + 100})
		assert.Equal(t, strike, c.Status().Strikes)
	}
	st := c.Status()
	assert.True(t, st.Paused)
	assert.Contains(t, st.PauseReason, "2 times in a row")
	assert.False(t, c.ShouldCompress(th+100), "paused")
	_, err := c.Compress(context.Background(), in)
	assert.ErrorIs(t, err, ErrPaused)
	_, err = c.Compress(context.Background(), in, Force())
	assert.NoError(t, err, "force bypasses a pause")

	c.UpdateUsage(Usage{PromptTokens: th / 2})
	assert.False(t, c.Status().Paused, "usage dropping lifts the pause")
	assert.True(t, c.ShouldCompress(th+1))
}

func TestAntiThrashLiftedByModelSwitch(t *testing.T) {
	c := newTestCompressor(&recorder{}, WithStrikeLimit(1))
	_, err := c.Compress(context.Background(), longSession(30))
	require.NoError(t, err)
	c.UpdateUsage(Usage{PromptTokens: c.threshold() + 1})
	require.True(t, c.Status().Paused)
	c.SwitchModel("bigger", 400_000)
	st := c.Status()
	assert.False(t, st.Paused)
	assert.Equal(t, 400_000, st.Window)
	assert.Equal(t, "bigger", st.Model)
	assert.Greater(t, st.Threshold, 4000)
}

func TestSuccessfulCompactionClearsStrikes(t *testing.T) {
	c := newTestCompressor(&recorder{})
	in := longSession(30)
	_, err := c.Compress(context.Background(), in)
	require.NoError(t, err)
	c.UpdateUsage(Usage{PromptTokens: c.threshold() + 1})
	require.Equal(t, 1, c.Status().Strikes)
	_, err = c.Compress(context.Background(), in)
	require.NoError(t, err)
	c.UpdateUsage(Usage{PromptTokens: 10})
	assert.Equal(t, 0, c.Status().Strikes)
	assert.Equal(t, 2, c.Status().Compressions)
}

func TestStatusAndPreflight(t *testing.T) {
	c := newTestCompressor(&recorder{})
	th := c.threshold()
	c.UpdateUsage(Usage{PromptTokens: th * 3})
	assert.Equal(t, 100.0, c.Status().ThresholdPercent, "capped at 100")
	c.UpdateUsage(Usage{PromptTokens: th / 2})
	assert.InDelta(t, 50.0, c.Status().ThresholdPercent, 0.1)

	in := longSession(30)
	p := c.Preflight(in, WithIncoming(Message{Role: RoleUser, Content: "next"}))
	assert.Equal(t, c.count(in)+byteCounter{}.CountMessage(user("next")), p.Tokens)
	assert.True(t, p.Compress)
	assert.True(t, p.HasContent)

	spent := c.Status().Cost
	c.OnSessionReset("s")
	assert.Equal(t, Status{Engine: "compressor", Window: 4000, Threshold: th, Usable: 3000, Trigger: th, Calibration: 1, Cost: spent}, c.Status(),
		"a reset forgets all but the bill")
}

func TestUsageFrom(t *testing.T) {
	u := UsageFrom(openaiUsage(120, 30, 64))
	assert.Equal(t, Usage{PromptTokens: 120, CompletionTokens: 30, TotalTokens: 150, CachedTokens: 64}, u)
}

func openaiUsage(prompt, completion, cached int) openai.Usage {
	return openai.Usage{PromptTokens: prompt, CompletionTokens: completion, TotalTokens: prompt + completion,
		PromptTokensDetails: &openai.PromptTokensDetails{CachedTokens: cached}}
}

// The engine contract for a done context: a nil Result, an error that wraps
// ctx.Err() whatever the summarizer returned, and no summarizer failure
// recorded.
func TestCompressReturnsTheContextsErrorWhenItIsDone(t *testing.T) {
	expired, cancelExpired := context.WithDeadline(context.Background(), time.Now().Add(-time.Second))
	defer cancelExpired()
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	for _, tt := range []struct {
		name string
		ctx  context.Context
		want error
	}{{"cancelled before", cancelled, context.Canceled}, {"deadline passed", expired, context.DeadlineExceeded}} {
		t.Run(tt.name, func(t *testing.T) {
			in := longSession(30)
			res, err := newTestCompressor(&recorder{}).Compress(tt.ctx, in)
			assert.Nil(t, res)
			assert.ErrorIs(t, err, tt.want)
		})
	}
	t.Run("cancelled while the summarizer runs, which returns its own error", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		c := newTestCompressor(SummarizerFunc(func(context.Context, SummaryRequest) (string, error) {
			cancel()
			return "", errors.New("connection reset")
		}))
		res, err := c.Compress(ctx, longSession(30))
		assert.Nil(t, res)
		assert.ErrorIs(t, err, context.Canceled)
		assert.Contains(t, err.Error(), "connection reset")
		assert.Empty(t, c.Status().LastError, "a cancellation is not a summarizer failure")
	})
}
