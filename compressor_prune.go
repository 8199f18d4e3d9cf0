package compact

import (
	"fmt"
	"log/slog"

	"github.com/contextkit/compact/internal/msg"
	"github.com/contextkit/compact/tokens"
)

// pruneConfig returns the settings of a pruning of the history p plans:
// the host's options, the pressure budget a Compressor defaults to, and the
// range and counter the Compressor's contracts depend on.
func (c *Compressor) pruneConfig(p plan, th thresholds) pruneConfig {
	pc := c.cfg.prune
	if !pc.pressureSet {
		pc.pressure = th.threshold / 2
	}
	pc.from, pc.to, pc.rangeSet = p.headEnd, p.cut, true
	pc.counter = c.cfg.counter
	return pc
}

// prune prunes work as p plans it. The result is uncommitted when pruning
// is off.
func (c *Compressor) prune(work []Message, p plan, th thresholds) *PruneResult {
	if !c.cfg.pruning {
		return &PruneResult{}
	}
	return prune(work, c.pruneConfig(p, th))
}

// pruneTail runs the pressure pass alone on p's tail, for a compaction that
// summarises: the summary replaces the middle, so only the tail's changes
// matter, and they are kept however little they save. It returns the
// changes, after pointing p at the demoted tail.
func (c *Compressor) pruneTail(p *plan, th thresholds) []PruneChange {
	if !c.cfg.pruning || !c.cfg.prune.on(kindDemoted) {
		return nil
	}
	pc := c.pruneConfig(*p, th)
	pc.kinds, pc.clearAtLeast = map[PruneKind]bool{kindDemoted: true}, 0
	pr := prune(p.msgs, pc)
	if !pr.Committed {
		return nil
	}
	hybrid := make([]Message, 0, len(p.msgs))
	hybrid = append(hybrid, p.msgs[:p.cut]...)
	p.msgs = append(hybrid, pr.Messages[p.cut:]...)
	return pr.Changes
}

// pruneOnly finishes a compaction that pruning alone achieved: the pruned
// history, then the incoming message. in is the caller's message count and
// before the tokens it held (incoming included). It counts as a compaction
// in Status, but not toward a handoff (see WithHandoff), and writes none.
func (c *Compressor) pruneOnly(log *slog.Logger, in int, pr *PruneResult, incoming *Message, before, threshold int) (*Result, error) {
	out := pr.Messages
	if incoming != nil {
		out = append(out, msg.CloneMessage(*incoming))
	}
	if err := Validate(out); err != nil {
		return nil, fmt.Errorf("compact: internal error, pruned history is invalid: %w", err)
	}
	after := tokens.CountMessages(c.cfg.counter, out)
	c.record(after, threshold)
	c.mu.Lock()
	c.st.prunes++
	c.mu.Unlock()
	log.Info("compaction done", "messages_before", in, "messages_after", len(out),
		"tokens_before", before, "tokens_after", after, "pruned", len(pr.Changes), "summarizer", "")
	return &Result{
		Messages: out, MessagesBefore: in, MessagesAfter: len(out),
		TokensBefore: before, TokensAfter: after,
		SummarizedFrom: -1, SummarizedTo: -1, SummaryIndex: -1, Lifted: -1,
		Pruned: pr.Changes,
	}, nil
}
