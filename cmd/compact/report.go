package main

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/contextkit/compact/internal/english"
)

// report is what -json-report writes for one input. Indexes are input
// indexes, inclusive; with repairs they index the history after repair.
type report struct {
	File   string `json:"file,omitempty"`
	Output string `json:"output,omitempty"`
	Format string `json:"format,omitempty"`
	Error  string `json:"error,omitempty"` // set only for a file a batch could not compact

	BeforeMessages int `json:"before_messages"`
	AfterMessages  int `json:"after_messages"`
	BeforeTokens   int `json:"before_tokens"`
	AfterTokens    int `json:"after_tokens"`

	Encoding  string `json:"encoding,omitempty"`
	Model     string `json:"model,omitempty"`
	Window    int    `json:"window"`
	Threshold int    `json:"threshold"`
	// Adjusted names each setting the library moved from what was asked
	// (compact.Status.Adjusted).
	Adjusted []string `json:"adjusted,omitempty"`
	fit               // fits, usable, overflow, too_large

	Compacted      bool   `json:"compacted"`
	Note           string `json:"note,omitempty"`
	SummarizedFrom int    `json:"summarized_from"`
	SummarizedTo   int    `json:"summarized_to"`
	SummaryIndex   int    `json:"summary_index"`
	SummaryTokens  int    `json:"summary_tokens"`
	Lifted         int    `json:"lifted"`
	Carried        int    `json:"carried"`
	Pruned         int    `json:"pruned"`            // messages pruning changed
	PrunedTokens   int    `json:"pruned_tokens"`     // tokens those changes reclaimed
	Summary        string `json:"summary,omitempty"` // the summary's body, without prefix or carried messages
	Summarizer     string `json:"summarizer"`
	Fallback       bool   `json:"fallback"`
	FallbackReason string `json:"fallback_reason,omitempty"`

	// Messages is the per-message account: each input message's fate.
	Messages      []messageReport `json:"messages,omitempty"`
	Prunes        []pruneReport   `json:"prunes,omitempty"`
	Repairs       []repairReport  `json:"repairs,omitempty"`
	DroppedFields []string        `json:"dropped_fields,omitempty"`

	CompactMillis float64 `json:"compact_ms"`
	TotalMillis   float64 `json:"total_ms"`
}

// repairReport is one change -repair made.
type repairReport struct {
	Index      int    `json:"index"`
	Kind       string `json:"kind"`
	ToolCallID string `json:"tool_call_id,omitempty"`
	Detail     string `json:"detail"`
}

// pruneReport is one message pruning changed.
type pruneReport struct {
	Index        int    `json:"index"`
	Kind         string `json:"kind"`
	Tool         string `json:"tool,omitempty"`
	ToolCallID   string `json:"tool_call_id,omitempty"`
	TokensBefore int    `json:"tokens_before"`
	TokensAfter  int    `json:"tokens_after"`
	Note         string `json:"note,omitempty"`
}

// newReport describes oc, redacted.
func newReport(oc *outcome) report {
	r := report{
		Format:         oc.in.format,
		BeforeMessages: len(oc.in.msgs), AfterMessages: len(oc.out),
		BeforeTokens: oc.tokensIn, AfterTokens: oc.after,
		Encoding: oc.encoding, Model: oc.model, Window: oc.window, Threshold: oc.threshold, Adjusted: oc.adjusted,
		fit:            oc.fit,
		Messages:       oc.account,
		Note:           oc.note,
		SummarizedFrom: -1, SummarizedTo: -1, SummaryIndex: -1, Lifted: -1,
		DroppedFields: oc.in.dropped,
		TotalMillis:   millis(oc.elapsed),
	}
	for _, rp := range oc.repairs {
		r.Repairs = append(r.Repairs, repairReport{Index: rp.Index, Kind: rp.Kind.String(), ToolCallID: rp.ToolCallID, Detail: rp.Detail})
	}
	for _, p := range oc.pruned {
		r.Prunes = append(r.Prunes, pruneReport{Index: p.Index, Kind: p.Kind.String(), Tool: p.Tool, ToolCallID: p.ToolCallID,
			TokensBefore: p.TokensBefore, TokensAfter: p.TokensAfter, Note: p.Note})
		r.PrunedTokens += p.TokensBefore - p.TokensAfter
	}
	r.Pruned = len(oc.pruned)
	r.Compacted = len(oc.pruned) > 0
	r.CompactMillis = millis(oc.pruneTime)
	if res := oc.res; res != nil {
		r.Compacted = true
		r.SummarizedFrom, r.SummarizedTo, r.SummaryIndex = res.SummarizedFrom, res.SummarizedTo, res.SummaryIndex
		r.Lifted, r.Carried = res.Lifted, res.Carried
		r.Summarizer, r.Fallback, r.FallbackReason = res.Summarizer, res.Fallback, res.FallbackReason
		r.Summary = res.Summary
		r.CompactMillis = millis(res.Duration)
		if res.SummaryIndex >= 0 && res.SummaryIndex < len(res.Messages) {
			r.SummaryTokens = oc.tc.CountMessage(res.Messages[res.SummaryIndex])
		}
	}
	return r.redacted()
}

func millis(d time.Duration) float64 {
	return float64(d.Microseconds()) / 1000
}

