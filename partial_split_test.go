package compact

import (
	"errors"
	"reflect"
	"testing"

	"github.com/contextkit/compact/internal/msg"
	"github.com/contextkit/compact/internal/msgtest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// summ is a summary message of its own.
func summ(role, body string) Message { return Message{Role: role, Content: PrefixSummary(body)} }

// mergedUser is a real user message with a summary merged in front of it.
func mergedUser(summary, text string) Message {
	return user(msg.MergedSummaryText(summary) + msg.MergedSummarySep + text)
}

// checkSplit asserts what every split promises: head then tail is the
// input and appending to either never writes into the input. A split by
// exchanges also starts its tail on a real user turn and keeps no summary
// in it.
func checkSplit(t *testing.T, in, head, tail []Message, byExchanges bool) {
	t.Helper()
	require.True(t, reflect.DeepEqual(in, append(Clone(head), tail...)), "head + tail is the input")
	if byExchanges {
		assert.True(t, isPlainUser(tail[0]), "tail starts on a real user turn: %s", roles(tail))
		for _, m := range tail {
			assert.False(t, IsSummary(m), "the tail keeps no summary")
		}
	}
	before := Clone(in)
	_ = append(head, user("appended to head"))
	_ = append(tail, user("appended to tail"))
	assert.True(t, reflect.DeepEqual(before, in), "appending to head or tail leaves the input alone")
}

func TestSplitExchanges(t *testing.T) {
	chat := []Message{sys("s"), user("u1"), asst("a1"), user("u2"), asst("a2"), user("u3"), asst("a3")}
	agent := []Message{sys("s"), user("task"), call("", "c1", "bash"), result("c1", "x"), asst("done"),
		user("more"), call("", "c2", "bash", "c3", "read"), result("c2", "y"), result("c3", "z"), asst("ok")}
	tests := []struct {
		name    string
		in      []Message
		keep    int
		at      int  // index of the tail's first message
		nothing bool // ErrNothingToCompress
	}{
		{"keep one exchange", chat, 1, 5, false},
		{"keep two exchanges", chat, 2, 3, false},
		{"zero keeps the default of two", chat, 0, 3, false},
		{"a negative keep is the default", chat, -4, 3, false},
		{"keeping every exchange leaves nothing", chat, 3, 0, true},
		{"keeping more than there is leaves nothing", chat, 50, 0, true},
		{"tool rounds belong to their exchange", agent, 1, 5, false},
		{"no system prompt", chat[1:], 1, 4, false},
		{"an answered group at the end stays in the tail", agent[:9], 1, 5, false},
		{"a pending group at the end stays in the tail", agent[:7], 1, 5, false},
		{"user turns in a row open one exchange",
			[]Message{sys("s"), user("u1"), asst("a1"), user("u2"), user("u2 again"), asst("a2")}, 1, 3, false},
		{"a user turn after a summary opens an exchange",
			[]Message{sys("s"), user("u1"), asst("a1"), summ(RoleUser, "old"), user("u2"), asst("a2")}, 1, 4, false},
		{"a summary before the tail leaves only a summary to fold",
			[]Message{sys("s"), summ(RoleAssistant, "old"), user("u2"), asst("a2")}, 1, 0, true},
		{"exchanges are counted after the last summary",
			[]Message{sys("s"), user("u1"), asst("a1"), summ(RoleAssistant, "old"), user("u2"), asst("a2"), user("u3"), asst("a3")}, 5, 4, false},
		{"a merged summary does not open an exchange",
			[]Message{sys("s"), mergedUser("old", "u1"), asst("a1"), user("u2"), asst("a2")}, 5, 3, false},
		{"no user turn after the last summary",
			[]Message{sys("s"), user("u1"), asst("a1"), summ(RoleUser, "old"), asst("a2")}, 1, 0, true},
		{"no user turn at all", []Message{sys("s"), asst("hello")}, 1, 0, true},
		{"empty history", nil, 1, 0, true},
		{"an image-only user turn is a real one",
			[]Message{user("u1"), asst("a1"), partsMsg(RoleUser, "img:https://x/y.png"), asst("a2")}, 1, 2, false},
		{"a system message between exchanges stays in the head",
			[]Message{sys("s"), user("u1"), asst("a1"), sys("now in plan mode"), user("u2"), asst("a2")}, 1, 4, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			head, tail, err := SplitExchanges(tt.in, tt.keep)
			if tt.nothing {
				assert.ErrorIs(t, err, ErrNothingToCompress)
				assert.Nil(t, head)
				assert.Nil(t, tail)
				return
			}
			require.NoError(t, err)
			assert.Len(t, head, tt.at, "tail starts at %d", tt.at)
			checkSplit(t, tt.in, head, tail, true)
		})
	}
}

