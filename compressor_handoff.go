package compact

import (
	"context"
	"fmt"
	"log/slog"
	"strconv"

	"github.com/contextkit/compact/handoff"
	"github.com/contextkit/compact/internal/msg"
)

// WithHandoff sets the policy for automatic handoffs; they are off by
// default.
//
// Once a compaction succeeds and the conversation has been compacted
// AfterCompactions times (counted since the last fresh-session handoff),
// and while MaxPerSession is not spent, the Compressor writes a packet
// ([handoff.Build], [handoff.Write]) after the compaction:
//   - [handoff.PromptUser]: Result.Handoff gives the packet's path and
//     text, and the host may offer the user a fresh start from it.
//   - [handoff.FreshSession]: Result.Handoff.Continuation is the whole
//     context of a continuation (the system prompt and the packet as one
//     user message), with the session it continues; Policy.Start, when
//     set, opens that session.
//
// The packet is written, and Start called, after the compaction released
// the Compressor: another Compress waits for neither. One handoff is
// written at a time; a compaction that finishes while one is being
// written does not start another.
//
// Result.Messages is the ordinary compaction in both modes and keeps every
// contract of Compress, so a host that cannot switch sessions loses
// nothing. A handoff that fails at any step (packet write, continuation,
// Start) is not counted and leaves no packet behind; the compaction is
// returned as usual, the failure is logged and Status.HandoffReason holds
// it. Once MaxPerSession handoffs succeeded, compaction goes on as usual
// and Status says the quota is spent. A bound of the policy below its
// least (see [handoff.Policy.Resolve]) is raised to it, and
// Status().Adjusted says so.
func WithHandoff(p handoff.Policy) Option {
	return option(func(c *config) {
		pol, adjusted := p.Resolve()
		c.handoff = pol
		for _, a := range adjusted {
			c.adjusted = append(c.adjusted, "WithHandoff: "+a)
		}
	})
}

// handoffJob is an automatic handoff a compaction found due. It is chosen
// under the run lock, so two compactions never take the same turn, and
// written after the lock is released, so a host waiting on the Compressor
// does not wait for file I/O or for Policy.Start.
type handoffJob struct {
	input handoff.Input
	n     int       // the handoff's number, for the file name
	in    []Message // the history compacted, for the continuation
}

