package compact

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"unicode"

	"github.com/contextkit/compact/internal/msg"
	"github.com/contextkit/compact/internal/msgtest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// exchanges is a conversation of n exchanges, each a user turn, a tool
// round with a long output and an answer: four messages after the system
// prompt.
func exchanges(n int) []Message {
	msgs := []Message{sys("You are a coding agent.")}
	for i := 0; i < n; i++ {
		id := fmt.Sprintf("c%d", i)
		msgs = append(msgs, user(fmt.Sprintf("request %d", i)), call(fmt.Sprintf("step %d", i), id, "bash"),
			result(id, strings.Repeat(fmt.Sprintf("line %d of output\n", i), 20)), asst(fmt.Sprintf("answer %d", i)))
	}
	return msgs
}

// plainEngine hides the Compressor's range ability, so the partial
// functions take the path every other engine takes.
type plainEngine struct{ ContextEngine }

// engineFunc is an engine whose Compress is a function, to play engines
// that break their contract.
type engineFunc func(msgs []Message, o CompressOptions) (*Result, error)

func (f engineFunc) Name() string                        { return "scripted" }
func (f engineFunc) UpdateUsage(Usage)                   {}
func (f engineFunc) ShouldCompress(int) bool             { return true }
func (f engineFunc) HasContentToCompress([]Message) bool { return true }
func (f engineFunc) Status() Status                      { return Status{Engine: "scripted"} }
func (f engineFunc) Compress(_ context.Context, msgs []Message, opts ...CompressOption) (*Result, error) {
	return f(msgs, ApplyCompressOptions(opts...))
}

func TestCompressHereFoldsExactlyTheHead(t *testing.T) {
	r := &recorder{}
	c := newTestCompressor(r)
	in := exchanges(6)
	before := Clone(in)
	res, err := CompressHere(context.Background(), c, in, 2)
	require.NoError(t, err)
	out := res.Messages

	tail := in[len(in)-8:]
	assert.Equal(t, tail[1:], out[len(out)-7:], "the last two exchanges, byte-identical")
	_, own, _ := msg.SplitMerged(out[1])
	assert.Equal(t, tail[0], own, "their first with the summary merged in front of it")
	assert.Equal(t, "s "+roles(tail), roles(out), "system prompt, summary and tail (WithUserFirst)")
	assert.True(t, reflect.DeepEqual(before, in), "input unchanged")
	require.NoError(t, Validate(out))
	assert.Equal(t, in[1:len(in)-8], r.Last().Turns, "the summarizer saw the whole head")
	assert.Equal(t, Result{
		MessagesBefore: len(in), MessagesAfter: len(out),
		TokensBefore: c.count(in), TokensAfter: c.count(out),
		SummarizedFrom: 1, SummarizedTo: len(in) - 9, SummaryIndex: 1, Lifted: -1,
	}, Result{
		MessagesBefore: res.MessagesBefore, MessagesAfter: res.MessagesAfter,
		TokensBefore: res.TokensBefore, TokensAfter: res.TokensAfter,
		SummarizedFrom: res.SummarizedFrom, SummarizedTo: res.SummarizedTo, SummaryIndex: res.SummaryIndex,
		Lifted: res.Lifted,
	}, "the Result describes the whole history")
	assert.True(t, IsSummary(out[res.SummaryIndex]))
}

// Any other engine compacts the head by its own rules (the Compressor's
// head and tail protection apply inside it), so a longer history is needed
// for it to find something to fold.
func TestCompressHereThroughAnyEngine(t *testing.T) {
	in := exchanges(20)
	for _, keep := range []int{1, 2, 3} {
		t.Run(fmt.Sprint(keep), func(t *testing.T) {
			c := newTestCompressor(&recorder{})
			res, err := CompressHere(context.Background(), plainEngine{c}, in, keep)
			require.NoError(t, err)
			out := res.Messages
			tail := in[len(in)-4*keep:]
			assert.Equal(t, tail, out[len(out)-len(tail):], "the last exchanges, byte-identical")
			require.NoError(t, Validate(out))
			require.NoError(t, checkContracts(in, res))
			assert.Equal(t, len(in), res.MessagesBefore)
			assert.Equal(t, len(out), res.MessagesAfter)
			// The engine saw the head and the tail's first message; the
			// saving is its own, the totals cover the whole history.
			assert.Less(t, res.SummarizedTo, len(in)-len(tail))
			assert.Equal(t, c.count(in)-c.count(out), res.TokensBefore-res.TokensAfter)
			assert.Greater(t, res.TokensBefore, c.count(in[:len(in)-len(tail)+1]))
		})
	}
}