func TestSplitAt(t *testing.T) {
	in := []Message{
		sys("s"),                             // 0
		user("u1"),                           // 1
		call("", "c1", "bash", "c2", "read"), // 2
		result("c1", "x"),                    // 3
		result("c2", "y"),                    // 4
		asst("a1"),                           // 5
		asst("a1 continued"),                 // 6
		user("u2"),                           // 7
		user("u2 again"),                     // 8
		summ(RoleAssistant, "old"),           // 9
		user("u3"),                           // 10
		asst("a3"),                           // 11
	}
	tests := []struct {
		name  string
		index int
		at    int   // where the tail starts
		err   error // wanted error, if any
	}{
		{"a user turn", 7, 7, nil},
		{"an assistant turn with calls", 2, 2, nil},
		{"a tool result moves back to its call", 3, 2, nil},
		{"the second tool result moves back to its call", 4, 2, nil},
		{"the second of two assistant turns moves back", 6, 5, nil},
		{"the second of two user turns moves back", 8, 7, nil},
		{"a summary moves forward past itself", 9, 10, nil},
		{"the last message", 11, 11, nil},
		{"the first message after the system prompt leaves nothing", 1, 0, ErrNothingToCompress},
		{"the system prompt leaves nothing", 0, 0, ErrNothingToCompress},
		{"past the end", 12, 0, ErrInvalidBoundary},
		{"negative", -1, 0, ErrInvalidBoundary},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			head, tail, err := SplitAt(in, tt.index)
			if tt.err != nil {
				assert.ErrorIs(t, err, tt.err)
				return
			}
			require.NoError(t, err)
			assert.Len(t, head, tt.at)
			checkSplit(t, in, head, tail, false)
		})
	}

	t.Run("an error names the index", func(t *testing.T) {
		_, _, err := SplitAt(in, 40)
		assert.EqualError(t, err, "compact: invalid boundary: message 40 is out of range: the history has 12 messages")
	})
	t.Run("nothing but summaries after the index", func(t *testing.T) {
		_, _, err := SplitAt([]Message{user("u"), asst("a"), summ(RoleUser, "old")}, 2)
		assert.ErrorIs(t, err, ErrInvalidBoundary)
	})
	t.Run("a summary after the system prompt is nothing to fold", func(t *testing.T) {
		_, _, err := SplitAt([]Message{sys("s"), summ(RoleAssistant, "old"), user("u"), asst("a")}, 2)
		assert.ErrorIs(t, err, ErrNothingToCompress)
	})
	t.Run("a tool result never moves back onto a summary", func(t *testing.T) {
		// Invalid input (a result after a summary), but the split still
		// keeps head + tail = input and does not loop.
		odd := []Message{user("u"), summ(RoleAssistant, "old"), result("c1", "x")}
		head, tail, err := SplitAt(odd, 2)
		require.NoError(t, err)
		assert.Equal(t, odd, append(Clone(head), tail...))
	})
}

// FuzzSplit: on random histories, both splits either report why they
// cannot split or return a head and tail that make up the input, with a
// tail that starts where it should and holds no summary.
func FuzzSplit(f *testing.F) {
	msgtest.Seeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		data = data[:min(len(data), maxFuzzMessages)]
		in := randomHistory(data)
		if len(in) == 0 {
			return
		}
		before := Clone(in)
		keep := int(data[0] % 5)
		head, tail, err := SplitExchanges(in, keep)
		if err == nil {
			require.True(t, reflect.DeepEqual(in, append(Clone(head), tail...)) && isPlainUser(tail[0]) && msg.HasFoldable(head),
				"SplitExchanges(%d) at %d: %s", keep, len(head), roles(in))
		} else {
			require.ErrorIs(t, err, ErrNothingToCompress, "unexpected error")
		}
		index := int(data[len(data)-1]) % len(in)
		head, tail, err = SplitAt(in, index)
		if err == nil {
			require.True(t, reflect.DeepEqual(in, append(Clone(head), tail...)) && msg.HasFoldable(head) && !msg.IsStandaloneSummary(tail[0]),
				"SplitAt(%d) at %d: %s", index, len(head), roles(in))
		} else {
			require.True(t, errors.Is(err, ErrNothingToCompress) || errors.Is(err, ErrInvalidBoundary), "unexpected error: %v", err)
		}
		require.True(t, reflect.DeepEqual(before, in), "input modified")
	})
}

// isPlainUser reports whether m is a real user turn with no summary in it.
func isPlainUser(m Message) bool { return IsRealUser(m) && !IsSummary(m) }
