package session

import (
	"context"

	"github.com/contextkit/compact"
)

// This file works out which log records the summaries of a compaction stand
// for, the range Compaction.FoldedFrom and FoldedThrough record, and writes
// the recall line that names it when recall is on.

// foldedOf is the range the summaries of compaction n stand for; zero when
// its Live holds none.
type foldedOf struct {
	n int
	r seqRange
}

// settle returns a copy of res, the engine's compaction of live (the live
// history after compaction n, up to record through, as the store gave it;
// the engine saw it without recall lines, which lines lists), and the range
// of log records the summaries in it stand for. With recall on, every
// summary kept from live gets its recall line back, and the new summary
// ends with one naming what it folded; or, when the compaction is native
// (a provider's, whose summary is not ours to edit), the system prompt
// does. A system prompt's line stays only while no new summary replaces
// the one it names.
func (s *Session) settle(ctx context.Context, live []compact.Message, through int64, n int, res *compact.Result,
	lines []keptLine, native bool) (*compact.Result, seqRange) {
	out := *ownResult(res)
	fresh := reportedSummary(&out)
	restored := restoreRecallLines(out.Messages, fresh, lines)
	var (
		prev      seqRange
		prevKnown bool
		asked     bool
	)
	previous := func() (seqRange, bool) {
		if !asked {
			asked = true
			prev, prevKnown = s.prevFolded(ctx, n)
		}
		return prev, prevKnown
	}
	var folded seqRange
	at := newSummaryIndex(&out, restored)
	if at >= 0 {
		folded = seqRange{From: 1, To: through}
		if fresh >= 0 {
			// An engine that reports its summary reports what it folded;
			// for one that does not, the zero indexes mean nothing.
			folded = s.foldedRange(ctx, live, through, res, previous)
		}
		if s.recall && !native {
			before := out.Messages[at]
			out.Messages[at] = addRecallLine(before, recallLine(folded.From, folded.To))
			out.TokensAfter += s.counter.CountMessage(out.Messages[at]) - s.counter.CountMessage(before)
		}
	}
	line := recallLine(folded.From, folded.To)
	for i, m := range out.Messages {
		if i == at || !compact.IsSummary(m) {
			continue
		}
		// A summary kept from live stands for what the one before did.
		kept, ok := previous()
		if !ok {
			kept = seqRange{From: 1, To: through}
			if from, to, ok := parseRecallLine(m); ok && from >= 1 && from <= to && to <= through {
				kept = seqRange{From: from, To: to}
			}
		}
		folded = hull(folded, kept)
	}
	if s.recall {
		switch {
		case native && at >= 0:
			s.addSystemLine(&out, line)
		case at < 0:
			restoreSystemLine(out.Messages, lines)
		}
	}
	return &out, folded
}

// addSystemLine ends the system prompt of out with line. A history without
// a system prompt gets no line: a system message of the session's own
// would be left empty once a later compaction took the line off, and the
// recall tools describe themselves.
func (s *Session) addSystemLine(out *compact.Result, line string) {
	if len(out.Messages) == 0 || out.Messages[0].Role != compact.RoleSystem {
		s.log.Debug("no system prompt to carry the recall line")
		return
	}
	before := out.Messages[0]
	out.Messages[0] = addLine(before, line)
	out.TokensAfter += s.counter.CountMessage(out.Messages[0]) - s.counter.CountMessage(before)
}

// restoreSystemLine gives the system prompt of msgs its recall line back
// when it is the one lines took it from.
func restoreSystemLine(msgs []compact.Message, lines []keptLine) {
	if len(msgs) == 0 || msgs[0].Role != compact.RoleSystem {
		return
	}
	for _, k := range lines {
		if k.original.Role == compact.RoleSystem && sameMessage(msgs[0], k.stripped) {
			msgs[0] = k.original
			return
		}
	}
}

// prevFolded returns the range the summaries of compaction n stand for, and
// whether it is known: from this Session's own commit, or from the store.
// A compaction committed before stores recorded the range is not known.
func (s *Session) prevFolded(ctx context.Context, n int) (seqRange, bool) {
	if n == 0 {
		return seqRange{}, false
	}
	s.mu.Lock()
	f := s.folded
	s.mu.Unlock()
	if f.n != n {
		comps, err := s.store.Compactions(ctx, s.id)
		if err != nil || len(comps) < n {
			if err != nil {
				s.log.Warn("reading the compaction before failed; widening the folded range", errAttr(err))
			}
			return seqRange{}, false
		}
		f = foldedOf{n: n, r: seqRange{From: comps[n-1].FoldedFrom, To: comps[n-1].FoldedThrough}}
	}
	return f.r, f.r.From >= 1 && f.r.To >= f.r.From
}

// hull is the smallest range holding a and b; a zero range holds nothing.
func hull(a, b seqRange) seqRange {
	switch {
	case a.To == 0:
		return b
	case b.To == 0:
		return a
	}
	return seqRange{From: min(a.From, b.From), To: max(a.To, b.To)}
}