func TestCompressHereIncomingAndFocus(t *testing.T) {
	in := exchanges(20)
	incoming := user("and now the docs")
	for name, engine := range map[string]func(*Compressor) ContextEngine{
		"range":   func(c *Compressor) ContextEngine { return c },
		"generic": func(c *Compressor) ContextEngine { return plainEngine{c} },
	} {
		t.Run(name, func(t *testing.T) {
			r := &recorder{}
			res, err := CompressHere(context.Background(), engine(newTestCompressor(r)), in, 1,
				WithIncoming(incoming), WithFocus("the parser"))
			require.NoError(t, err)
			out := res.Messages
			assert.Equal(t, incoming, out[len(out)-1], "the incoming message comes last")
			assert.Equal(t, in[len(in)-3:], out[len(out)-4:len(out)-1], "after the kept exchange")
			assert.True(t, containsEqual(out[len(out)-5:len(out)-4], in[len(in)-4]), "the kept exchange opens it, maybe sharing the summary's message")
			assert.Equal(t, "the parser", r.Last().Focus)
			require.NoError(t, Validate(out))
		})
	}
}

func TestCompressHereErrors(t *testing.T) {
	c := newTestCompressor(&recorder{}, WithRepair(true))
	_, err := CompressHere(context.Background(), c, exchanges(2), 2)
	assert.ErrorIs(t, err, ErrNothingToCompress, "keeping every exchange")

	broken := append(exchanges(4), result("c9", "stray"))
	_, err = CompressHere(context.Background(), c, broken, 1)
	assert.ErrorIs(t, err, ErrInvalidHistory, "never repaired, even with WithRepair")
	assert.ErrorContains(t, err, "message 17")

	r := &recorder{Err: errors.New("down")}
	_, err = CompressHere(context.Background(), newTestCompressor(r, WithFailurePolicy(AbortOnFailure)), exchanges(4), 1)
	assert.ErrorIs(t, err, ErrSummarizer, "the engine's errors come through")
}

// An engine that puts the incoming message anywhere but last cannot be
// rejoined; one that leaves a user turn before it is rejoined through
// Join, so the history is still valid.
func TestCompressHereWithAMisbehavingEngine(t *testing.T) {
	in := exchanges(4)
	summary := summ(RoleUser, "folded")
	lost := engineFunc(func(msgs []Message, o CompressOptions) (*Result, error) {
		return &Result{Messages: []Message{msgs[0], summary}, SummarizedFrom: 1, SummarizedTo: len(msgs) - 1}, nil
	})
	_, err := CompressHere(context.Background(), lost, in, 1)
	assert.ErrorIs(t, err, ErrInvalidHistory)
	assert.ErrorContains(t, err, `engine "scripted"`)

	silent := engineFunc(func([]Message, CompressOptions) (*Result, error) { return nil, nil })
	_, err = CompressHere(context.Background(), silent, in, 1)
	assert.ErrorContains(t, err, "no result and no error")

	clumsy := engineFunc(func(msgs []Message, o CompressOptions) (*Result, error) {
		return &Result{Messages: []Message{msgs[0], summary, *o.Incoming}, SummarizedFrom: 1,
			SummarizedTo: len(msgs) - 1, SummaryIndex: 1, TokensBefore: 100, TokensAfter: 10}, nil
	})
	res, err := CompressHere(context.Background(), clumsy, in, 1)
	require.NoError(t, err)
	require.NoError(t, Validate(res.Messages))
	assert.Equal(t, "s u a t a", roles(res.Messages), "the seam guard merged the user turns")
	assert.Equal(t, in[len(in)-3:], res.Messages[2:], "the rest of the tail is intact")
}

func TestCompressBefore(t *testing.T) {
	in := exchanges(6)
	c := newTestCompressor(&recorder{})
	// Message 15 is a tool result: the boundary moves back to its call.
	res, err := CompressBefore(context.Background(), c, in, 15)
	require.NoError(t, err)
	assert.Equal(t, in[14:], res.Messages[2:])
	assert.Equal(t, 13, res.SummarizedTo)

	_, err = CompressBefore(context.Background(), c, in, len(in))
	assert.ErrorIs(t, err, ErrInvalidBoundary)
	_, err = CompressBefore(context.Background(), c, in, 1)
	assert.ErrorIs(t, err, ErrNothingToCompress)

	long := exchanges(20)
	res, err = CompressBefore(context.Background(), plainEngine{c}, long, 63)
	require.NoError(t, err)
	assert.Equal(t, long[62:], res.Messages[len(res.Messages)-len(long[62:]):])
}

