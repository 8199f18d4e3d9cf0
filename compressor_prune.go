package compact

import (
	"fmt"
	"log/slog"
)

// WithPruning sets the options of the cheap tier a Compressor runs before it
// summarises (see Prune). Pruning is on by default, with Prune's defaults;
// WithPruning with no options turns it back on after WithoutPruning.
//
// A compaction first prunes the turns it would summarise: everything
// between the head and the protected tail, never the system prompt, the
// head, the tail or the latest real user message. When that brings the
// history under the threshold with room to spare (below the threshold less
// the tail budget, so that the next few turns do not trigger another
// compaction at once), and the compaction is not forced, the pruned history
// is the result: no summarizer is called, Result.SummaryIndex is -1 and
// Result.Pruned lists every change. Otherwise the turns are
// summarised as if pruning had not run: the summarizer reads the original
// turns, whose details a stand-in would have hidden from it.
//
// The pressure pass is on, with a budget of half the threshold (the most
// the tail may take to reach the latest user message): when the tail alone
// is over it, its largest tool results are demoted (see PrunePressure) on
// either path, and Result.Pruned lists them. PrunePressure(0) turns it off.
//
// The Compressor sets PruneRange and PruneTokenCounter itself: those
// options are ignored.
func WithPruning(opts ...PruneOption) Option {
	return func(c *config) {
		c.prune = true
		c.pruneOpts = append([]PruneOption(nil), opts...)
	}
}

// WithoutPruning turns pruning off: every compaction summarises.
func WithoutPruning() Option {
	return func(c *config) { c.prune = false }
}

// pruneOptions are the options of a pruning of the history p plans: the
// Compressor's defaults, the host's options, then the range and counter the
// Compressor's contracts depend on.
func (c *Compressor) pruneOptions(p plan, th thresholds, extra ...PruneOption) []PruneOption {
	opts := make([]PruneOption, 0, len(c.cfg.pruneOpts)+len(extra)+3)
	opts = append(opts, PrunePressure(th.threshold/2))
	opts = append(opts, c.cfg.pruneOpts...)
	opts = append(opts, extra...)
	return append(opts, PruneRange(p.headEnd, p.cut), PruneTokenCounter(c.cfg.counter))
}

// prune prunes work as p plans it. The result is uncommitted when pruning
// is off.
func (c *Compressor) prune(work []Message, p plan, th thresholds) *PruneResult {
	if !c.cfg.prune {
		return &PruneResult{}
	}
	return Prune(work, c.pruneOptions(p, th)...)
}

// pruneTail runs the pressure pass alone on p's tail, for a compaction that
// summarises: the summary replaces the middle, so only the tail's changes
// matter, and they are kept however little they save. It returns the
// changes, after pointing p at the demoted tail.
func (c *Compressor) pruneTail(p *plan, th thresholds) []PruneChange {
	if !c.cfg.prune || !newPruneConfig(c.cfg.pruneOpts).on(PruneDemoted) {
		return nil
	}
	pr := Prune(p.msgs, c.pruneOptions(*p, th, PruneOnly(PruneDemoted), PruneClearAtLeast(0))...)
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
		out = append(out, CloneMessage(*incoming))
	}
	if err := Validate(out); err != nil {
		return nil, fmt.Errorf("compact: internal error, pruned history is invalid: %w", err)
	}
	after := CountMessages(c.cfg.counter, out)
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
