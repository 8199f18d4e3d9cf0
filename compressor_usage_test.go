package compact

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/contextkit/compact/tokens"
	openai "github.com/sashabaranov/go-openai"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// What a provider's usage report does to the trigger (issue 31, items 3,
// 4 and 7) and what a failing summarizer does to automatic compaction
// (item 6).

// usageModels are a model counted exactly and one counted by calibration.
var usageModels = []string{"gpt-4o", "claude-sonnet-4-5"}

// entryPoint is a way a host asks whether a history must be compacted
// before it is sent: it reports whether the check said so (for Compress,
// whether it compacted).
type entryPoint struct {
	name  string
	check func(t *testing.T, c *Compressor, msgs []Message) bool
}

var entryPoints = []entryPoint{
	{"ShouldCompress", func(t *testing.T, c *Compressor, msgs []Message) bool {
		return c.ShouldCompress(tokens.CountMessages(c.Counter(), msgs))
	}},
	{"ShouldCompressMessages", func(t *testing.T, c *Compressor, msgs []Message) bool {
		return c.ShouldCompressMessages(msgs)
	}},
	{"Preflight", func(t *testing.T, c *Compressor, msgs []Message) bool {
		return c.Preflight(msgs).Compress
	}},
	{"Compress", func(t *testing.T, c *Compressor, msgs []Message) bool {
		res, err := c.Compress(context.Background(), msgs)
		require.NoError(t, err)
		return res.Skipped == ""
	}},
}

// sessionOf returns a coding session counted at about want tokens by c,
// and a reply with a tool result to append after it.
func sessionOf(c *Compressor, want int) (msgs, next []Message) {
	n := 1
	for tokens.CountMessages(c.Counter(), longSession(n)) < want {
		n++
	}
	msgs = longSession(n)
	msgs = msgs[:len(msgs)-1] // ends with a tool result: the model's turn
	next = []Message{call("one more step", "cx", "bash"), result("cx", strings.Repeat("more output\n", 20))}
	return msgs, next
}

// A usage report over the threshold makes the next check compact, for a
// model counted exactly and one counted by calibration, whichever entry
// point the host calls; the compaction it brings brings the request under
// the threshold, and the report, now stale, triggers nothing more.
func TestAUsageReportOverTheThresholdCompactsAtTheNextCheck(t *testing.T) {
	for _, model := range usageModels {
		for _, ep := range entryPoints {
			t.Run(model+"/"+ep.name, func(t *testing.T) {
				c := New(WithModel(model), WithContextWindow(16_000))
				th := c.Status().Threshold
				msgs, next := sessionOf(c, th/2)
				require.False(t, ep.check(t, c, msgs), "counted at half the threshold")

				// The provider saw more than the count: tool schemas, images,
				// its own framing.
				c.UpdateUsage(Usage{PromptTokens: th + 1})
				msgs = append(msgs, next...)
				require.True(t, ep.check(t, c, msgs), "the next check after a report over the threshold compacts")

				res, err := c.Compress(context.Background(), msgs)
				require.NoError(t, err)
				require.Empty(t, res.Skipped, "Compress compacts on the report")
				after := append(res.Messages, asst("done"))
				assert.False(t, ep.check(t, c, after), "the compaction brought the request down: the old report triggers nothing")
			})
		}
	}
}

// The README's loop (Compress, then UpdateUsage) with a model counted by
// calibration: a history counted under the threshold and reported over it
// is compacted on the next turn, and the report tunes the calibration
// without overshooting it.
func TestTheReadmeLoopCompactsOnTheTurnAfterAReportOverTheThreshold(t *testing.T) {
	c := New(WithModel("claude-sonnet-4-5"), WithContextWindow(4_000))
	th := c.Status().Threshold
	factor := c.Status().Calibration
	msgs, next := sessionOf(c, th*6/10)
	counted := tokens.CountMessages(c.Counter(), msgs)

	res, err := c.Compress(context.Background(), msgs)
	require.NoError(t, err)
	require.NotEmpty(t, res.Skipped)
	reported := th + th/8
	c.UpdateUsage(Usage{PromptTokens: reported})
	f := c.Status().Calibration
	assert.Greater(t, f, factor, "the count Compress made tunes the calibration")
	assert.LessOrEqual(t, f, factor*float64(reported)/float64(counted), "the calibration never overshoots the report")

	msgs = append(msgs, next...)
	res, err = c.Compress(context.Background(), msgs)
	require.NoError(t, err)
	assert.Empty(t, res.Skipped, "compacted on the turn after the report")
}

// A report is of the request that was sent: the next request is that
// report plus what was appended since, whatever the count says.
func TestTheNextRequestIsTheReportPlusWhatWasAppended(t *testing.T) {
	c := New(WithModel("gpt-4o"))
	msgs, next := sessionOf(c, 20_000)
	sent := c.Preflight(msgs)
	c.UpdateUsage(Usage{PromptTokens: sent.Tokens + 5_000}) // 5,000 tokens of tool schemas the host did not name
	grown := append(msgs, next...)
	appended := c.count(grown) - c.count(msgs)
	assert.Equal(t, sent.Tokens+5_000+appended, c.Preflight(grown).Tokens)

	// Naming the tools tells the count what the report saw: nothing is
	// added twice.
	tools := []openai.Tool{bigTool(300)}
	withTools := c.Preflight(grown, WithTools(tools))
	c.UpdateUsage(Usage{PromptTokens: withTools.Tokens})
	assert.Equal(t, withTools.Tokens, c.Preflight(grown, WithTools(tools)).Tokens)
}

