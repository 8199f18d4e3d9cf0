package msgtest

import (
	"bytes"
	"encoding/json"
	"errors"
	"slices"
	"testing"

	"github.com/contextkit/compact/internal/msg"
	openai "github.com/sashabaranov/go-openai"
)

// SplitOps splits the input of a fuzz target whose body is JSON at its
// first NUL byte (JSON never holds a raw one): the body before it, and
// after it operations that build what JSON cannot express or a fuzzer
// seldom builds (typed nil parts, ids used twice). An input without a NUL
// is all body, so a corpus written before a target took operations stays
// valid.
func SplitOps(data []byte) (body, ops []byte) {
	body, ops, _ = bytes.Cut(data, []byte{0})
	return body, ops
}

// WithOps is fuzz input for SplitOps: body, a NUL, then ops.
func WithOps(body string, ops ...byte) []byte {
	return append(append([]byte(body), 0), ops...)
}

// Operations of MutateMessages (the first byte of each pair, modulo
// opKinds).
const (
	// OpBothContents gives a message both Content and MultiContent, which
	// go-openai's JSON decoding never does.
	OpBothContents = iota
	// OpReuseID gives the first call of an assistant turn the id of the
	// first call of an earlier turn, and the results that answer it too.
	OpReuseID
	opKinds
)

// MutateMessages applies ops to a copy of msgs (msgs is not modified): each
// op is two bytes, what (OpBothContents, OpReuseID) and where (a message
// index, modulo the history's length).
func MutateMessages(msgs []Message, ops []byte) []Message {
	if len(ops) < 2 || len(msgs) == 0 {
		return msgs
	}
	out := msg.Clone(msgs)
	for ; len(ops) >= 2; ops = ops[2:] {
		k := int(ops[1]) % len(out)
		switch ops[0] % opKinds {
		case OpBothContents:
			m := &out[k]
			switch {
			case m.Content == "":
				m.Content = "extra"
			case len(m.MultiContent) == 0:
				m.MultiContent = []openai.ChatMessagePart{{Type: openai.ChatMessagePartTypeText, Text: "also"}}
			}
		case OpReuseID:
			reuseCallID(out, k)
		}
	}
	return out
}

// reuseCallID renames, in place, the first call of the first tool-calling
// assistant turn at or after message k to the id of the first call of an
// earlier turn, with the results that answer it, so that the history stays
// as valid as it was and an id repeats.
func reuseCallID(msgs []Message, k int) {
	first := ""
	for i, m := range msgs {
		if m.Role != msg.RoleAssistant || len(m.ToolCalls) == 0 {
			continue
		}
		if first == "" || i < k {
			if first == "" {
				first = m.ToolCalls[0].ID
			}
			continue
		}
		old := m.ToolCalls[0].ID
		if old == first || slices.ContainsFunc(m.ToolCalls, func(c openai.ToolCall) bool { return c.ID == first }) {
			return
		}
		m.ToolCalls[0].ID = first
		for j := i + 1; j < len(msgs) && msgs[j].Role == msg.RoleTool; j++ {
			if msgs[j].ToolCallID == old {
				msgs[j].ToolCallID = first
			}
		}
		return
	}
}

// FuzzMessages is the OpenAI-style history a fuzz input describes: a JSON
// body, then, after a NUL, operations (see MutateMessages). ok is false
// when the body does not decode.
func FuzzMessages(data []byte) (msgs []Message, ok bool) {
	body, ops := SplitOps(data)
	if json.Unmarshal(body, &msgs) != nil {
		return nil, false
	}
	return MutateMessages(msgs, ops), true
}

// reusedIDs is a history whose agent numbers its calls afresh each turn.
const reusedIDs = `[{"role":"user","content":"Find where the flags are parsed."},
{"role":"assistant","tool_calls":[{"id":"c1","type":"function","function":{"name":"search","arguments":"{\"q\":\"flags\"}"}}]},
{"role":"tool","tool_call_id":"c1","content":"flags.go:12"},
{"role":"user","content":"And the defaults?"},
{"role":"assistant","tool_calls":[{"id":"c1","type":"function","function":{"name":"search","arguments":"{\"q\":\"defaults\"}"}}]},
{"role":"tool","tool_call_id":"c1","content":"defaults.go:3"}]`

