package storetest

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/contextkit/compact"
	"github.com/contextkit/compact/internal/msg"
	"github.com/contextkit/compact/session/store"
)

// maxAuditProblems bounds the problems Audit lists for one compaction: past
// a few, more of the same says nothing new.
const maxAuditProblems = 5

// Audit checks, from the store alone, that every compaction of session id
// accounts for every record it covers: each record up to the compaction's
// Through lies in the range its summaries stand for (FoldedFrom to
// FoldedThrough) or is carried in its Live, verbatim or pruned in place (a
// tool result under its call id, a tool call turn under its call ids, the
// system prompt with a compaction note after it, a user turn with the
// summary merged in front of it). Records a Reset cleared
// are not looked for in the compactions after it. It returns the problems
// found joined, each naming the compaction and the record; nil when a
// compaction loses nothing.
func Audit(ctx context.Context, st store.Store, id string) error {
	recs, err := st.Read(ctx, id, 1, 0)
	if err != nil {
		return fmt.Errorf("storetest: audit %q: %w", id, err)
	}
	comps, err := st.Compactions(ctx, id)
	if err != nil {
		return fmt.Errorf("storetest: audit %q: %w", id, err)
	}
	var (
		errs    []error
		cleared int64 // records up to this one were cleared by a Reset
	)
	for _, c := range comps {
		if c.Summarizer == store.ResetSummarizer {
			cleared = c.Through
			continue
		}
		if c.Through > int64(len(recs)) {
			errs = append(errs, fmt.Errorf("compaction %d covers records to %d, past the log's last, %d", c.N, c.Through, len(recs)))
			continue
		}
		carried := newCarriage(c.Live)
		var lost []int64
		for _, r := range recs[cleared:c.Through] {
			if c.FoldedFrom <= r.Seq && r.Seq <= c.FoldedThrough || carried.holds(r.Message) {
				continue
			}
			lost = append(lost, r.Seq)
		}
		if len(lost) > 0 {
			shown := lost[:min(len(lost), maxAuditProblems)]
			errs = append(errs, fmt.Errorf("compaction %d (folded %d-%d, %d messages live) accounts for none of %d records: %v",
				c.N, c.FoldedFrom, c.FoldedThrough, len(c.Live), len(lost), shown))
		}
	}
	if len(errs) > 0 {
		return fmt.Errorf("storetest: audit %q: %w", id, errors.Join(errs...))
	}
	return nil
}

// carriage is what a compaction's Live carries, looked up as Audit does.
type carriage struct {
	results map[string]bool // tool results by call id
	calls   map[string]bool // tool call turns by their call ids
	texts   map[string]bool // other messages by role and text
	prompts []string        // system messages' texts
}

func newCarriage(live []compact.Message) carriage {
	c := carriage{results: map[string]bool{}, calls: map[string]bool{}, texts: map[string]bool{}}
	for _, m := range live {
		switch {
		case m.Role == compact.RoleTool && m.ToolCallID != "":
			c.results[m.ToolCallID] = true
		case len(m.ToolCalls) > 0:
			c.calls[callIDs(m)] = true
		case m.Role == compact.RoleSystem:
			c.prompts = append(c.prompts, compact.Text(m))
		}
		c.texts[m.Role+"\x00"+compact.Text(m)] = true
		if _, own, ok := msg.SplitMerged(m); ok {
			c.texts[own.Role+"\x00"+compact.Text(own)] = true
		}
	}
	return c
}

// holds reports whether the Live carries m.
func (c carriage) holds(m compact.Message) bool {
	switch {
	case m.Role == compact.RoleTool && m.ToolCallID != "":
		return c.results[m.ToolCallID]
	case len(m.ToolCalls) > 0:
		return c.calls[callIDs(m)]
	case m.Role == compact.RoleSystem:
		text := compact.Text(m)
		return slices.ContainsFunc(c.prompts, func(p string) bool { return strings.HasPrefix(p, text) })
	}
	return c.texts[m.Role+"\x00"+compact.Text(m)]
}

func callIDs(m compact.Message) string {
	ids := make([]string, len(m.ToolCalls))
	for i, tc := range m.ToolCalls {
		ids[i] = tc.ID
	}
	return strings.Join(ids, "\x00")
}
