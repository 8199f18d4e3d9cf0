package main

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/contextkit/compact"
	"github.com/contextkit/compact/redact"
)

// messageReport is what a compaction did with one input message, as
// -json-report writes it (see compact.MessageFate).
type messageReport struct {
	Index  int    `json:"index"`
	Role   string `json:"role"`
	Tool   string `json:"tool,omitempty"`
	Tokens int    `json:"tokens"`
	Fate   string `json:"fate"`
	Pruned string `json:"pruned,omitempty"` // how pruning changed it
	Output int    `json:"output"`           // its index in the history written (the summary's when folded or carried); -1 when dropped
}

// accountOf is oc's per-message account: the library's, or, when it did
// not compact (or pruning ran alone), every message in place, kept or
// pruned. Indexes are those of the history compacted (the input after
// repair).
func accountOf(oc *outcome) []messageReport {
	if oc.res != nil && oc.res.Account != nil {
		out := make([]messageReport, len(oc.res.Account))
		for i, a := range oc.res.Account {
			out[i] = messageReport{Index: a.Index, Role: a.Role, Tool: a.Tool, Tokens: a.Tokens, Fate: a.Fate, Output: a.Output}
			if a.Fate == "pruned" {
				out[i].Pruned = a.Prune.String()
			}
		}
		return out
	}
	pruned := map[int]string{}
	for _, p := range oc.pruned {
		pruned[p.Index] = p.Kind.String()
	}
	names := toolNames(oc.hist)
	out := make([]messageReport, len(oc.hist))
	for i, m := range oc.hist {
		out[i] = messageReport{Index: i, Role: m.Role, Tool: names[i], Tokens: oc.tc.CountMessage(m), Fate: "kept", Output: i}
		if k, ok := pruned[i]; ok {
			out[i].Fate, out[i].Pruned = "pruned", k
		}
	}
	return out
}

// toolNames returns, for each message, the tool a result answers or the
// tools an assistant turn calls.
func toolNames(msgs []compact.Message) []string {
	names := make([]string, len(msgs))
	byID := map[string]string{}
	for i, m := range msgs {
		if len(m.ToolCalls) > 0 {
			calls := make([]string, len(m.ToolCalls))
			for k, c := range m.ToolCalls {
				calls[k] = c.Function.Name
				byID[c.ID] = c.Function.Name
			}
			names[i] = strings.Join(calls, ", ")
		}
		if m.ToolCallID != "" {
			names[i] = byID[m.ToolCallID]
		}
	}
	return names
}

// redactedMessages returns ms with every field that can quote the
// conversation redacted.
func redactedMessages(ms []messageReport) []messageReport {
	out := append([]messageReport(nil), ms...)
	for i := range out {
		out[i].Tool = redact.String(out[i].Tool)
	}
	return out
}

// explainBelow is the input size up to which -report prints the account
// table without -explain: a table a person reads at a glance.
const explainBelow = 40

// writeAccount writes the account as a compact table: one row per
// message, runs of messages that share a fate and an output (the folded
// middle) in one row.
func writeAccount(w *strings.Builder, ms []messageReport) {
	fmt.Fprintln(w, "  messages:")
	fmt.Fprintf(w, "    %-9s %-10s %-18s %8s  %-30s %s\n", "input", "role", "tool", "tokens", "fate", "output")
	for i := 0; i < len(ms); {
		j, tokens := i, 0
		for j < len(ms) && ms[j].Fate == ms[i].Fate && ms[j].Output == ms[i].Output && (ms[i].Fate == "folded" || j == i) {
			tokens += ms[j].Tokens
			j++
		}
		at, role, tool := strconv.Itoa(i), ms[i].Role, ms[i].Tool
		if j-i > 1 {
			at, role, tool = fmt.Sprintf("%d-%d", i, j-1), fmt.Sprintf("(%d)", j-i), ""
		}
		fate := ms[i].Fate
		if ms[i].Pruned != "" {
			fate += ": " + ms[i].Pruned
		}
		out := "-"
		if ms[i].Output >= 0 {
			out = strconv.Itoa(ms[i].Output)
		}
		fmt.Fprintf(w, "    %-9s %-10s %-18s %8s  %-30s %s\n", at, role, cut(tool, 18), thousands(tokens), fate, out)
		i = j
	}
}

// cut shortens s to n runes, with an ellipsis.
func cut(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}