// writeHuman writes the -report block for one input; explain adds the
// per-message table.
func (r report) writeHuman(out io.Writer, name string, explain bool) {
	var b strings.Builder
	defer func() { say(out, "%s", b.String()) }()
	w := &b
	fmt.Fprintf(w, "compact: %s (%s)\n", name, r.Format)
	row := func(label, format string, args ...any) {
		fmt.Fprintf(w, "  %-11s %s\n", label, fmt.Sprintf(format, args...))
	}
	row("before", "%s, %s (%s)", plural(r.BeforeMessages, "message"), plural(r.BeforeTokens, "token"), r.Encoding)
	row("after", "%s, %s (%s)", plural(r.AfterMessages, "message"), plural(r.AfterTokens, "token"), change(r.BeforeTokens, r.AfterTokens))
	row("threshold", "%s of a %s-token window", plural(r.Threshold, "token"), thousands(r.Window))
	for _, a := range r.Adjusted {
		row("adjusted", "%s", a)
	}
	row("fits", "%s", r.fit.text())
	for _, rp := range r.Repairs {
		row("repaired", "input message %d: %s", rp.Index, rp.Detail)
	}
	switch {
	case !r.Compacted:
		row("result", "%s", r.Note)
	case r.SummaryIndex < 0:
		row("summarised", "nothing: pruning alone did it, no summarizer ran")
	default:
		row("summarised", "input messages %d-%d (%d) into output message %d (%s)",
			r.SummarizedFrom, r.SummarizedTo, r.SummarizedTo-r.SummarizedFrom+1, r.SummaryIndex, plural(r.SummaryTokens, "token"))
	}
	if r.Compacted {
		if r.Lifted >= 0 {
			row("lifted", "the latest user message (input %d), verbatim right after the summary", r.Lifted)
		}
		if r.Carried > 0 {
			row("carried", "%s, verbatim inside the summary", plural(r.Carried, "earlier user message"))
		}
		row("pruned", "%s", r.prunedText())
		s := r.Summarizer
		if r.Fallback {
			s += " (fallback: " + r.FallbackReason + ")"
		}
		if s == "" {
			s = "none"
		}
		row("summarizer", "%s", s)
	}
	if len(r.DroppedFields) > 0 {
		row("not kept", "fields the output format has no place for: %s", strings.Join(r.DroppedFields, ", "))
	}
	if explain {
		writeAccount(w, r.Messages)
	}
	if r.Compacted {
		row("time", "%s (compaction %s)", fmtMillis(r.TotalMillis), fmtMillis(r.CompactMillis))
		if r.SummaryIndex >= 0 {
			writeSummary(w, r.Summary, r.SummaryIndex)
		}
	} else {
		row("time", "%s", fmtMillis(r.TotalMillis))
	}
}

// prunedText sums up the pruning: how many messages, the tokens
// reclaimed, and how many of each kind of change.
func (r report) prunedText() string {
	if r.Pruned == 0 {
		return "nothing"
	}
	kinds := map[string]int{}
	var order []string
	for _, p := range r.Prunes {
		if kinds[p.Kind] == 0 {
			order = append(order, p.Kind)
		}
		kinds[p.Kind]++
	}
	parts := make([]string, len(order))
	for i, k := range order {
		parts[i] = plural(kinds[k], k)
	}
	return fmt.Sprintf("%s, %s reclaimed: %s", plural(r.Pruned, "message"), plural(r.PrunedTokens, "token"), strings.Join(parts, ", "))
}

// summaryLines is how much of the summary -report shows.
const summaryLines = 24

// writeSummary shows the summary's body, indented, its first summaryLines
// lines.
func writeSummary(w *strings.Builder, body string, at int) {
	lines := strings.Split(strings.TrimSpace(body), "\n")
	fmt.Fprintln(w, "  summary:")
	for i, l := range lines {
		if i == summaryLines {
			fmt.Fprintf(w, "    … %s (output message %d has it all)\n", plural(len(lines)-i, "more line"), at)
			break
		}
		fmt.Fprintln(w, "    "+l)
	}
}

// line is the one-line form a batch prints per file.
func (r report) line() string {
	if !r.Compacted {
		return fmt.Sprintf("%s: %s, %s: %s", r.File, plural(r.BeforeMessages, "message"), plural(r.BeforeTokens, "token"), r.Note)
	}
	how := fmt.Sprintf("summarised %d-%d, %s", r.SummarizedFrom, r.SummarizedTo, r.Summarizer)
	if r.SummaryIndex < 0 {
		how = "pruned only"
	}
	if r.Pruned > 0 {
		how += fmt.Sprintf(", %d pruned", r.Pruned)
	}
	s := fmt.Sprintf("%s: %s -> %s, %s -> %s (%s), %s",
		r.File, thousands(r.BeforeMessages), plural(r.AfterMessages, "message"), thousands(r.BeforeTokens), plural(r.AfterTokens, "token"),
		change(r.BeforeTokens, r.AfterTokens), how)
	if r.Fallback {
		s += " (fallback)"
	}
	return s + ", " + fmtMillis(r.TotalMillis)
}

func fmtMillis(ms float64) string {
	if ms >= 1000 {
		return strconv.FormatFloat(ms/1000, 'f', 2, 64) + "s"
	}
	return strconv.FormatFloat(ms, 'f', 1, 64) + "ms"
}

// change is the relative change from a to b, as "-65.4%".
func change(a, b int) string {
	if a == 0 {
		return "±0%"
	}
	pct := 100 * float64(b-a) / float64(a)
	if pct == 0 {
		return "±0%"
	}
	return strconv.FormatFloat(pct, 'f', 1, 64) + "%"
}

// thousands writes n with comma separators: 128,000.
func thousands(n int) string {
	s := strconv.Itoa(n)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}

// plural is n, with thousands separators, and noun, in the plural unless
// n is 1: "1 message", "2,048 tokens", "3 summaries". A noun already in
// the plural ("shortened tool arguments") is left as it is.
func plural(n int, noun string) string {
	if strings.HasSuffix(noun, "s") {
		return thousands(n) + " " + noun
	}
	return thousands(n) + " " + english.Noun(n, noun)
}
