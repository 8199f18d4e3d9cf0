package store

import (
	"context"
	"errors"
	"fmt"
	"reflect"

	"github.com/contextkit/compact"
	"github.com/contextkit/compact/redact"
)

// foldRange is a range of seqs a compaction folded.
type foldRange struct{ From, To int64 }

// redactPage is how many records a redaction reads and rewrites at a time.
const redactPage = 256

// RedactMessage returns a copy of m with the secrets package redact
// recognises removed: its content, refusal, reasoning and text parts
// through redact.String, its tool calls' arguments through redact.JSON,
// which keeps them valid JSON. It never modifies m.
func RedactMessage(m compact.Message) compact.Message {
	out := compact.Clone([]compact.Message{m})[0]
	out.Content = redactKept(out.Content, redact.String)
	out.Refusal = redactKept(out.Refusal, redact.String)
	out.ReasoningContent = redactKept(out.ReasoningContent, redact.String)
	for i := range out.MultiContent {
		out.MultiContent[i].Text = redactKept(out.MultiContent[i].Text, redact.String)
	}
	for i := range out.ToolCalls {
		out.ToolCalls[i].Function.Arguments = redactKept(out.ToolCalls[i].Function.Arguments, redact.JSON)
	}
	if out.FunctionCall != nil {
		out.FunctionCall.Arguments = redactKept(out.FunctionCall.Arguments, redact.JSON)
	}
	return out
}

// redactKept is f(s), or s when it has nothing to redact.
func redactKept(s string, f func(string) string) string {
	if s == "" {
		return s
	}
	return f(s)
}

// RedactFolded rewrites, in st, every record of session id that a
// compaction has folded through RedactMessage, and returns how many it
// changed: the sweep that redacts an archive written before
// WithRedactAtRest was on, or one whose redaction failed. Records the
// live history holds are left verbatim. st must be a Rewriter, or the
// error wraps errors.ErrUnsupported.
func RedactFolded(ctx context.Context, st Store, id string) (int, error) {
	if err := CheckID(id); err != nil {
		return 0, fmt.Errorf("store: redact: %w", err)
	}
	rw, ok := st.(Rewriter)
	if !ok {
		return 0, fmt.Errorf("store: redact %q: %w: the store %T cannot rewrite records", id, errors.ErrUnsupported, st)
	}
	comps, err := st.Compactions(ctx, id)
	if err != nil {
		return 0, fmt.Errorf("store: redact %q: %w", id, err)
	}
	var ranges []foldRange
	for _, c := range comps {
		if c.FoldedFrom > 0 {
			ranges = append(ranges, foldRange{From: c.FoldedFrom, To: c.FoldedThrough})
		}
	}
	changed := 0
	for _, r := range mergeRanges(ranges) {
		n, err := redactRange(ctx, st, rw, id, r.From, r.To)
		changed += n
		if err != nil {
			return changed, fmt.Errorf("store: redact %q: %w", id, err)
		}
	}
	return changed, nil
}

// mergeRanges returns the union of rs, sorted, overlapping and adjacent
// ranges joined.
func mergeRanges(rs []foldRange) []foldRange {
	sorted := append([]foldRange(nil), rs...)
	for i := 1; i < len(sorted); i++ {
		for j := i; j > 0 && sorted[j].From < sorted[j-1].From; j-- {
			sorted[j], sorted[j-1] = sorted[j-1], sorted[j]
		}
	}
	var out []foldRange
	for _, r := range sorted {
		if n := len(out); n > 0 && r.From <= out[n-1].To+1 {
			out[n-1].To = max(out[n-1].To, r.To)
			continue
		}
		out = append(out, r)
	}
	return out
}

// redactRange rewrites the records from through to of session id that
// RedactMessage changes, a page at a time, and returns how many.
func redactRange(ctx context.Context, st Store, rw Rewriter, id string, from, to int64) (int, error) {
	changed := 0
	for p := from; p <= to; p += redactPage {
		recs, err := st.Read(ctx, id, p, min(to, p+redactPage-1))
		if err != nil {
			return changed, err
		}
		var out []Record
		for _, r := range recs {
			if m := RedactMessage(r.Message); !reflect.DeepEqual(m, r.Message) {
				r.Message = m
				out = append(out, r)
			}
		}
		if len(out) == 0 {
			continue
		}
		if err := rw.Rewrite(ctx, id, out); err != nil {
			return changed, err
		}
		changed += len(out)
	}
	return changed, nil
}

// RedactRange rewrites, in st, the records from through to of session id
// that RedactMessage changes, a page at a time, and returns how many: what
// a Session with redaction at rest runs as each compaction commits, over
// the records it folded. st must be a Rewriter (which refuses a record no
// compaction folded), or the error wraps errors.ErrUnsupported.
func RedactRange(ctx context.Context, st Store, id string, from, to int64) (int, error) {
	rw, ok := st.(Rewriter)
	if !ok {
		return 0, fmt.Errorf("store: redact %q: %w: the store %T cannot rewrite records", id, errors.ErrUnsupported, st)
	}
	return redactRange(ctx, st, rw, id, from, to)
}
