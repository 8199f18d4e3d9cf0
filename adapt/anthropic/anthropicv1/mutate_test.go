package anthropicv1

import (
	"encoding/json"
	"slices"
	"strings"

	sdk "github.com/anthropics/anthropic-sdk-go"

	"github.com/contextkit/compact/internal/msgtest"
)

// This file builds, from fuzz operations, the values a fuzzer seldom
// writes as JSON: blocks with no variant, tool_use ids used twice (the API
// refuses them, a converted OpenAI history may hold them), tool results
// with fields to keep and content long enough to prune.

// Operations of mutate (the first byte of each pair, modulo opKinds).
const (
	opNullBlock   = iota // the block becomes a union with no variant
	opNullContent        // a tool_result gets a content block with no variant
	opReuseID            // an assistant turn's first tool_use takes an earlier one's id, and so do its results
	opFields             // a tool_result sets is_error and cache_control
	opLong               // a tool_result says 300 lines, so a compaction at 8k prunes it
	opKinds
)

// mutableBlocks is the blocks of a turn, m's own slice.
func mutableBlocks(m sdk.MessageParam) []sdk.ContentBlockParamUnion { return m.Content }

// mutate applies ops to a copy of h (h is not modified): each op is two
// bytes, what and where (a block, counted over the whole history). Blocks
// it changes are copies.
func mutate(h History, ops []byte) History {
	if len(ops) < 2 {
		return h
	}
	out := History{System: h.System, Messages: slices.Clone(h.Messages)}
	for k := range out.Messages {
		out.Messages[k].Content = slices.Clone(out.Messages[k].Content)
	}
	for ; len(ops) >= 2; ops = ops[2:] {
		k, i, ok := msgtest.PartAt(len(out.Messages), func(k int) int { return len(mutableBlocks(out.Messages[k])) }, int(ops[1]))
		if !ok {
			return out
		}
		b := &mutableBlocks(out.Messages[k])[i]
		result := func(change func(r *sdk.ToolResultBlockParam)) {
			if b.OfToolResult == nil {
				return
			}
			r := *b.OfToolResult
			r.Content = slices.Clone(r.Content)
			change(&r)
			*b = sdk.ContentBlockParamUnion{OfToolResult: &r}
		}
		switch ops[0] % opKinds {
		case opNullBlock:
			*b = sdk.ContentBlockParamUnion{}
		case opNullContent:
			result(func(r *sdk.ToolResultBlockParam) {
				r.Content = append(r.Content, sdk.ToolResultBlockParamContentUnion{})
			})
		case opReuseID:
			reuseToolUseID(out.Messages, k)
		case opFields:
			result(func(r *sdk.ToolResultBlockParam) {
				r.IsError, r.CacheControl = sdk.Bool(true), sdk.NewCacheControlEphemeralParam()
			})
		case opLong:
			result(func(r *sdk.ToolResultBlockParam) {
				r.Content = []sdk.ToolResultBlockParamContentUnion{{OfText: &sdk.TextBlockParam{
					Text: strings.Repeat("flags.go:12: parse the --legacy flag\n", 300)}}}
			})
		}
	}
	return out
}

// reuseToolUseID renames, in place, the first tool_use of the first
// assistant turn at or after turn k that has one (after the first that
// does) to the id of the first tool_use of the first such turn, with the
// tool_results of the next turn that answer it. Renamed blocks are copies.
func reuseToolUseID(turns []sdk.MessageParam, k int) {
	first := ""
	for i, m := range turns {
		blocks := mutableBlocks(m)
		at := slices.IndexFunc(blocks, func(b sdk.ContentBlockParamUnion) bool { return b.OfToolUse != nil })
		if m.Role != sdk.MessageParamRoleAssistant || at < 0 {
			continue
		}
		if first == "" || i < k {
			if first == "" {
				first = blocks[at].OfToolUse.ID
			}
			continue
		}
		old := blocks[at].OfToolUse.ID
		if slices.ContainsFunc(blocks, func(b sdk.ContentBlockParamUnion) bool { return b.OfToolUse != nil && b.OfToolUse.ID == first }) {
			return
		}
		u := *blocks[at].OfToolUse
		u.ID = first
		blocks[at] = sdk.ContentBlockParamUnion{OfToolUse: &u}
		if i+1 < len(turns) {
			next := mutableBlocks(turns[i+1])
			for n, b := range next {
				if b.OfToolResult != nil && b.OfToolResult.ToolUseID == old {
					r := *b.OfToolResult
					r.ToolUseID = first
					next[n] = sdk.ContentBlockParamUnion{OfToolResult: &r}
				}
			}
		}
		return
	}
}

// nullIn reports whether h holds a block, or a tool_result content block,
// with no variant: what Convert must refuse.
func nullIn(h History) bool {
	for _, m := range h.Messages {
		for _, b := range mutableBlocks(m) {
			if b.GetType() == nil && string(mustJSON(b)) == "null" {
				return true
			}
			if r := b.OfToolResult; r != nil {
				for _, c := range r.Content {
					if c.GetType() == nil && string(mustJSON(c)) == "null" {
						return true
					}
				}
			}
		}
	}
	return false
}

func mustJSON(v any) []byte {
	data, _ := json.Marshal(v)
	return data
}

// resultKeys counts h's tool_results by id, is_error and cache_control.
func resultKeys(h History) map[string]int {
	out := map[string]int{}
	for _, m := range h.Messages {
		for _, b := range mutableBlocks(m) {
			if r := b.OfToolResult; r != nil {
				out[resultKey(r)]++
			}
		}
	}
	return out
}

func resultKey(r *sdk.ToolResultBlockParam) string {
	return r.ToolUseID + "\x00" + string(mustJSON(r.IsError)) + "\x00" + string(mustJSON(r.CacheControl))
}