// FromMessagesSeeds adds to f issue 35's cases for the FromMessages
// targets: a message with both contents (built by operations), a call id
// used twice (in the body, and built), and a tool message that answers no
// call.
func FromMessagesSeeds(f *testing.F) {
	two := `[{"role":"user","content":"a"},{"role":"assistant","tool_calls":[{"id":"x","type":"function","function":{"name":"f","arguments":"{}"}}]},` +
		`{"role":"tool","tool_call_id":"x","content":"r"},{"role":"user","content":"b"},` +
		`{"role":"assistant","tool_calls":[{"id":"y","type":"function","function":{"name":"f","arguments":"{}"}}]},{"role":"tool","tool_call_id":"y","content":"s"}]`
	f.Add(WithOps(`[{"role":"user","content":"AAA"}]`, OpBothContents, 0))
	f.Add(WithOps(two, OpBothContents, 2, OpReuseID, 3))
	f.Add([]byte(reusedIDs))
	f.Add([]byte(`[{"role":"user","content":"hi"},{"role":"tool","tool_call_id":"ghost"}]`))
}

// BothContents reports whether a message of msgs sets both Content and
// MultiContent.
func BothContents(msgs []Message) bool {
	return slices.ContainsFunc(msgs, func(m Message) bool { return m.Content != "" && m.MultiContent != nil })
}

// DecodeOps decodes the body of a fuzz input (see SplitOps) as JSON into a
// T and applies the input's operations to it with mutate. ok is false when
// the body does not decode.
func DecodeOps[T any](data []byte, mutate func(T, []byte) T) (v T, ok bool) {
	body, ops := SplitOps(data)
	if json.Unmarshal(body, &v) != nil {
		return v, false
	}
	return mutate(v, ops), true
}

// MustJSON is v as JSON, for a seed; it panics when v does not encode.
func MustJSON(v any) string {
	data, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(data)
}

// PartAt picks, from where, one part of a history of n messages whose
// message k has size(k) parts, counting parts over the whole history
// (modulo their number). ok is false when the history has no part.
func PartAt(n int, size func(k int) int, where int) (k, i int, ok bool) {
	total := 0
	for k := range n {
		total += size(k)
	}
	if total == 0 {
		return 0, 0, false
	}
	i = where % total
	for k = 0; i >= size(k); k++ {
		i -= size(k)
	}
	return k, i, true
}

// bothContentsText is the error text a FromMessages gives for
// BothContentsHistory, after its package's prefix.
const bothContentsText = ": message 2: user message sets both Content and MultiContent"

// BothContentsHistory is issue 35's case: its message 2 has both Content
// ("AAA") and MultiContent (a text part "BBB"), which go-openai refuses to
// send and compact.Validate refuses; a conversion would keep one text and
// drop the other.
func BothContentsHistory() []Message {
	return []Message{User("hi"), Asst("hello"),
		{Role: msg.RoleUser, Content: "AAA", MultiContent: []openai.ChatMessagePart{{Type: openai.ChatMessagePartTypeText, Text: "BBB"}}}}
}

// CheckBothContentsRefused fails tb unless err, what a FromMessages of
// package prefix returned for BothContentsHistory, wraps invalid (the
// caller's compact.ErrInvalidHistory) and names message 2 as
// compact.Validate does.
func CheckBothContentsRefused(tb testing.TB, err error, prefix string, invalid error) {
	tb.Helper()
	switch {
	case err == nil:
		tb.Fatal("a message with both contents converts: one text is kept and the other dropped without a word")
	case !errors.Is(err, invalid):
		tb.Fatalf("the error %q does not wrap %v", err, invalid)
	case err.Error() != prefix+bothContentsText:
		tb.Fatalf("the error is %q, want %q", err, prefix+bothContentsText)
	}
}
