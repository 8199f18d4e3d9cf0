package compact

import (
	"fmt"

	"github.com/contextkit/compact/internal/meter"
	"github.com/contextkit/compact/internal/msg"
	"github.com/contextkit/compact/models"
	"github.com/contextkit/compact/prune"
	"github.com/contextkit/compact/tokens"
)

// pruneOptions returns the options of a pruning of the history p plans:
// the pressure budget a Compressor defaults to, the host's options, then
// the range and counter the Compressor's contracts depend on, and extra.
func (c *Compressor) pruneOptions(p plan, th thresholds, extra ...prune.Option) []prune.Option {
	opts := make([]prune.Option, 0, len(c.cfg.pruneOpts)+3+len(extra))
	opts = append(opts, prune.WithPressure(th.threshold/2))
	opts = append(opts, c.cfg.pruneOpts...)
	opts = append(opts, prune.WithRange(p.headEnd, p.cut), prune.WithTokenCounter(c.tc))
	return append(opts, extra...)
}

// prune prunes work as p plans it. The result is uncommitted when pruning
// is off.
func (c *Compressor) prune(work []Message, p plan, th thresholds) *prune.Result {
	if !c.cfg.pruning {
		return &prune.Result{}
	}
	return c.pruner.apply(work, c.pruneOptions(p, th)...)
}

// pruneTail runs the pressure pass alone on p's tail, for a compaction that
// summarises: the summary replaces the middle, so only the tail's changes
// matter, and they are kept however little they save. It returns the
// changes, after pointing p at the demoted tail and its counts, so what
// the summary is given (see roomLeft) is the room the request really has.
func (c *Compressor) pruneTail(p *plan, th thresholds) []prune.Change {
	if !c.cfg.pruning || th.economy {
		return nil
	}
	pr := c.pruner.apply(p.msgs, c.pruneOptions(*p, th, prune.WithKinds(prune.Demoted), prune.WithClearAtLeast(0))...)
	if !pr.Committed {
		return nil
	}
	hybrid := make([]Message, 0, len(p.msgs))
	hybrid = append(hybrid, p.msgs[:p.cut]...)
	p.msgs = append(hybrid, pr.Messages[p.cut:]...)
	p.counts = append([]int(nil), p.counts...)
	for _, ch := range pr.Changes {
		p.counts[ch.Index] = c.tc.CountMessage(p.msgs[ch.Index])
	}
	return pr.Changes
}

// pruneOnly finishes a compaction that pruning alone achieved: the pruned
// history, then the incoming message. It counts as a compaction in Status,
// but not toward a handoff (see WithHandoff), and writes none.
func (r *compaction) pruneOnly(pr *prune.Result) (*Result, error) {
	c := r.c
	out := pr.Messages
	if r.o.Incoming != nil {
		out = append(out, msg.CloneMessage(*r.o.Incoming))
	}
	if err := Validate(out); err != nil {
		return nil, fmt.Errorf("compact: internal error, pruned history is invalid: %w", err)
	}
	after := tokens.CountMessages(c.tc, out)
	c.record(r, after, meter.Prune, models.Tokens{})
	c.mu.Lock()
	c.st.prunes++
	c.mu.Unlock()
	r.log.Info("compaction done", "messages_before", len(r.work), "messages_after", len(out),
		"tokens_before", r.before, "tokens_after", after, "pruned", len(pr.Changes), "summarizer", "")
	return &Result{
		Messages: out, MessagesAfter: len(out),
		TokensBefore: r.before, TokensAfter: after,
		SummarizedFrom: -1, SummarizedTo: -1, SummaryIndex: -1, Lifted: -1,
		Pruned: pr.Changes,
	}, nil
}