// dueHandoff returns the handoff due after the successful compaction res
// of in, or nil when none is: handoffs are off, too few compactions wore
// the context down, the quota is spent, or another is being written. It
// holds the turn until finishHandoff.
func (c *Compressor) dueHandoff(log *slog.Logger, in []Message, o CompressOptions, res *Result) *handoffJob {
	pol := c.cfg.handoff
	if !pol.Enabled {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	// Compactions that pruning alone achieved wrote no summary: they do not
	// wear a context down, so they do not count toward a handoff.
	count, st := c.st.compressions-c.st.prunes, c.st.handoff
	switch {
	case count-st.base < pol.AfterCompactions:
		return nil
	case st.done >= pol.MaxPerSession:
		log.Debug("handoff quota spent, compacted as usual", "handoffs", st.done)
		return nil
	case st.writing:
		log.Debug("a handoff is being written, compacted as usual")
		return nil
	}
	c.st.handoff.writing = true
	input := handoff.Input{
		SessionID: o.SessionID, ParentSessionID: o.ParentSessionID, Model: c.model,
		Compactions: count, Tokens: res.TokensBefore, Created: c.cfg.now(),
		OpenTasks: o.OpenTasks, Messages: msg.WithIncoming(in, o.Incoming),
	}
	if res.SummaryIndex >= 0 && res.SummaryIndex < len(res.Messages) {
		input.Summary, _, _ = msg.SplitMerged(res.Messages[res.SummaryIndex])
	}
	return &handoffJob{input: input, n: st.done + 1, in: in}
}

// finishHandoff writes the packet of job, builds the continuation and
// calls Policy.Start, outside the run lock, and records how it went. It
// returns nil when the handoff failed: the failure is logged and kept for
// Status, and nothing is left behind.
func (c *Compressor) finishHandoff(ctx context.Context, log *slog.Logger, job *handoffJob) *handoff.Report {
	pol := c.cfg.handoff
	r, err := c.handoffs.write(ctx, job)
	c.mu.Lock()
	defer c.mu.Unlock()
	c.st.handoff.writing = false
	if err != nil {
		c.st.handoff.lastErr = c.errText(err)
		log.Warn("handoff failed, compacted as usual", "mode", pol.Mode.String(), "err", c.errText(err))
		return nil
	}
	c.st.handoff.done++
	c.st.handoff.lastErr = ""
	if pol.Mode == handoff.FreshSession {
		c.st.handoff.base = c.st.compressions - c.st.prunes
	}
	log.Info("handoff written", "mode", pol.Mode.String(), "path", r.Path,
		"handoffs", c.st.handoff.done, "continuation", r.ContinuationID)
	return r
}

// packetWriter is the handoffWriter of a Compressor: the policy, and the
// compaction note a continuation's system prompt loses.
type packetWriter struct {
	pol  handoff.Policy
	note string
}

// write builds, checks and writes job's packet (see handoff.Deliver).
func (w packetWriter) write(ctx context.Context, job *handoffJob) (*handoff.Report, error) {
	name := handoff.FileName(job.input.SessionID, job.input.Created, strconv.Itoa(job.n))
	return handoff.Deliver(ctx, w.pol, job.input, job.in, w.note, name)
}

// ManualHandoffPacket writes a packet of msgs now, with the operator's note,
// for a host's "/handoff-packet [note]" command (see [handoff.ParseCommand]). It reads the
// session id, parent, open tasks and incoming message from opts, and the
// packet's root, directory and bounds from the handoff policy (Root must be
// set; Enabled need not be). The latest summary in msgs is the packet's
// summary.
//
// It never changes the conversation or the Compressor: msgs are not
// modified, nothing is counted against the quota, and no state moves.
func (c *Compressor) ManualHandoffPacket(msgs []Message, note string, opts ...CompressOption) (*handoff.Report, error) {
	o := ApplyCompressOptions(opts...)
	pol := c.cfg.handoff
	c.mu.Lock()
	model, count := c.model, c.st.compressions
	c.mu.Unlock()
	all := msg.WithIncoming(msgs, o.Incoming)
	input := handoff.Input{
		SessionID: o.SessionID, ParentSessionID: o.ParentSessionID, Model: model,
		Compactions: count, Tokens: c.count(all), Created: c.cfg.now(), Note: note,
		Summary: latestSummary(msgs), Messages: all, OpenTasks: o.OpenTasks,
	}
	pol.Mode = handoff.PromptUser // no continuation, so no Start and no ctx
	r, err := handoff.Deliver(context.Background(), pol, input, nil, "",
		handoff.FileName(o.SessionID, input.Created, "manual"))
	if err != nil {
		return nil, err
	}
	r.Manual = true
	return r, nil
}

// latestSummary is the body of the last summary in msgs, or "".
func latestSummary(msgs []Message) string {
	for i := len(msgs) - 1; i >= 0; i-- {
		if summary, _, ok := msg.SplitMerged(msgs[i]); ok {
			return summary
		}
	}
	return ""
}

// handoffStatusLocked fills in the handoff fields of s.
func (c *Compressor) handoffStatusLocked(s *Status) {
	pol := c.cfg.handoff
	if !pol.Enabled {
		return
	}
	st := c.st.handoff
	s.Handoffs = st.done
	s.HandoffsLeft = max(pol.MaxPerSession-st.done, 0)
	switch {
	case st.lastErr != "":
		s.HandoffReason = "last handoff failed, compacted as usual: " + st.lastErr
	case s.HandoffsLeft == 0:
		s.HandoffReason = fmt.Sprintf("handoff quota spent (%d of %d); compacting as usual", st.done, pol.MaxPerSession)
	}
}
