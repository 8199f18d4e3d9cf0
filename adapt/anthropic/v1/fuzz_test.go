package anthropic

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/contextkit/compact"
	"github.com/contextkit/compact/internal/msgtest"
	"github.com/stretchr/testify/require"
)

// FuzzConvertRoundTrip feeds request bodies through Convert and Restore:
// a body the SDK decodes either converts, and comes back as the same value
// and the same bytes, or fails with ErrInvalidHistory; nothing panics.
func FuzzConvertRoundTrip(f *testing.F) {
	f.Add([]byte(everyBlockJSON))
	f.Add([]byte(`{"messages":[{"role":"user","content":[{"type":"text","text":"hi"}]}]}`))
	f.Add([]byte(`{"messages":[{"role":"assistant","content":[]},{"role":"user"}]}`))
	f.Add([]byte(`{"system":[{"type":"text","text":"s"}],"messages":[{"role":"user","content":[{"type":"tool_result","tool_use_id":"x"}]}]}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		var w wire
		if json.Unmarshal(body, &w) != nil {
			return
		}
		h := History(w)
		before, err := json.Marshal(wire(h))
		if err != nil {
			return // the SDK cannot encode it either
		}
		conv, err := Convert(h)
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

// FuzzCompress compacts every decodable history with the API's shape
// through a Compressor with a tiny window: the output validates on both
// sides and its last turn is the input's.
func FuzzCompress(f *testing.F) {
	f.Add([]byte(everyBlockJSON))
	f.Add([]byte(`{"messages":[{"role":"user","content":[{"type":"text","text":"a"}]},{"role":"assistant","content":[{"type":"text","text":"b"}]},{"role":"user","content":[{"type":"text","text":"c"}]}]}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		var w wire
		if json.Unmarshal(body, &w) != nil || Validate(History(w)) != nil {
			return
		}
		h := History(w)
		out, res, err := Compress(context.Background(), compact.New(compact.WithContextWindow(400)), h, compact.Force())
		if err != nil {
			require.NotErrorIs(t, err, ErrShape, "a valid history compacted into an invalid one")
			return
		}
		require.NoError(t, compact.Validate(res.Messages), "engine output")
		require.NoError(t, Validate(out), "restored output")
		require.True(t, reflect.DeepEqual(h.Messages[len(h.Messages)-1], out.Messages[len(out.Messages)-1]), "the last turn changed")
	})
}

// FuzzFromMessages feeds OpenAI-style histories to FromMessages: nothing
// panics; a history compact accepts, with no system message after a turn
// and no half-answered call group at its end, becomes one the Messages API
// accepts; and converting the result and back changes nothing.
func FuzzFromMessages(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join(ownTranscriptDir, "*.json"))
	for _, file := range files {
		if data, err := os.ReadFile(file); err == nil {
			f.Add(data)
		}
	}
	f.Add([]byte(`[{"role":"assistant","content":"a"},{"role":"user","content":""},{"role":"assistant","tool_calls":[{"id":"x","type":"function","function":{"name":"f","arguments":"[]"}}]},{"role":"tool","tool_call_id":"x","content":"r"}]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var msgs []compact.Message
		if json.Unmarshal(data, &msgs) != nil {
			return
		}
		h, err := FromMessages(msgs)
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
