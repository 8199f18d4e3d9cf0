package openaigo

import (
	"encoding/json"
	"slices"
	"strconv"
	"strings"

	"github.com/openai/openai-go/v3"
)

// This file builds, from fuzz operations, the histories a fuzzer seldom
// writes: parts and tool calls with no variant (JSON null, which the SDK
// decodes as a union with none), call ids used twice, messages and items
// with fields to keep and outputs long enough to prune. It works on the
// JSON, so it reaches raw items too.

// Operations of mutate (the first byte of each pair, modulo opKinds).
const (
	opNull    = iota // a content part (Chat: or a tool call) with no variant, which encodes as null, is added
	opReuseID        // a call takes an earlier call's id, and so do its results
	opFields         // a field to keep: an assistant turn's audio, a tool result's parts; an output item's id and status
	opLong           // a tool result's content (an output item's output) is 300 lines, so a compaction at 8k prunes it
	opKinds
)

// longOutput is 300 lines of tool output.
var longOutput = strings.Repeat("flags.go:12: parse the --legacy flag\n", 300)

// mutateJSON decodes body as a JSON array of objects, applies ops to it
// with apply (each op is two bytes, what and where: an element) and
// encodes it again; body itself when there are no ops or it is not such
// an array.
func mutateJSON(body, ops []byte, apply func(elems []map[string]any, what byte, k int)) []byte {
	var elems []map[string]any
	if len(ops) < 2 || json.Unmarshal(body, &elems) != nil || len(elems) == 0 {
		return body
	}
	for ; len(ops) >= 2; ops = ops[2:] {
		k := int(ops[1]) % len(elems)
		if elems[k] == nil {
			continue
		}
		apply(elems, ops[0]%opKinds, k)
	}
	out, err := json.Marshal(elems)
	if err != nil {
		return body
	}
	return out
}

// appendNull appends null to the array under key, when there is one.
func appendNull(m map[string]any, key string) {
	if a, ok := m[key].([]any); ok {
		m[key] = append(a, nil)
	}
}

// mutateMessages applies ops to Chat Completions messages as JSON (see
// mutateJSON).
func mutateMessages(body, ops []byte) []byte {
	return mutateJSON(body, ops, func(msgs []map[string]any, what byte, k int) {
		m := msgs[k]
		switch what {
		case opReuseID:
			reuseIDs(msgs, k, func(m map[string]any) (string, bool) {
				calls, _ := m["tool_calls"].([]any)
				if m["role"] != "assistant" || len(calls) == 0 {
					return "", false
				}
				c, _ := calls[0].(map[string]any)
				id, _ := c["id"].(string)
				return id, c != nil
			}, func(m map[string]any, id string) {
				m["tool_calls"].([]any)[0].(map[string]any)["id"] = id
			}, func(m map[string]any) bool { return m["role"] == "tool" }, "tool_call_id")
		case opFields:
			switch m["role"] {
			case "assistant":
				m["audio"] = map[string]any{"id": "audio_" + strconv.Itoa(k)}
			case "tool":
				if s, ok := m["content"].(string); ok {
					m["content"] = []any{map[string]any{"type": "text", "text": s}}
				}
			}
		case opLong:
			if m["role"] == "tool" {
				m["content"] = longOutput
			}
		}
	})
}

// addNullParts applies the opNull operations of ops to msgs, in place: the
// SDK decodes a JSON array holding null as no array at all, so only typed
// values reach a part or call with no variant.
func addNullParts(msgs []openai.ChatCompletionMessageParamUnion, ops []byte) {
	for ; len(ops) >= 2 && len(msgs) > 0; ops = ops[2:] {
		if ops[0]%opKinds != opNull {
			continue
		}
		switch u := msgs[int(ops[1])%len(msgs)]; {
		case u.OfUser != nil && u.OfUser.Content.OfArrayOfContentParts != nil:
			u.OfUser.Content.OfArrayOfContentParts = append(u.OfUser.Content.OfArrayOfContentParts, openai.ChatCompletionContentPartUnionParam{})
		case u.OfAssistant != nil && u.OfAssistant.Content.OfArrayOfContentParts != nil:
			u.OfAssistant.Content.OfArrayOfContentParts = append(u.OfAssistant.Content.OfArrayOfContentParts,
				openai.ChatCompletionAssistantMessageParamContentArrayOfContentPartUnion{})
		case u.OfAssistant != nil:
			u.OfAssistant.ToolCalls = append(u.OfAssistant.ToolCalls, openai.ChatCompletionMessageToolCallUnionParam{})
		}
	}
}

// nullPart reports whether a message of msgs holds a content part or tool
// call that encodes as null.
func nullPart(msgs []openai.ChatCompletionMessageParamUnion) bool {
	var parts []any
	for _, u := range msgs {
		switch {
		case u.OfUser != nil:
			for _, p := range u.OfUser.Content.OfArrayOfContentParts {
				parts = append(parts, p)
			}
		case u.OfAssistant != nil:
			for _, p := range u.OfAssistant.Content.OfArrayOfContentParts {
				parts = append(parts, p)
			}
			for _, c := range u.OfAssistant.ToolCalls {
				parts = append(parts, c)
			}
		}
	}
	return slices.ContainsFunc(parts, func(p any) bool {
		data, err := json.Marshal(p)
		return err == nil && string(data) == "null"
	})
}

// mutateItems applies ops to Responses items as JSON (see mutateJSON).
func mutateItems(body, ops []byte) []byte {
	return mutateJSON(body, ops, func(items []map[string]any, what byte, k int) {
		u := items[k]
		switch what {
		case opNull:
			appendNull(u, "content")
			appendNull(u, "output")
		case opReuseID:
			reuseIDs(items, k, func(u map[string]any) (string, bool) {
				id, ok := u["call_id"].(string)
				return id, ok && u["type"] == "function_call"
			}, func(u map[string]any, id string) {
				u["call_id"] = id
			}, func(u map[string]any) bool { return u["type"] != "message" }, "call_id")
		case opFields:
			if u["type"] == "function_call_output" {
				u["id"], u["status"] = "fco_"+strconv.Itoa(k), "completed"
			}
		case opLong:
			if u["type"] == "function_call_output" {
				u["output"] = longOutput
			}
		}
	})
}

// reuseIDs renames the call of the first element at or after k that makes
// one (after the first that does; call reads it, rename sets it) to the
// id of the first, and so the results after it (while answer holds, the
// id under key), so that the history stays as valid as it was and an id
// repeats.
func reuseIDs(elems []map[string]any, k int, call func(map[string]any) (string, bool), rename func(map[string]any, string),
	answer func(map[string]any) bool, key string) {
	first := ""
	for i, m := range elems {
		id, ok := call(m)
		if m == nil || !ok {
			continue
		}
		if first == "" || i < k {
			if first == "" {
				first = id
			}
			continue
		}
		if id == first {
			return
		}
		rename(m, first)
		for j := i + 1; j < len(elems) && elems[j] != nil && answer(elems[j]); j++ {
			if elems[j][key] == id {
				elems[j][key] = first
			}
		}
		return
	}
}