// bigTool is a function definition whose description takes about n words.
func bigTool(n int) openai.Tool {
	var b strings.Builder
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "word%d ", i%97)
	}
	params, _ := json.Marshal(map[string]any{"type": "object", "properties": map[string]any{"path": map[string]string{"type": "string"}}})
	return openai.Tool{Type: openai.ToolTypeFunction, Function: &openai.FunctionDefinition{Name: "big", Description: b.String(), Parameters: json.RawMessage(params)}}
}

// The anti-thrash pause holds when the incompressible floor is a tool
// schema, as it does when the floor is in the system prompt: the pause
// point and the usage reports count the same request.
func TestAntiThrashPauseHoldsWhenToolSchemasAreTheFloor(t *testing.T) {
	run := func(t *testing.T, inTools bool) (compactions, calls int) {
		r := &recorder{}
		c := New(WithContextWindow(40_000), WithSummarizer(r))
		tc := c.Counter()
		floor := bigTool(1)
		for w := 100; tokens.CountTools(tc, []openai.Tool{floor}) < 20_000; w += 100 {
			floor = bigTool(w)
		}
		var tools []openai.Tool
		system := sys("You are a coding agent.")
		if inTools {
			tools = []openai.Tool{floor}
		} else {
			system = sys("You are a coding agent.\n" + floor.Function.Description)
		}
		msgs := []Message{system, user("Fix the build.")}
		turn := func(i int) []Message { // about 1,000 tokens
			var out []Message
			for j := 0; j < 2; j++ {
				out = append(out, asst(fmt.Sprintf("turn %d.%d: %s", i, j, strings.Repeat("reading the code ", 80))),
					user(fmt.Sprintf("next %d.%d: %s", i, j, strings.Repeat("keep going ", 120))))
			}
			return out
		}
		for i := 0; i < 8; i++ {
			msgs = append(msgs, turn(i)...)
		}
		for i := 0; i < 6; i++ { // less than a tail's budget of growth after the pause
			msgs = append(msgs, turn(100+i)...)
			res, err := c.Compress(context.Background(), msgs, WithTools(tools))
			if err == nil && res.Skipped == "" {
				compactions++
				msgs = res.Messages
			} else if err != nil {
				require.True(t, errors.Is(err, ErrPaused) || errors.Is(err, ErrNothingToCompress), "%v", err)
			}
			c.UpdateUsage(Usage{PromptTokens: c.Preflight(msgs, WithTools(tools)).Tokens})
		}
		assert.True(t, c.Status().Paused, "still paused")
		return compactions, r.Calls()
	}
	sysCompactions, sysCalls := run(t, false)
	toolCompactions, toolCalls := run(t, true)
	assert.Equal(t, 2, sysCompactions, "the floor in the system prompt: a pause after 2 compactions, held")
	assert.Equal(t, sysCompactions, toolCompactions, "the floor in the tools pauses as the system prompt does")
	assert.Equal(t, sysCalls, toolCalls)
}

// With the default fallback policy, an automatic compaction during a
// backoff never calls the failing summarizer, even over the usable
// window; a forced one does. The waits are 60 s, 300 s, then 900 s.
func TestBackoffScheduleWithTheFallback(t *testing.T) {
	now := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	r := &recorder{Err: errors.New("503")}
	c := newTestCompressor(r, WithClock(func() time.Time { return now }))
	in := longSession(45)
	require.Greater(t, c.count(in), c.Status().Usable, "over the usable window")

	compress := func(opts ...CompressOption) *Result {
		t.Helper()
		res, err := c.Compress(context.Background(), in, opts...)
		require.NoError(t, err)
		require.True(t, res.Fallback)
		return res
	}
	compress()
	require.Equal(t, 1, r.Calls())
	start := now
	for i, wait := range []time.Duration{60 * time.Second, 300 * time.Second, 900 * time.Second, 900 * time.Second} {
		assert.Equal(t, now.Add(wait), c.Status().BackoffUntil, "failure %d", i+1)
		res := compress()
		assert.Contains(t, res.FallbackReason, "backing off")
		now = now.Add(wait - time.Second)
		compress()
		assert.Equal(t, i+1, r.Calls(), "no automatic compaction calls the summarizer during the backoff")
		now = now.Add(time.Second)
		compress()
		assert.Equal(t, i+2, r.Calls(), "the backoff over, the summarizer is called again")
	}
	compress(Force())
	assert.Equal(t, 6, r.Calls(), "a forced compaction calls the summarizer during a backoff")
	assert.Greater(t, now.Sub(start), 2000*time.Second)
}

