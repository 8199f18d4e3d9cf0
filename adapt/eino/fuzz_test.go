package eino

import (
	"context"
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"testing"

	"github.com/cloudwego/eino/schema"
	"github.com/stretchr/testify/require"

	"github.com/contextkit/compact"
	"github.com/contextkit/compact/internal/msgtest"
)

// fuzzSeeds adds to f the seeds every target on eino's types starts from:
// the fixture, and issue 35's cases as operations on it (a nil message,
// nil pointer fields, a call id used twice with fields to keep and content
// long enough to prune) and on the reused-id history.
func fuzzSeeds(f *testing.F) {
	f.Add([]byte(everyKindJSON))
	f.Add(msgtest.WithOps(everyKindJSON, opNilMessage, 2))
	f.Add(msgtest.WithOps(everyKindJSON, opNilPointers, 1, opNilPointers, 2))
	f.Add(msgtest.WithOps(everyKindJSON, opReuseID, 5, opFields, 3, opLong, 3))
	f.Add(msgtest.WithOps(msgtest.MustJSON(reusedIDHistory()), opFields, 5))
}

// fuzzHistory is the history a fuzz input describes: eino's messages as
// JSON, then, after a NUL, operations (see mutate). ok is false when the
// body does not decode.
func fuzzHistory(data []byte) ([]*schema.Message, bool) {
	return msgtest.DecodeOps(data, mutate)
}

// FuzzConvertRoundTrip feeds eino histories (JSON and operations, see
// mutate) through Convert and Restore: one with a nil message fails with
// ErrInvalidHistory; any other converts, nil pointer fields and all, and
// comes back as the same values and the same bytes; nothing panics.
func FuzzConvertRoundTrip(f *testing.F) {
	fuzzSeeds(f)
	f.Add([]byte(`[{"role":"user","content":"hi"},null]`))
	f.Add([]byte(`[{"role":"assistant","content":"","assistant_output_multi_content":[{"type":"reasoning"}]},{"role":""}]`))
	f.Add([]byte(`[{"role":"tool","tool_call_id":"x","user_input_multi_content":[{"type":"image_url","image":{}}]}]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		msgs, ok := fuzzHistory(data)
		if !ok {
			return
		}
		before, err := json.Marshal(msgs)
		if err != nil {
			return
		}
		conv, err := Convert(msgs)
		if slices.Contains(msgs, nil) {
			require.ErrorIs(t, err, compact.ErrInvalidHistory, "Convert takes a nil message")
			return
		}
		require.NoError(t, err, "Convert")
		_ = compact.Validate(conv.Messages)
		got, err := conv.Restore(conv.Messages)
		require.NoError(t, err, "Restore of the conversion itself")
		after, err := json.Marshal(got)
		require.NoError(t, err)
		require.True(t, string(before) == string(after), "round trip changed the history: %s", msgtest.Difference(before, after))
		require.True(t, reflect.DeepEqual(msgs, got), "round trip gave back different values with the same encoding")
	})
}

// FuzzCompress compacts every valid history (see FuzzConvertRoundTrip for
// what the input builds) through a Compressor at a window that folds and
// one that prunes: the input is not modified, the output is a valid
// request on both sides and reads as the engine's output, its last message
// is the input's, and every tool result in it has the call id, ToolName
// and Extra of an input result of its own, whether or not the engine
// changed it and whether or not its id repeats.
func FuzzCompress(f *testing.F) {
	fuzzSeeds(f)
	f.Add([]byte(`[{"role":"system","content":"s"},{"role":"user","content":"a"},{"role":"assistant","content":"b"},{"role":"user","content":"c"}]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		msgs, ok := fuzzHistory(data)
		if !ok || len(msgs) == 0 || Validate(msgs) != nil {
			return
		}
		before, err := json.Marshal(msgs)
		if err != nil {
			return
		}
		keys := resultKeys(msgs)
		for _, window := range []int{400, 8000} {
			out, res, err := Compress(context.Background(), compact.New(compact.WithContextWindow(window)), msgs, compact.Force())
			now, _ := json.Marshal(msgs)
			require.True(t, string(now) == string(before), "Compress modified its input: %s", msgtest.Difference(before, now))
			if err != nil {
				continue
			}
			require.NoError(t, compact.Validate(res.Messages), "engine output")
			require.NoError(t, Validate(out), "restored output")
			conv, err := Convert(out)
			require.NoError(t, err, "the restored history does not convert")
			require.True(t, reflect.DeepEqual(conv.Messages, res.Messages), "the restored history does not read as the engine's output")
			require.True(t, reflect.DeepEqual(msgs[len(msgs)-1], out[len(out)-1]) || sharesWith(t, out[len(out)-1], msgs[len(msgs)-1]), "the last message changed")
			left := maps.Clone(keys)
			for k, u := range out {
				if u.Role == schema.Tool {
					require.Positive(t, left[resultKey(u)], "message %d: result %q (%q, %v) is no input result's id, ToolName and Extra",
						k, u.ToolCallID, u.ToolName, u.Extra)
					left[resultKey(u)]--
				}
			}
		}
	})
}

// FuzzFromMessages feeds go-openai histories (see msgtest.FuzzMessages:
// both contents and reused ids too) to FromMessages: nothing panics, a
// message with both contents is refused, and converting its output and
// back changes nothing.
func FuzzFromMessages(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join(ownTranscriptDir, "*.json"))
	for _, file := range files {
		if data, err := os.ReadFile(file); err == nil {
			f.Add(data)
		}
	}
	f.Add([]byte(`[{"role":"assistant","content":"a","refusal":"no"},{"role":"user","MultiContent":[{"type":"image_url","image_url":{"url":"data:image/png;base64,AA=="}}]},{"role":"tool","tool_call_id":"x","MultiContent":[{"type":"text","text":"r"}]}]`))
	msgtest.FromMessagesSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		msgs, ok := msgtest.FuzzMessages(data)
		if !ok {
			return
		}
		out, err := FromMessages(msgs)
		if msgtest.BothContents(msgs) {
			require.ErrorIs(t, err, compact.ErrInvalidHistory, "a message with both contents converts, one of them lost")
		}
		if err != nil {
			require.ErrorIs(t, err, compact.ErrInvalidHistory, "FromMessages")
			return
		}
		conv, err := Convert(out)
		require.NoError(t, err, "Convert of FromMessages' output")
		again, err := FromMessages(conv.Messages)
		require.NoError(t, err)
		a, _ := json.Marshal(out)
		b, _ := json.Marshal(again)
		require.True(t, string(a) == string(b), "converting FromMessages' output and back changed it: %s", msgtest.Difference(a, b))
	})
}
