package session

import (
	"context"
	"errors"
	"fmt"
	"reflect"

	"github.com/contextkit/compact"
	"github.com/contextkit/compact/redact"
)

// redactPage is how many records a redaction reads and rewrites at a time.
const redactPage = 256

// WithRedactAtRest sets whether the Session rewrites, in its store, the
// records each compaction folds, through package redact (RedactMessage),
// as soon as the compaction is committed: the store then keeps no
// credential the model no longer reads verbatim (its old bytes stay in
// the store's free space until it is vacuumed; see the package doc), and
// recall searches and expands the redacted text. Records in the live
// history stay verbatim: the model needs them. The store must be a
// Rewriter, or Open fails with an error wrapping errors.ErrUnsupported. A
// redaction that fails (the store, or ctx) is logged and leaves the
// compaction committed; RedactFolded catches up. Off by default: the store
// keeps every message verbatim until the session is deleted or its records
// expire. Without a store nothing is kept at rest and the option does
// nothing.
func WithRedactAtRest(on bool) Option {
	return func(c *config) { c.redactAtRest = on }
}

// RedactMessage returns a copy of m with the secrets package redact
// recognises removed: its content, refusal, reasoning and text parts
// through redact.String, its tool calls' arguments through redact.JSON,
// which keeps them valid JSON. It never modifies m.
func RedactMessage(m compact.Message) compact.Message {
	out := cloneMessage(m)
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
	if err := checkSessionID(id); err != nil {
		return 0, fmt.Errorf("session: redact: %w", err)
	}
	rw, ok := st.(Rewriter)
	if !ok {
		return 0, fmt.Errorf("session: redact %q: %w: the store %T cannot rewrite records", id, errors.ErrUnsupported, st)
	}
	comps, err := st.Compactions(ctx, id)
	if err != nil {
		return 0, fmt.Errorf("session: redact %q: %w", id, err)
	}
	var ranges []seqRange
	for _, c := range comps {
		if c.FoldedFrom > 0 {
			ranges = append(ranges, seqRange{From: c.FoldedFrom, To: c.FoldedThrough})
		}
	}
	changed := 0
	for _, r := range mergeRanges(ranges) {
		n, err := redactRange(ctx, st, rw, id, r.From, r.To)
		changed += n
		if err != nil {
			return changed, fmt.Errorf("session: redact %q: %w", id, err)
		}
	}
	return changed, nil
}

// mergeRanges returns the union of rs, sorted, overlapping and adjacent
// ranges joined.
func mergeRanges(rs []seqRange) []seqRange {
	sorted := append([]seqRange(nil), rs...)
	for i := 1; i < len(sorted); i++ {
		for j := i; j > 0 && sorted[j].From < sorted[j-1].From; j-- {
			sorted[j], sorted[j-1] = sorted[j-1], sorted[j]
		}
	}
	var out []seqRange
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

// redactCommitted redacts the records compaction n's summaries fold that
// no compaction before it folded (all of its range when the earlier one's
// is unknown), after the commit: see WithRedactAtRest.
func (s *Session) redactCommitted(ctx context.Context, prev foldedOf, n int, folded seqRange) {
	if !s.redactAtRest || folded.From == 0 {
		return
	}
	from := folded.From
	if prev.n == n-1 && prev.r.To >= from {
		from = prev.r.To + 1
	}
	if from > folded.To {
		return
	}
	changed, err := redactRange(ctx, s.store, s.store.(Rewriter), s.id, from, folded.To)
	if err != nil {
		s.log.Warn("redacting the records a compaction folded failed; RedactFolded catches up", "compaction", n, errAttr(err))
		return
	}
	s.log.Debug("redacted folded records", "compaction", n, "from", from, "through", folded.To, "changed", changed)
}