// A report of a request no entry point counted is the least the next
// request takes, until a compaction makes it stale; what reports taught
// is forgotten on a model switch and a reset.
func TestAReportNobodyCountedAndWhatForgetsReports(t *testing.T) {
	c := New(WithModel("gpt-4o"), WithContextWindow(16_000))
	th := c.Status().Threshold
	msgs, next := sessionOf(c, th/2)
	c.UpdateUsage(Usage{PromptTokens: th + 1})
	assert.Equal(t, th+1, c.Preflight(msgs).Tokens, "at least the report")
	assert.Equal(t, th+1, c.Status().LastPromptTokens)
	res, err := c.Compress(context.Background(), msgs)
	require.NoError(t, err)
	require.Empty(t, res.Skipped)
	after := append(res.Messages, next...)
	assert.Equal(t, c.count(after), c.Preflight(after).Tokens, "a compaction made the report stale")

	for name, forget := range map[string]func(c *Compressor){
		"SwitchModel":    func(c *Compressor) { c.SwitchModel("gpt-4o", 16_000) },
		"OnSessionReset": func(c *Compressor) { c.OnSessionReset("s") },
	} {
		c := New(WithModel("gpt-4o"), WithContextWindow(16_000))
		n := c.Preflight(msgs).Tokens
		c.UpdateUsage(Usage{PromptTokens: n + 3_000})
		require.Equal(t, n+3_000, c.Preflight(msgs).Tokens)
		forget(c)
		assert.Equal(t, n, c.Preflight(msgs).Tokens, name)
	}
}

// No pause lets a request over the usable window go out as it is,
// counting the tool definitions it carries.
func TestAPauseNeverHoldsARequestTheToolsTakeOverTheWindow(t *testing.T) {
	c := newTestCompressor(&recorder{}, WithStrikeLimit(1))
	_, err := c.Compress(context.Background(), overThreshold(), Force())
	require.NoError(t, err)
	c.ShouldCompress(c.threshold() + 1)
	c.UpdateUsage(Usage{PromptTokens: c.threshold() + 1})
	require.True(t, c.Status().Paused)

	in := overThreshold()
	tools := []openai.Tool{bigTool(300)}
	usable := c.Status().Usable
	require.LessOrEqual(t, c.count(in), usable)
	require.Greater(t, c.count(in)+tokens.CountTools(c.Counter(), tools), usable)
	_, err = c.Compress(context.Background(), in)
	require.ErrorIs(t, err, ErrPaused, "the messages alone fit")
	res, err := c.Compress(context.Background(), in, WithTools(tools))
	require.NoError(t, err, "with the tools the request is over the window")
	assert.Empty(t, res.Skipped)
}

// A report of a request that was in flight while a compaction ran (sent,
// Usage.At, before the compaction committed) describes the history the
// compaction replaced: over the threshold, it is no strike, so two of them
// never pause automatic compaction; it is billed; it says what counting
// misses only when a check counted that request before it was sent (a
// Compress that is not forced counts its own input). The first report of
// a request sent after a compaction judges it, as documented: over the
// threshold, a strike.
func TestAReportSentBeforeTheCompactionCommittedIsNoStrike(t *testing.T) {
	ctx := context.Background()
	now := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	c := New(WithModel("gpt-4o"), WithContextWindow(16_000), WithClock(func() time.Time { return now }))
	th := c.Status().Threshold
	msgs, next := sessionOf(c, th+th/10)
	// compact checks msgs (the request sent), lets the model think while
	// Compress runs, and returns when the request was sent and the
	// history after the compaction.
	compact := func(opts ...CompressOption) (time.Time, []Message) {
		require.True(t, c.ShouldCompressMessages(msgs), "over the threshold")
		sent := now
		now = now.Add(10 * time.Second)
		res, err := c.Compress(ctx, msgs, opts...)
		require.NoError(t, err)
		require.Empty(t, res.Skipped)
		return sent, append(res.Messages, next...)
	}
	for round, opts := range [][]CompressOption{nil, {Force()}} {
		sent, after := compact(opts...)
		c.UpdateUsage(Usage{PromptTokens: c.count(msgs) + 200, At: sent})
		st := c.Status()
		assert.Zero(t, st.Strikes, "round %d: the report describes the history before the compaction", round)
		assert.False(t, st.Paused, "round %d", round)
		assert.Less(t, st.LastPromptTokens, th, "round %d: the last size seen is the compacted request's", round)
		assert.Equal(t, round+1, st.Cost.Requests, "round %d: billed", round)
		want := c.count(after) // Compress counted its own input after the check
		if len(opts) > 0 {
			want += 200 // a forced one did not: compared with the check of its request
		}
		assert.Equal(t, want, c.Preflight(after).Tokens, "round %d: what counting misses", round)
		for msgs = after; c.count(msgs) < th+th/10; {
			msgs = append(msgs, user("and the next question, with its details spelled out at length"),
				asst("an answer at similar length, covering each detail"))
		}
	}

	sent, _ := compact()
	c.UpdateUsage(Usage{PromptTokens: th + 100, At: sent.Add(10 * time.Second)})
	assert.Equal(t, 1, c.Status().Strikes, "a request sent as the compaction committed, over the threshold: a strike")
}
