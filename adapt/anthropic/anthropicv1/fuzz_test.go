package anthropicv1

import (
	"context"
	"encoding/json"
	"errors"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/contextkit/compact"
	"github.com/contextkit/compact/internal/msgtest"
	"github.com/stretchr/testify/require"
)

// fuzzSeeds adds to f the seeds every target on the SDK's types starts
// from: the fixture, and issue 35's cases as operations on it (blocks with
// no variant, a tool_use id used twice with fields to keep and content long
// enough to prune) and on the reused-id history.
func fuzzSeeds(f *testing.F) {
	f.Add([]byte(everyBlockJSON))
	f.Add(msgtest.WithOps(everyBlockJSON, opNullBlock, 3))
	f.Add(msgtest.WithOps(everyBlockJSON, opNullContent, 9))
	f.Add(msgtest.WithOps(everyBlockJSON, opReuseID, 4, opFields, 9, opLong, 9))
	f.Add(msgtest.WithOps(reusedIDJSON, opLong, 2, opFields, 5))
}

// fuzzHistory is the history a fuzz input describes: a request body, then,
// after a NUL, operations (see mutate). ok is false when the body does not
// decode.
func fuzzHistory(data []byte) (History, bool) {
	w, ok := msgtest.DecodeOps(data, func(w wire, ops []byte) wire { return wire(mutate(History(w), ops)) })
	return History(w), ok
}

