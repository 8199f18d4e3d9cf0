package langchaingo

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/tmc/langchaingo/llms"

	"github.com/contextkit/compact"
	"github.com/contextkit/compact/internal/msgtest"
)

// fuzzSeeds adds to f the seeds every target on langchaingo's types starts
// from: the fixture, and issue 35's cases as operations on it (a typed nil
// part of each kind, cached, pointer and host parts, a call id used twice)
// and on the reused-id history.
func fuzzSeeds(f *testing.F) {
	f.Add([]byte(everyPartJSON))
	for n := range nilParts() {
		f.Add(msgtest.WithOps(everyPartJSON, byte(opNil+n*opKinds), 5))
	}
	f.Add(msgtest.WithOps(everyPartJSON, opPointer, 0, opCache, 1, opCachePtr, 5, opHost, 7, opCache, 9))
	f.Add(msgtest.WithOps(everyPartJSON, opReuseID, 4, opPointer, 8, opCache, 9, opLong, 8))
	f.Add(msgtest.WithOps(msgtest.MustJSON(reusedIDHistory()), opCache, 3, opPointer, 4))
}

// fuzzHistory is the history a fuzz input describes: a body as langchaingo
// encodes histories, then, after a NUL, operations (see mutate). ok is
// false when the body does not decode.
func fuzzHistory(data []byte) ([]llms.MessageContent, bool) {
	return msgtest.DecodeOps(data, mutate)
}

// FuzzConvertRoundTrip feeds histories built from what langchaingo encodes
// and what it cannot (typed nil parts, cache wrappers, pointer and host
// parts, reused ids) through Convert and Restore: one either converts, and
// comes back as the same value and the same bytes, or fails with
// ErrInvalidHistory, as Validate does with RuleNilPart; nothing panics.
func FuzzConvertRoundTrip(f *testing.F) {
	fuzzSeeds(f)
	f.Add([]byte(`[{"role":"human","text":"hi"}]`))
	f.Add([]byte(`[{"role":"tool","parts":[{"type":"text","text":"x"},{"type":"tool_response","tool_response":{"tool_call_id":"a","name":"f","content":""}}]},{"role":"ai","parts":[]}]`))
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
		if k, i, found := nilPartIn(msgs); found {
			require.ErrorIs(t, err, compact.ErrInvalidHistory, "Convert takes the nil part %d of message %d", i, k)
			require.ErrorIs(t, Validate(msgs), ErrShape, "Validate passes the nil part %d of message %d", i, k)
		}
		var se *ShapeError
		if err != nil {
			require.ErrorIs(t, err, compact.ErrInvalidHistory, "Convert")
			if errors.As(Validate(msgs), &se) && se.Rule == RuleNilPart {
				require.Contains(t, err.Error(), fmt.Sprintf("message %d: ", se.Index), "Convert and Validate name one message")
			}
			return
		}
		require.False(t, errors.As(Validate(msgs), &se) && se.Rule == RuleNilPart, "Validate finds a nil part Convert took")
		got, err := conv.Restore(conv.Messages)
		require.NoError(t, err, "Restore of the conversion itself")
		after, err := json.Marshal(got)
		require.NoError(t, err)
		require.True(t, string(before) == string(after), "round trip changed the history: %s", msgtest.Difference(before, after))
		require.True(t, reflect.DeepEqual(msgs, got), "round trip gave back a different value with the same encoding")
		if Validate(msgs) == nil {
			require.NoError(t, compact.Validate(conv.Messages), "a history providers accept converted into an invalid chat history")
		}
	})
}

// FuzzCompress compacts every history Validate accepts (see
// FuzzConvertRoundTrip for what the input builds) through a Compressor
// with a tiny window: the output validates on both sides, its last message
// is the input's, and every tool response in it has the id, name and form
// (pointer, cache wrapper) of an input response of its own, whether or not
// the engine changed it and whether or not its id repeats.
func FuzzCompress(f *testing.F) {
	fuzzSeeds(f)
	f.Add([]byte(`[{"role":"human","text":"a"},{"role":"ai","text":"b"},{"role":"human","text":"c"}]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		msgs, ok := fuzzHistory(data)
		if !ok || len(msgs) == 0 || Validate(msgs) != nil {
			return
		}
		responses := map[string]int{} // id, name and form: how many input responses have them
		for _, m := range msgs {
			for _, p := range m.Parts {
				if r, ok := asResponse(p); ok {
					responses[r.ToolCallID+"\x00"+r.Name+"\x00"+formOf(p)]++
				}
			}
		}
		for _, window := range []int{400, 8000} { // a fold, and (for long responses) pruning
			out, res, err := Compress(context.Background(), compact.New(compact.WithContextWindow(window)), msgs, compact.Force())
			if err != nil {
				require.NotErrorIs(t, err, ErrShape, "a valid history compacted into an invalid one")
				continue
			}
			require.NoError(t, compact.Validate(res.Messages), "engine output")
			require.NoError(t, Validate(out), "restored output")
			require.True(t, reflect.DeepEqual(msgs[len(msgs)-1], out[len(out)-1]) || sharesLast(t, msgs[len(msgs)-1], out[len(out)-1]), "the last message changed")
			left := maps.Clone(responses)
			for k, m := range out {
				for i, p := range m.Parts {
					if r, ok := asResponse(p); ok {
						key := r.ToolCallID + "\x00" + r.Name + "\x00" + formOf(p)
						require.Positive(t, left[key],
							"message %d, part %d: response %q (%s, %s) is no input response's id, name and form", k, i, r.ToolCallID, r.Name, formOf(p))
						left[key]--
					}
				}
			}
		}
	})
}

// FuzzFromMessages feeds OpenAI-style histories (see msgtest.FuzzMessages:
// both contents and reused ids too) to FromMessages: nothing panics, a
// message with both contents is refused, a history compact accepts whose
// calls all name a function becomes one Validate accepts, and converting
// the result and back changes nothing.
func FuzzFromMessages(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join(ownTranscriptDir, "*.json"))
	for _, file := range files {
		if data, err := os.ReadFile(file); err == nil {
			f.Add(data)
		}
	}
	f.Add([]byte(`[{"role":"assistant","content":" "},{"role":"user","content":""},{"role":"assistant","tool_calls":[{"id":"x","type":"function","function":{"name":"f","arguments":"[]"}}]},{"role":"tool","tool_call_id":"x","content":"r"}]`))
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
		if compact.Validate(msgs) == nil && callsNamed(msgs) {
			require.NoError(t, Validate(out), "a valid history converted into an invalid one")
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

// callsNamed reports whether every tool call names its function, as
// langchaingo's providers need and compact does not.
func callsNamed(msgs []compact.Message) bool {
	for _, m := range msgs {
		for _, c := range m.ToolCalls {
			if c.Function.Name == "" {
				return false
			}
		}
	}
	return true
}