func TestCompressFrom(t *testing.T) {
	in := exchanges(6)
	t.Run("the latest user message comes back after the summary", func(t *testing.T) {
		r := &recorder{}
		// Message 8 is the answer that closes the second exchange.
		res, err := CompressFrom(context.Background(), newTestCompressor(r), in, 8)
		require.NoError(t, err)
		out := res.Messages
		assert.Equal(t, in[1:8], out[1:8], "the messages before the index, verbatim")
		assert.True(t, IsSummary(out[8]))
		assert.Equal(t, 8, res.SummaryIndex)
		assert.Equal(t, in[len(in)-4], out[9], "the latest user message, verbatim")
		assert.Len(t, out, 10)
		assert.Equal(t, [2]int{8, len(in) - 1}, [2]int{res.SummarizedFrom, res.SummarizedTo})
		assert.Equal(t, len(in)-4, res.Lifted)
		assert.Equal(t, len(in), res.MessagesBefore)
		require.NoError(t, Validate(out))
	})
	t.Run("from a user turn, the answer before it is folded too", func(t *testing.T) {
		// The summary cannot sit between an answer and the lifted user
		// message in either role, so the range starts one message earlier.
		res, err := CompressFrom(context.Background(), newTestCompressor(&recorder{}), in, 9)
		require.NoError(t, err)
		assert.Equal(t, 8, res.SummarizedFrom)
		assert.Equal(t, "s u a t a u a t a u", roles(res.Messages))
	})
	t.Run("a pending group at the end stays", func(t *testing.T) {
		pending := append(Clone(in), call("running", "p1", "bash", "p2", "read"), result("p1", "ok"))
		res, err := CompressFrom(context.Background(), newTestCompressor(&recorder{}), pending, 5)
		require.NoError(t, err)
		out := res.Messages
		assert.Equal(t, pending[len(pending)-2:], out[len(out)-2:])
		assert.Equal(t, in[len(in)-4], out[len(out)-3], "the latest user message before it")
		require.NoError(t, Validate(out))
	})
	t.Run("an index on a tool result moves back to its call", func(t *testing.T) {
		res, err := CompressFrom(context.Background(), newTestCompressor(&recorder{}), in, 7)
		require.NoError(t, err)
		assert.Equal(t, 6, res.SummarizedFrom)
	})
	t.Run("the range grows back where no role fits", func(t *testing.T) {
		long := strings.Repeat("a long explanation ", 60)
		h := []Message{sys("s"), user("u1"), asst("a1 " + long), user("u2"), asst("a2 " + long),
			asst("a3 " + long), call("", "p1", "bash")}
		res, err := CompressFrom(context.Background(), newTestCompressor(&recorder{}), h, 4)
		require.NoError(t, err)
		assert.Equal(t, 2, res.SummarizedFrom)
		assert.Equal(t, "s u a u a", roles(res.Messages))
		assert.Equal(t, h[1], res.Messages[1])
		assert.Equal(t, h[3], res.Messages[3], "the latest user message, lifted")
		require.NoError(t, Validate(res.Messages))
	})
	t.Run("an earlier summary before the index stays beside the new one", func(t *testing.T) {
		h := append([]Message{sys("s"), summ(RoleAssistant, "old work")}, in[1:]...)
		res, err := CompressFrom(context.Background(), newTestCompressor(&recorder{}), h, 10)
		require.NoError(t, err)
		assert.Equal(t, 2, countSummaries(res.Messages))
		again, err := newTestCompressor(&recorder{}).Compress(context.Background(), res.Messages, Force())
		require.NoError(t, err)
		assert.Equal(t, 1, countSummaries(again.Messages), "the next compaction folds them into one")
	})
	t.Run("errors", func(t *testing.T) {
		c := newTestCompressor(&recorder{})
		_, err := CompressFrom(context.Background(), plainEngine{c}, in, 5)
		assert.ErrorIs(t, err, errors.ErrUnsupported)
		_, err = CompressFrom(context.Background(), c, in, -1)
		assert.ErrorIs(t, err, ErrInvalidBoundary)
		_, err = CompressFrom(context.Background(), c, in, len(in))
		assert.ErrorIs(t, err, ErrInvalidBoundary)
		_, err = CompressFrom(context.Background(), c, in, len(in)-1)
		assert.ErrorIs(t, err, ErrNoSavings, "a summary is longer than one short answer")
		pending := append(Clone(in), call("running", "p1", "bash"))
		_, err = CompressFrom(context.Background(), c, pending, len(pending)-1)
		assert.ErrorIs(t, err, ErrNothingToCompress, "only the pending group")
	})
}

