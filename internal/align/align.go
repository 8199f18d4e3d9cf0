// Package align lines up the messages an engine returned with the messages
// it was given, the way diff does, so that the SDK adapters can hand back the
// original value of every message the engine kept. It is shared by the
// adapter modules (adapt/anthropic, adapt/openaigo, adapt/genai) and is not part of the
// public API.
package align

import (
	openai "github.com/sashabaranov/go-openai"

	"github.com/contextkit/compact"
)

// maxAlignCells bounds the table Messages fills for the part of a history
// between what the output kept at its start and at its end: 4M cells of 4
// bytes, 16 MB. The Compressor's middle is the summary and at most one
// lifted message, so a real compaction fills a few thousand; past the bound
// Messages falls back to matching in order.
const maxAlignCells = 4 << 20

// Messages lines out up with in the way diff does. It returns, for each
// message of out, the index of the message of in it reproduces unchanged
// (match), or else of the message it takes the place of (sub: an edit that
// replaced one message by another), or -1. Indexes increase, so messages
// never cross. Among equally short edit scripts it prefers the one that
// matches the latest input message, since a compaction keeps the end of a
// history and summarises the part before it.
func Messages(in, out []compact.Message) (match, sub []int) {
	match, sub = make([]int, len(out)), make([]int, len(out))
	for i := range match {
		match[i], sub[i] = -1, -1
	}
	// What the output kept at its start and at its end.
	pre := 0
	for pre < len(in) && pre < len(out) && SameMessage(in[pre], out[pre]) {
		match[pre] = pre
		pre++
	}
	suf := 0
	for suf < len(in)-pre && suf < len(out)-pre && SameMessage(in[len(in)-1-suf], out[len(out)-1-suf]) {
		match[len(out)-1-suf] = len(in) - 1 - suf
		suf++
	}
	a, b := in[pre:len(in)-suf], out[pre:len(out)-suf]
	if len(a) == 0 || len(b) == 0 {
		return match, sub
	}
	var mid, midSub []int
	if (len(a)+1)*(len(b)+1) > maxAlignCells {
		mid, midSub = alignGreedy(a, b)
	} else {
		mid, midSub = alignTable(a, b)
	}
	for i := range mid {
		if mid[i] >= 0 {
			match[pre+i] = pre + mid[i]
		}
		if midSub[i] >= 0 {
			sub[pre+i] = pre + midSub[i]
		}
	}
	return match, sub
}

// alignTable is the middle of Messages: an edit-distance table (insertions,
// deletions and substitutions cost one, matches nothing) traced back from
// the end.
func alignTable(a, b []compact.Message) (match, sub []int) {
	n, m := len(b), len(a)
	w := m + 1
	d := make([]int32, (n+1)*w)
	for j := 0; j <= m; j++ {
		d[j] = int32(j)
	}
	for i := 1; i <= n; i++ {
		d[i*w] = int32(i)
		for j := 1; j <= m; j++ {
			best := min(d[(i-1)*w+j], d[i*w+j-1]) + 1
			diag := d[(i-1)*w+j-1] + 1
			if SameMessage(a[j-1], b[i-1]) {
				diag--
			}
			d[i*w+j] = min(best, diag)
		}
	}
	match, sub = make([]int, n), make([]int, n)
	for i := range match {
		match[i], sub[i] = -1, -1
	}
	i, j := n, m
	for i > 0 && j > 0 {
		cur := d[i*w+j]
		switch {
		case d[(i-1)*w+j-1] == cur && SameMessage(a[j-1], b[i-1]):
			match[i-1] = j - 1
			i, j = i-1, j-1
		case d[i*w+j-1]+1 == cur:
			j-- // input message j-1 is gone
		case d[(i-1)*w+j-1]+1 == cur:
			sub[i-1] = j - 1
			i, j = i-1, j-1 // replaced
		default:
			i-- // output message i-1 is new
		}
	}
	return match, sub
}

// alignGreedy matches each output message with the next equal input
// message, for middles too large for a table. It finds no replacements.
func alignGreedy(a, b []compact.Message) (match, sub []int) {
	match, sub = make([]int, len(b)), make([]int, len(b))
	next := 0
	for i, m := range b {
		match[i], sub[i] = -1, -1
		for j := next; j < len(a); j++ {
			if SameMessage(a[j], m) {
				match[i], next = j, j+1
				break
			}
		}
	}
	return match, sub
}

// SameMessage reports whether a and b are the same message, field by field,
// with nil and empty slices alike.
func SameMessage(a, b compact.Message) bool {
	if a.Role != b.Role || a.Content != b.Content || a.Refusal != b.Refusal || a.Name != b.Name ||
		a.ReasoningContent != b.ReasoningContent || a.ToolCallID != b.ToolCallID ||
		len(a.MultiContent) != len(b.MultiContent) || len(a.ToolCalls) != len(b.ToolCalls) {
		return false
	}
	if (a.FunctionCall == nil) != (b.FunctionCall == nil) || (a.FunctionCall != nil && *a.FunctionCall != *b.FunctionCall) {
		return false
	}
	for i, p := range a.MultiContent {
		if !SamePart(p, b.MultiContent[i]) {
			return false
		}
	}
	for i, c := range a.ToolCalls {
		if !SameCall(c, b.ToolCalls[i]) {
			return false
		}
	}
	return true
}

// SamePart reports whether p and q are the same part, images compared by value.
func SamePart(p, q openai.ChatMessagePart) bool {
	if p.Type != q.Type || p.Text != q.Text || (p.ImageURL == nil) != (q.ImageURL == nil) {
		return false
	}
	return p.ImageURL == nil || *p.ImageURL == *q.ImageURL
}

// SameCall reports whether c and d are the same tool call, the index compared
// by value.
func SameCall(c, d openai.ToolCall) bool {
	if c.ID != d.ID || c.Type != d.Type || c.Function != d.Function || (c.Index == nil) != (d.Index == nil) {
		return false
	}
	return c.Index == nil || *c.Index == *d.Index
}