// FuzzConvertRoundTrip feeds histories built from request bodies and
// operations (see mutate) through Convert and Restore: one with a block
// that encodes as null fails Convert and Validate; any other either
// converts, and comes back as the same value and the same bytes, or fails
// with ErrInvalidHistory; nothing panics.
func FuzzConvertRoundTrip(f *testing.F) {
	fuzzSeeds(f)
	f.Add([]byte(`{"messages":[{"role":"user","content":[{"type":"text","text":"hi"}]}]}`))
	f.Add([]byte(`{"messages":[{"role":"assistant","content":[]},{"role":"user"}]}`))
	f.Add([]byte(`{"system":[{"type":"text","text":"s"}],"messages":[{"role":"user","content":[{"type":"tool_result","tool_use_id":"x"}]}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		h, ok := fuzzHistory(data)
		if !ok {
			return
		}
		before, err := json.Marshal(wire(h))
		if err != nil {
			return // the SDK cannot encode it either
		}
		conv, err := Convert(h)
		if nullIn(h) {
			require.ErrorIs(t, err, compact.ErrInvalidHistory, "Convert takes a block that encodes as null")
			require.ErrorIs(t, Validate(h), ErrShape, "Validate passes a block that encodes as null")
		}
		if err != nil {
			require.ErrorIs(t, err, compact.ErrInvalidHistory, "Convert")
			return
		}
		_ = compact.Validate(conv.Messages)
		got, err := conv.Restore(conv.Messages)
		require.NoError(t, err, "Restore of the conversion itself")
		after, err := json.Marshal(wire(got))
		require.NoError(t, err)
		require.True(t, string(before) == string(after), "round trip changed the body: %s", msgtest.Difference(before, after))
		require.True(t, reflect.DeepEqual(h, got), "round trip gave back a different value with the same encoding")
	})
}

// FuzzCompress compacts every history with the API's shape, or whose only
// fault is a tool_use id used twice (see FuzzConvertRoundTrip for what the
// input builds), through a Compressor at a window that folds and one that
// prunes: the output validates on both sides (the API's side when the
// input did), its last turn is the input's, and every tool_result in it
// has the id, is_error and cache_control of an input result of its own,
// whether or not the engine changed it and whether or not its id repeats.
func FuzzCompress(f *testing.F) {
	fuzzSeeds(f)
	f.Add([]byte(`{"messages":[{"role":"user","content":[{"type":"text","text":"a"}]},{"role":"assistant","content":[{"type":"text","text":"b"}]},{"role":"user","content":[{"type":"text","text":"c"}]}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		h, ok := fuzzHistory(data)
		if !ok {
			return
		}
		valid := Validate(h) == nil
		var se *ShapeError
		if !valid && !(errors.As(Validate(h), &se) && se.Rule == RuleDuplicateID) {
			return
		}
		keys := resultKeys(h)
		for _, window := range []int{400, 8000} {
			out, res, err := Compress(context.Background(), compact.New(compact.WithContextWindow(window)), h, compact.Force())
			if err != nil {
				require.False(t, valid && errors.Is(err, ErrShape), "a valid history compacted into an invalid one: %v", err)
				continue
			}
			require.NoError(t, compact.Validate(res.Messages), "engine output")
			if valid {
				require.NoError(t, Validate(out), "restored output")
			}
			require.True(t, reflect.DeepEqual(h.Messages[len(h.Messages)-1], out.Messages[len(out.Messages)-1]) || sharesLast(t, h, out), "the last turn changed")
			left := maps.Clone(keys)
			for k, m := range out.Messages {
				for i, b := range mutableBlocks(m) {
					if r := b.OfToolResult; r != nil {
						require.Positive(t, left[resultKey(r)], "turn %d, block %d: tool_result %q is no input result's id and fields", k, i, r.ToolUseID)
						left[resultKey(r)]--
					}
				}
			}
		}
	})
}

// FuzzFromMessages feeds OpenAI-style histories (see msgtest.FuzzMessages:
// both contents and reused ids too) to FromMessages: nothing panics; a
// message with both contents is refused; a history compact accepts, with
// no system message after a turn and no half-answered call group at its
// end, becomes one the Messages API accepts; and converting the result and
// back changes nothing.
func FuzzFromMessages(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join(ownTranscriptDir, "*.json"))
	for _, file := range files {
		if data, err := os.ReadFile(file); err == nil {
			f.Add(data)
		}
	}
	f.Add([]byte(`[{"role":"assistant","content":"a"},{"role":"user","content":""},{"role":"assistant","tool_calls":[{"id":"x","type":"function","function":{"name":"f","arguments":"[]"}}]},{"role":"tool","tool_call_id":"x","content":"r"}]`))
	msgtest.FromMessagesSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		msgs, ok := msgtest.FuzzMessages(data)
		if !ok {
			return
		}
		h, err := FromMessages(msgs)
		if msgtest.BothContents(msgs) {
			require.ErrorIs(t, err, compact.ErrInvalidHistory, "a message with both contents converts, one of them lost")
		}
		if err != nil {
			require.ErrorIs(t, err, compact.ErrInvalidHistory, "FromMessages")
			return
		}
		if compact.Validate(msgs) == nil && !lateSystem(msgs) && !halfAnswered(msgs) && len(h.Messages) > 0 {
			require.NoError(t, Validate(h), "a valid history converted into an invalid one")
		}
		conv, err := Convert(h)
		require.NoError(t, err, "Convert of FromMessages' output")
		again, err := FromMessages(conv.Messages)
		require.NoError(t, err)
		a, _ := json.Marshal(wire(h))
		b, _ := json.Marshal(wire(again))
		require.True(t, string(a) == string(b), "converting FromMessages' output and back changed it: %s", msgtest.Difference(a, b))
	})
}

// lateSystem reports whether a system or developer message follows a turn.
func lateSystem(msgs []compact.Message) bool {
	turn := false
	for _, m := range msgs {
		switch m.Role {
		case compact.RoleSystem, roleDeveloper:
			if turn {
				return true
			}
		default:
			turn = true
		}
	}
	return false
}

// halfAnswered reports whether the last group of tool calls has some of
// its results and not all of them: compact lets a host compact while the
// rest run, the Messages API takes a group only whole.
func halfAnswered(msgs []compact.Message) bool {
	last := -1
	for i, m := range msgs {
		if m.Role == compact.RoleAssistant && len(m.ToolCalls) > 0 {
			last = i
		}
	}
	if last < 0 {
		return false
	}
	answered := 0
	for _, m := range msgs[last+1:] {
		if m.Role != compact.RoleTool {
			return false
		}
		answered++
	}
	return answered > 0 && answered < len(msgs[last].ToolCalls)
}