func TestCompressRangeErrors(t *testing.T) {
	in := exchanges(3) // s u a t a u a t a u a t a
	c := newTestCompressor(&recorder{}, WithRepair(true))
	tests := []struct {
		name     string
		from, to int
		msgs     []Message
		want     error
	}{
		{"start before the history", -1, 5, in, ErrInvalidBoundary},
		{"end past the history", 1, 14, in, ErrInvalidBoundary},
		{"start after end", 5, 4, in, ErrInvalidBoundary},
		{"start on a tool result", 3, 9, in, ErrInvalidBoundary},
		{"end before a tool result", 1, 3, in, ErrInvalidBoundary},
		{"empty range", 5, 5, in, ErrNothingToCompress},
		{"only system messages", 0, 1, in, ErrNothingToCompress},
		{"broken input is never repaired", 1, 5, append(Clone(in), result("c9", "x")), ErrInvalidHistory},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := c.CompressRange(context.Background(), tt.msgs, tt.from, tt.to, Force())
			assert.ErrorIs(t, err, tt.want)
			assert.Nil(t, res)
		})
	}
}

func TestRejoinSeams(t *testing.T) {
	calls := call("", "c1", "bash", "c2", "read")
	tests := []struct {
		name       string
		head, tail []Message
		want       string // roles after rejoining
	}{
		{"alternating", []Message{sys("s"), summ(RoleAssistant, "x")}, []Message{user("u"), asst("a")}, "s a u a"},
		{"user-user merges", []Message{sys("s"), user("lifted")}, []Message{user("u"), asst("a")}, "s u a"},
		{"assistant-assistant merges", []Message{user("u"), asst("x")}, []Message{asst("a"), user("v")}, "u a u"},
		{"an assistant that makes calls is not merged", []Message{user("u"), call("", "c1", "bash"), result("c1", "x")},
			[]Message{asst("a")}, "u a t a"},
		{"tool-tool stays", []Message{user("u"), calls, result("c1", "x")}, []Message{result("c2", "y"), asst("a")}, "u a t t a"},
		{"parts meet a string", []Message{partsMsg(RoleUser, "p", "img:https://x/y.png")}, []Message{user("u"), asst("a")}, "u a"},
		{"a string meets parts", []Message{user("u")}, []Message{partsMsg(RoleUser, "p", "img:https://x/y.png"), asst("a")}, "u a"},
		{"empty head", nil, []Message{user("u"), asst("a")}, "u a"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// The engine echoes the tail's first message as the incoming one.
			compacted := append(Clone(tt.head), msg.CloneMessage(tt.tail[0]))
			before := Clone(tt.tail)
			out, err := rejoin(compacted, tt.tail)
			require.NoError(t, err)
			assert.Equal(t, tt.want, roles(out))
			require.NoError(t, Validate(out))
			assert.Zero(t, msgtest.Clashes(out), "no turns of one role in a row")
			assert.Equal(t, words(append(Clone(tt.head), tt.tail...)), words(out), "nothing lost, in order")
			assert.Equal(t, before, tt.tail, "tail unchanged")
			if len(tt.head) == 0 || !msg.Clashes(tt.head[len(tt.head)-1], tt.tail[0]) {
				assert.Equal(t, tt.tail, out[len(out)-len(tt.tail):], "a seam that alternates keeps the tail verbatim")
			}
		})
	}
	t.Run("the incoming message must come back last", func(t *testing.T) {
		_, err := rejoin([]Message{sys("s"), user("something else")}, []Message{user("u")})
		assert.ErrorIs(t, err, ErrInvalidHistory)
		_, err = rejoin(nil, []Message{user("u")})
		assert.ErrorIs(t, err, ErrInvalidHistory)
	})
}

// words are the words of msgs' texts in order, whatever separates them.
func words(msgs []Message) []string {
	return strings.FieldsFunc(msgtest.JoinedText(msgs), func(r rune) bool { return r == 0 || unicode.IsSpace(r) })
}

func TestPendingStart(t *testing.T) {
	tests := []struct {
		name string
		msgs []Message
		want int
	}{
		{"empty", nil, 0},
		{"no calls", []Message{user("u"), asst("a")}, 2},
		{"an answered group", []Message{user("u"), call("", "c1", "bash"), result("c1", "x")}, 3},
		{"an unanswered group", []Message{user("u"), call("", "c1", "bash")}, 1},
		{"a partly answered group", []Message{user("u"), call("", "c1", "bash", "c2", "read"), result("c2", "x")}, 1},
		{"answered, then a user turn", []Message{call("", "c1", "bash"), result("c1", "x"), user("u")}, 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, pendingStart(tt.msgs))
		})
	}
}
