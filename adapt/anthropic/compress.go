package anthropic

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/contextkit/compact"
	"github.com/contextkit/compact/internal/align"
	"github.com/contextkit/compact/prune"
)

// Compress converts h, compacts it through engine and converts the result
// back: one call before a request. It returns the compacted history and the
// engine's Result, whose Messages are the compacted history in compact's
// form (SummarizedFrom and the other indexes count those messages, not
// turns).
//
// A history holding Anthropic's own compaction block (see NativeEngine) is
// judged by what the API reads of it: the system prompt, the newest block
// with a summary and everything after it; the API ignores what comes
// before that block. The engine gets only that part, and reads the block
// as a summary. When it compacts, the turns before the block are left out
// of the output and reported as folded (the block stands for them), and
// the engine folds the block into its own summary only if it must
// summarise: a history never holds compact's summary beside the
// provider's. When it does not compact, h comes back whole.
//
// It may be called before every request: when the engine does nothing (the
// Compressor under its threshold sets Result.Skipped and hands the messages
// back) Compress returns h itself. ShouldCompress asks the same question
// without a compaction. On error h is untouched and the caller keeps
// sending it. Errors are Convert's, the engine's (a *compact.ValidationError
// from the engine comes wrapped with the index of the turn behind it), and,
// when h has the Messages API's shape but the compacted history would not,
// an error wrapping ErrShape: the engine broke a contract.
func Compress(ctx context.Context, engine compact.ContextEngine, h History, opts ...compact.CompressOption) (History, *compact.Result, error) {
	conv, err := Convert(h)
	if err != nil {
		return History{}, nil, err
	}
	sub, dropped := conv.live()
	res, err := engine.Compress(ctx, sub.Messages, opts...)
	if err != nil {
		var ve *compact.ValidationError
		if errors.As(err, &ve) {
			if turn := sub.turnOf(ve.Index); turn >= 0 {
				return History{}, nil, fmt.Errorf("anthropic: History.Messages[%d]: %w", turn, err)
			}
		}
		return History{}, nil, err
	}
	if res == nil {
		return History{}, nil, fmt.Errorf("anthropic: engine %q returned no result and no error", engine.Name())
	}
	if res.Skipped != "" && len(res.Messages) == len(sub.Messages) {
		return h, conv.skipped(res, sub), nil
	}
	if res.Skipped != "" && sub != conv && len(res.Messages) > len(sub.Messages) {
		// Skipped with the incoming message appended: the turns before
		// the compaction block stay too.
		out, err := conv.Restore(conv.skipped(res, sub).Messages)
		if err != nil {
			return History{}, nil, err
		}
		return out, conv.skipped(res, sub), nil
	}
	out, err := sub.Restore(res.Messages)
	if err != nil {
		return History{}, nil, err
	}
	if Validate(h) == nil {
		if err := Validate(out); err != nil {
			return History{}, nil, fmt.Errorf("anthropic: engine %q: compacted history: %w", engine.Name(), err)
		}
	}
	return out, conv.wholeResult(res, sub, dropped), nil
}

// ShouldCompress reports whether engine wants h compacted before it is
// sent. An engine that can preflight (the Compressor can) counts the
// converted history (from the newest compaction block on, as the API reads
// it); any other engine judges by the usage it last recorded (see
// compact.ContextEngine.UpdateUsage and UsageFrom). It never calls a
// model. The error is Convert's.
func ShouldCompress(engine compact.ContextEngine, h History) (bool, error) {
	conv, err := Convert(h)
	if err != nil {
		return false, err
	}
	sub, _ := conv.live()
	return align.ShouldCompress(engine, sub.Messages), nil
}

// skipped is the Result of a compaction the engine skipped over sub, the
// live part of c: the engine's, with c's messages in place of sub's when
// the history holds turns before a compaction block (which come back with
// it).
func (c *Conversion) skipped(res *compact.Result, sub *Conversion) *compact.Result {
	if sub == c {
		return res
	}
	r := *res
	r.Messages = append(compact.Clone(c.views), res.Messages[len(sub.Messages):]...) // the incoming message, if any
	r.MessagesBefore, r.MessagesAfter = len(c.views), len(r.Messages)
	return &r
}

// wholeResult is res, the engine's result for sub, the live part of c, with
// its input indexes turned into c's, and the messages before the newest
// compaction block (dropped) reported as folded into the summary: the
// engine's own, or the compaction block itself when the engine kept it.
// res's output indexes need no change: the output is the engine's. The
// turns left out count no tokens in the account: the engine never read
// them, and neither does the API.
func (c *Conversion) wholeResult(res *compact.Result, sub *Conversion, dropped span) *compact.Result {
	if sub == c {
		return res
	}
	r := *res
	in := sub.originOf
	r.MessagesBefore = len(c.views)
	if r.SummarizedFrom >= 0 {
		r.SummarizedFrom, r.SummarizedTo = in(r.SummarizedFrom), in(r.SummarizedTo)
	}
	if r.SummaryIndex < 0 {
		// The block is sub's message dropped.from, right after the system
		// prompt, and c's message dropped.to.
		r.SummaryIndex = keptAt(res, dropped.from, c.views[dropped.to])
		if r.SummaryIndex >= 0 && r.Summarizer == "" {
			p := c.pieces[dropped.to]
			r.Summarizer = providerSummarizer
			r.Summary, _ = readCompaction(c.blocks[p.turn][p.from])
		}
	}
	if r.SummarizedFrom < 0 || dropped.from < r.SummarizedFrom {
		r.SummarizedFrom = dropped.from
	}
	if r.SummarizedTo < dropped.to-1 {
		r.SummarizedTo = dropped.to - 1
	}
	r.Lifted = in(r.Lifted)
	r.CarriedFrom = make([]int, len(res.CarriedFrom))
	for i, j := range res.CarriedFrom {
		r.CarriedFrom[i] = in(j)
	}
	r.Pruned = append([]prune.Change(nil), res.Pruned...)
	for i := range r.Pruned {
		r.Pruned[i].Index = in(r.Pruned[i].Index)
	}
	r.Repairs = append([]compact.Repair(nil), res.Repairs...)
	for i := range r.Repairs {
		r.Repairs[i].Index = in(r.Repairs[i].Index)
	}
	if res.Account != nil {
		r.Account = make([]compact.MessageFate, 0, len(c.views))
		for _, f := range res.Account {
			f.Index = in(f.Index)
			r.Account = append(r.Account, f)
		}
		for j := dropped.from; j < dropped.to; j++ {
			r.Account = append(r.Account, compact.MessageFate{Index: j, Role: c.views[j].Role, Fate: "folded", Output: r.SummaryIndex})
		}
		slices.SortFunc(r.Account, func(a, b compact.MessageFate) int { return a.Index - b.Index })
	}
	return &r
}

// providerSummarizer names Anthropic's compaction in a Result whose summary
// is the provider's block.
const providerSummarizer = "anthropic:compaction"

// keptAt is where res put input message j, which reads as m: by the
// engine's account when it has one, else the first output message that
// reads as m; -1 when it is not in the output.
func keptAt(res *compact.Result, j int, m compact.Message) int {
	for _, f := range res.Account {
		if f.Index == j {
			if f.Fate == "kept" || f.Fate == "pruned" {
				return f.Output
			}
			return -1
		}
	}
	for i, o := range res.Messages {
		if align.SameMessage(o, m) {
			return i
		}
	}
	return -1
}
