package session

import (
	"context"
	"fmt"
	"time"

	"github.com/contextkit/compact"
	"github.com/contextkit/compact/session/store"
)

type describeArgs struct {
	Cursor *cursor `json:"cursor,omitempty"`
}

type describeAnswer struct {
	Compactions []describedCompaction `json:"compactions"`
	Truncated   bool                  `json:"truncated,omitempty"`
	Next        *describeArgs         `json:"next,omitempty"`
	Note        string                `json:"note,omitempty"`
}

type describedCompaction struct {
	N  int       `json:"n"`
	At time.Time `json:"at"`
	// Folded is the range of seqs the compaction's summaries stand for;
	// nil when there is none (pruning alone was enough, or a Reset).
	Folded *seqRange `json:"folded,omitempty"`
	// New is the range of seqs the compaction read for the first time.
	New          seqRange `json:"new"`
	TokensBefore int      `json:"tokens_before"`
	TokensAfter  int      `json:"tokens_after"`
	Summarizer   string   `json:"summarizer,omitempty"`
	Note         string   `json:"note,omitempty"`
}

type seqRange struct {
	From int64 `json:"from"`
	To   int64 `json:"to"`
}

// describe answers context_describe in at most tokens tokens.
func (s *Session) describe(ctx context.Context, raw []byte, tokens int) (any, error) {
	var args describeArgs
	if err := decodeArgs(raw, &args); err != nil {
		return nil, err
	}
	after := 0
	if args.Cursor != nil {
		after = int(args.Cursor.seq)
	}
	comps, err := s.store.Compactions(ctx, s.id)
	if err != nil {
		return nil, err
	}
	b := s.newBudget(tokens, describeArgs{Cursor: &cursor{set: true, seq: maxSeq}})
	ans := describeAnswer{Compactions: []describedCompaction{}}
	for _, c := range comps {
		if c.N <= after {
			continue
		}
		d := describeCompaction(c)
		if !b.take(d) {
			ans.Truncated = true
			ans.Next = &describeArgs{Cursor: &cursor{set: true, seq: int64(c.N - 1)}}
			ans.Note = fmt.Sprintf("answer cut to fit %d tokens; call %s with next for the rest", s.toolBudget, ToolDescribe)
			return ans, nil
		}
		ans.Compactions = append(ans.Compactions, d)
	}
	if len(comps) == 0 {
		ans.Note = "this conversation has not been compacted; every message is in the live history"
	}
	return ans, nil
}

// describeCompaction is what the model is told of c.
func describeCompaction(c store.Compaction) describedCompaction {
	d := describedCompaction{
		N: c.N, At: c.At.UTC(), New: seqRange{From: c.From, To: c.Through},
		TokensBefore: c.TokensBefore, TokensAfter: c.TokensAfter, Summarizer: c.Summarizer,
	}
	switch {
	case c.Summarizer == store.ResetSummarizer:
		d.Note = "the conversation was reset: the live history was cleared, the archive kept"
	case c.From > c.Through:
		d.Note = "no new messages since the compaction before"
	}
	if c.FoldedThrough > 0 {
		d.Folded = &seqRange{From: c.FoldedFrom, To: c.FoldedThrough}
		return d
	}
	// A compaction committed before stores recorded the range: the line
	// its summary ends with names it, when recall was on.
	for i := len(c.Live) - 1; i >= 0; i-- {
		if from, to, ok := parseRecallLine(c.Live[i]); ok {
			d.Folded = &seqRange{From: from, To: to}
			break
		}
		if compact.IsSummary(c.Live[i]) {
			break // the newest summary names no range
		}
	}
	return d
}
