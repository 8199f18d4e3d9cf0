package openaigo

import (
	"context"
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"testing"

	"github.com/openai/openai-go/v3"
	"github.com/stretchr/testify/require"

	"github.com/contextkit/compact"
	"github.com/contextkit/compact/internal/msgtest"
)

// seedTranscripts adds the root module's own transcripts to f's corpus.
func seedTranscripts(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join(ownTranscriptDir, "*.json"))
	for _, file := range files {
		if data, err := os.ReadFile(file); err == nil {
			f.Add(data)
		}
	}
}

// fuzzSeeds adds to f the seeds the targets on Chat Completions messages
// start from: the fixture and the root module's transcripts, and issue
// 35's cases as operations (parts and calls with no variant, a call id
// used twice with fields to keep and content long enough to prune) on the
// fixture and on the reused-id history.
func fuzzSeeds(f *testing.F) {
	f.Add([]byte(everyPartJSON))
	seedTranscripts(f)
	f.Add(msgtest.WithOps(everyPartJSON, opNull, 2))
	f.Add(msgtest.WithOps(everyPartJSON, opNull, 3))
	f.Add(msgtest.WithOps(everyPartJSON, opNull, 6))
	f.Add(msgtest.WithOps(everyPartJSON, opReuseID, 4, opFields, 2, opLong, 3))
	f.Add(msgtest.WithOps(reusedIDJSON, opLong, 2, opFields, 2, opFields, 1))
}

// fuzzMessages is the history a fuzz input describes: messages as JSON,
// then, after a NUL, operations (see mutateMessages and addNullParts). ok
// is false when the body does not decode.
func fuzzMessages(data []byte) (msgs []openai.ChatCompletionMessageParamUnion, ok bool) {
	body, ops := msgtest.SplitOps(data)
	if json.Unmarshal(mutateMessages(body, ops), &msgs) != nil {
		return nil, false
	}
	addNullParts(msgs, ops)
	return msgs, true
}

// FuzzConvertRoundTrip feeds histories (JSON and operations, see
// mutateMessages) through Convert and Restore: messages the SDK decodes
// either convert, and come back as the same value and the same bytes, or
// fail with ErrInvalidHistory, as they do when a part or call is null;
// nothing panics.
func FuzzConvertRoundTrip(f *testing.F) {
	fuzzSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		msgs, ok := fuzzMessages(data)
		if !ok {
			return
		}
		before, err := json.Marshal(msgs)
		if err != nil {
			return // the SDK cannot encode it either
		}
		conv, err := Convert(msgs)
		if nullPart(msgs) {
			require.ErrorIs(t, err, compact.ErrInvalidHistory, "Convert takes a part or call that encodes as null")
		}
		if err != nil {
			require.ErrorIs(t, err, compact.ErrInvalidHistory, "Convert")
			return
		}
		_ = compact.Validate(conv.Messages)
		got, err := conv.Restore(conv.Messages)
		require.NoError(t, err, "Restore of the conversion itself")
		after, err := json.Marshal(got)
		require.NoError(t, err)
		require.True(t, string(before) == string(after), "round trip changed the body: %s", msgtest.Difference(before, after))
		require.True(t, reflect.DeepEqual(msgs, got), "round trip gave back a different value with the same encoding")
	})
}

// FuzzCompress compacts every valid history (see FuzzConvertRoundTrip for
// what the input builds) through a Compressor at a window that folds and
// one that prunes: the output is a valid request on both sides, its last
// message is the input's, and every tool result and tool-calling turn in
// it keeps the form and fields of an input message of its own (a result's
// parts, a turn's audio), whether or not the engine changed it and whether
// or not its id repeats.
func FuzzCompress(f *testing.F) {
	fuzzSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		msgs, ok := fuzzMessages(data)
		if !ok || len(msgs) == 0 || Validate(msgs) != nil {
			return
		}
		keys := callKeys(msgs)
		for _, window := range []int{400, 8000} {
			out, res, err := Compress(context.Background(), compact.New(compact.WithContextWindow(window)), msgs, compact.Force())
			if err != nil {
				continue
			}
			require.NoError(t, compact.Validate(res.Messages), "engine output")
			require.NoError(t, Validate(out), "restored output")
			require.True(t, reflect.DeepEqual(msgs[len(msgs)-1], out[len(out)-1]) || sharesWith(t, out[len(out)-1], msgs[len(msgs)-1]), "the last message changed")
			left := maps.Clone(keys)
			for k, u := range out {
				if key, ok := callKey(u); ok {
					require.Positive(t, left[key], "message %d: %q keeps no input message's form and fields", k, key)
					left[key]--
				}
			}
		}
	})
}

// callKey is what must stay of a tool result (its call id and whether it
// holds parts) or a tool-calling turn (its first call's id and its audio).
func callKey(u openai.ChatCompletionMessageParamUnion) (string, bool) {
	switch {
	case u.OfTool != nil:
		return "tool\x00" + u.OfTool.ToolCallID + "\x00" + strconv.FormatBool(u.OfTool.Content.OfArrayOfContentParts != nil), true
	case u.OfAssistant != nil && len(u.OfAssistant.ToolCalls) > 0:
		id := ""
		if c := u.OfAssistant.ToolCalls[0].GetID(); c != nil {
			id = *c
		}
		return "call\x00" + id + "\x00" + u.OfAssistant.Audio.ID, true
	}
	return "", false
}

// callKeys counts msgs' callKeys.
func callKeys(msgs []openai.ChatCompletionMessageParamUnion) map[string]int {
	out := map[string]int{}
	for _, u := range msgs {
		if key, ok := callKey(u); ok {
			out[key]++
		}
	}
	return out
}

// FuzzFromMessages feeds go-openai histories (see msgtest.FuzzMessages:
// both contents and reused ids too) to FromMessages: nothing panics, a
// message with both contents is refused, a valid history stays valid, and
// converting the result and back changes nothing.
func FuzzFromMessages(f *testing.F) {
	seedTranscripts(f)
	f.Add([]byte(`[{"role":"assistant","content":"a","reasoning_content":"r"},{"role":"user","content":[{"type":"image_url","image_url":{"url":"x"}}]},{"role":"function","name":"f"}]`))
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
		if compact.Validate(msgs) == nil {
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
