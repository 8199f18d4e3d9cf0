package genai

import (
	"context"
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/contextkit/compact"
	"github.com/contextkit/compact/internal/msgtest"
	"github.com/stretchr/testify/require"
)

// fuzzSeeds adds to f the seeds every target on genai's types starts from:
// the fixture, and issue 35's cases as operations on it (nil parts, a nil
// part of a function response, a call id used twice with fields to keep
// and an output long enough to prune) and on the reused-id history.
func fuzzSeeds(f *testing.F) {
	f.Add([]byte(everyPartJSON))
	f.Add(msgtest.WithOps(everyPartJSON, opNilPart, 3))
	f.Add(msgtest.WithOps(everyPartJSON, opNilResponsePart, 10))
	f.Add(msgtest.WithOps(everyPartJSON, opReuseID, 5, opFields, 9, opLong, 9, opFields, 20))
	f.Add(msgtest.WithOps(msgtest.MustJSON(toWire(reusedIDHistory())), opFields, 4))
}

// fuzzHistory is the history a fuzz input describes: a request body, then,
// after a NUL, operations (see mutate). ok is false when the body does not
// decode.
func fuzzHistory(data []byte) (History, bool) {
	w, ok := msgtest.DecodeOps(data, func(w wire, ops []byte) wire { return toWire(mutate(fromWire(w), ops)) })
	return fromWire(w), ok
}

// FuzzConvertRoundTrip feeds histories built from request bodies and
// operations (see mutate) through Convert and Restore: one with a nil
// content or part (a function response's too) fails Convert and Validate;
// any other either converts, and comes back as the same value and the same
// bytes, or fails with ErrInvalidHistory; nothing panics.
func FuzzConvertRoundTrip(f *testing.F) {
	fuzzSeeds(f)
	f.Add([]byte(`{"contents":[{"role":"user","parts":[{"text":"hi"}]}]}`))
	f.Add([]byte(`{"contents":[{"role":"model","parts":[]},{"parts":[{"functionResponse":{"name":"f"}}]},null]}`))
	f.Add([]byte(`{"systemInstruction":{"parts":[{"text":"s"},null]},"contents":[{"role":"model","parts":[{"functionCall":{"name":"f"}},{"functionCall":{"id":"fc_0_0","name":"f"}}]}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		h, ok := fuzzHistory(data)
		if !ok {
			return
		}
		before, err := json.Marshal(toWire(h))
		if err != nil {
			return // the SDK cannot encode it either
		}
		conv, err := Convert(h)
		if nilPartIn(h) {
			require.ErrorIs(t, err, compact.ErrInvalidHistory, "Convert takes a nil part")
			require.ErrorIs(t, Validate(h), ErrShape, "Validate passes a nil part")
		}
		if err != nil {
			require.ErrorIs(t, err, compact.ErrInvalidHistory, "Convert")
			return
		}
		got, err := conv.Restore(conv.Messages)
		require.NoError(t, err, "Restore of the conversion itself")
		after, err := json.Marshal(toWire(got))
		require.NoError(t, err)
		require.True(t, string(before) == string(after), "round trip changed the body: %s", msgtest.Difference(before, after))
		require.True(t, reflect.DeepEqual(h, got), "round trip gave back a different value with the same encoding")
		if Validate(h) == nil {
			require.NoError(t, compact.Validate(conv.Messages), "a history with the API's shape converted into an invalid chat history")
		}
	})
}

// FuzzCompress compacts every history with the API's shape (see
// FuzzConvertRoundTrip for what the input builds) through a Compressor at
// a window that folds and one that prunes: the output validates on both
// sides, its last content is the input's, and every function response in
// it has the id, name, WillContinue and Scheduling of an input response of
// its own, whether or not the engine changed it and whether or not its id
// repeats.
func FuzzCompress(f *testing.F) {
	fuzzSeeds(f)
	f.Add([]byte(`{"contents":[{"role":"user","parts":[{"text":"a"}]},{"role":"model","parts":[{"text":"b"}]},{"role":"user","parts":[{"text":"c"}]}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		h, ok := fuzzHistory(data)
		if !ok || Validate(h) != nil {
			return
		}
		keys := responseKeys(h)
		for _, window := range []int{400, 8000} {
			out, res, err := Compress(context.Background(), compact.New(compact.WithContextWindow(window)), h, compact.Force())
			if err != nil {
				require.NotErrorIs(t, err, ErrShape, "a valid history compacted into an invalid one")
				continue
			}
			require.NoError(t, compact.Validate(res.Messages), "engine output")
			require.NoError(t, Validate(out), "restored output")
			last, got := h.Contents[len(h.Contents)-1], out.Contents[len(out.Contents)-1]
			require.True(t, reflect.DeepEqual(last, got) || sharesLast(t, last, got), "the last content changed")
			left := maps.Clone(keys)
			for k, c := range out.Contents {
				for i, p := range c.Parts {
					if fr := p.FunctionResponse; fr != nil {
						require.Positive(t, left[responseKey(fr)], "content %d, part %d: response %q (%s) is no input response's id, name and fields",
							k, i, fr.ID, fr.Name)
						left[responseKey(fr)]--
					}
				}
			}
		}
	})
}

// FuzzFromMessages feeds OpenAI-style histories (see msgtest.FuzzMessages:
// both contents and reused ids too) to FromMessages: nothing panics; it
// returns an error (always for a message with both contents) or, unless
// the last call group is answered in part, a history the Gemini API
// accepts; and converting the result and back changes nothing.
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
		if !msgtest.HalfAnswered(msgs) && len(h.Contents) > 0 {
			require.NoError(t, Validate(h), "FromMessages promises the Gemini API's shape")
		}
		conv, err := Convert(h)
		require.NoError(t, err, "Convert of FromMessages' output")
		if missingID(msgs) {
			return // an id-less response takes its call's id in compact's view; no conversion can tell it had none
		}
		again, err := FromMessages(conv.Messages)
		require.NoError(t, err)
		a, _ := json.Marshal(toWire(h))
		b, _ := json.Marshal(toWire(again))
		require.True(t, string(a) == string(b), "converting FromMessages' output and back changed it: %s", msgtest.Difference(a, b))
	})
}

// missingID reports whether a tool call or a tool message has no id, which
// the OpenAI format requires and compact pairs by.
func missingID(msgs []compact.Message) bool {
	for _, m := range msgs {
		if m.Role == compact.RoleTool && m.ToolCallID == "" {
			return true
		}
		for _, c := range m.ToolCalls {
			if c.ID == "" {
				return true
			}
		}
	}
	return false
}
