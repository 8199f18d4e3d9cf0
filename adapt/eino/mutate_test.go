//lint:file-ignore SA1019 deprecated MultiContent parts are built too, so the fuzz targets reach them

package eino

import (
	"encoding/json"
	"slices"
	"strconv"
	"strings"

	"github.com/cloudwego/eino/schema"
)

// This file builds, from fuzz operations, the eino values a fuzzer seldom
// writes as JSON: nil messages, parts whose pointer fields are nil, call
// ids used twice, tool results with fields to keep and content long enough
// to prune.

// Operations of mutate (the first byte of each pair, modulo opKinds).
const (
	opNilMessage  = iota // the message becomes nil
	opNilPointers        // the message gets parts of each list whose pointer fields are nil
	opReuseID            // an assistant turn's first call takes an earlier call's id, and so do its results
	opFields             // a tool result sets ToolName and Extra
	opLong               // a tool result says 300 lines, so a compaction at 8k prunes it
	opKinds
)

// mutate applies ops to a copy of msgs (msgs and its messages are not
// modified): each op is two bytes, what and where (a message).
func mutate(msgs []*schema.Message, ops []byte) []*schema.Message {
	if len(ops) < 2 || len(msgs) == 0 {
		return msgs
	}
	out := make([]*schema.Message, len(msgs))
	for k, u := range msgs {
		if u != nil {
			cp := *u
			cp.ToolCalls = slices.Clone(u.ToolCalls)
			out[k] = &cp
		}
	}
	for ; len(ops) >= 2; ops = ops[2:] {
		k := int(ops[1]) % len(out)
		u := out[k]
		switch ops[0] % opKinds {
		case opNilMessage:
			out[k] = nil
		case opNilPointers:
			if u == nil {
				continue
			}
			u.MultiContent = append(slices.Clip(u.MultiContent), schema.ChatMessagePart{Type: schema.ChatMessagePartTypeImageURL})
			u.UserInputMultiContent = append(slices.Clip(u.UserInputMultiContent),
				schema.MessageInputPart{Type: schema.ChatMessagePartTypeImageURL},
				schema.MessageInputPart{Type: schema.ChatMessagePartTypeText, ToolSearchResult: &schema.ToolSearchResult{Tools: []*schema.ToolInfo{nil}}})
			u.AssistantGenMultiContent = append(slices.Clip(u.AssistantGenMultiContent),
				schema.MessageOutputPart{Type: schema.ChatMessagePartTypeReasoning},
				schema.MessageOutputPart{Type: schema.ChatMessagePartTypeImageURL})
		case opReuseID:
			reuseCallID(out, k)
		case opFields:
			if u != nil && u.Role == schema.Tool {
				u.ToolName, u.Extra = "search", map[string]any{"k": strconv.Itoa(k)}
			}
		case opLong:
			if u != nil && u.Role == schema.Tool {
				u.Content = strings.Repeat("flags.go:12: parse the --legacy flag\n", 300)
				u.MultiContent, u.UserInputMultiContent, u.AssistantGenMultiContent = nil, nil, nil
			}
		}
	}
	return out
}

// reuseCallID renames, in place, the first call of the first assistant turn
// at or after message k that makes calls (after the first that does) to the
// id of the first call of the first such turn, with the results that
// answer it, so that the history stays as valid as it was and an id
// repeats.
func reuseCallID(msgs []*schema.Message, k int) {
	first := ""
	for i, u := range msgs {
		if u == nil || u.Role != schema.Assistant || len(u.ToolCalls) == 0 {
			continue
		}
		if first == "" || i < k {
			if first == "" {
				first = u.ToolCalls[0].ID
			}
			continue
		}
		old := u.ToolCalls[0].ID
		if slices.ContainsFunc(u.ToolCalls, func(c schema.ToolCall) bool { return c.ID == first }) {
			return
		}
		u.ToolCalls[0].ID = first
		for j := i + 1; j < len(msgs) && msgs[j] != nil && msgs[j].Role == schema.Tool; j++ {
			if msgs[j].ToolCallID == old {
				msgs[j].ToolCallID = first
			}
		}
		return
	}
}

// resultKeys counts msgs' tool results by call id, tool name and Extra.
func resultKeys(msgs []*schema.Message) map[string]int {
	out := map[string]int{}
	for _, u := range msgs {
		if u != nil && u.Role == schema.Tool {
			out[resultKey(u)]++
		}
	}
	return out
}

func resultKey(u *schema.Message) string {
	extra, _ := json.Marshal(u.Extra)
	return u.ToolCallID + "\x00" + u.ToolName + "\x00" + string(extra)
}
