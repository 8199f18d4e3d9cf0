package compact

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"strconv"
	"strings"

	"github.com/contextkit/compact/internal/msg"
)

// WithHandoff sets the policy for automatic handoffs; they are off by
// default.
//
// Once a compaction succeeds and the conversation has been compacted
// AfterCompactions times (counted since the last fresh-session handoff),
// and while MaxPerSession is not spent, the Compressor writes a packet
// (BuildHandoffPacket, WriteHandoffPacket) after the compaction:
//   - HandoffPromptUser: Result.Handoff gives the packet's path and text,
//     and the host may offer the user a fresh start from it.
//   - HandoffFreshSession: Result.Handoff.Continuation is the whole context
//     of a continuation (the system prompt and the packet as one user
//     message), with the session it continues; HandoffPolicy.Start, when
//     set, opens that session.
//
// Result.Messages is the ordinary compaction in both modes and keeps every
// contract of Compress, so a host that cannot switch sessions loses
// nothing. A handoff that fails at any step (packet write, continuation,
// Start) is not counted and leaves no packet behind; the compaction is
// returned as usual, the failure is logged and Status.HandoffReason holds
// it. Once MaxPerSession handoffs succeeded, compaction goes on as usual
// and Status says the quota is spent.
func WithHandoff(p HandoffPolicy) Option {
	return func(c *config) { c.handoff = p.withDefaults() }
}

// maybeHandoff runs an automatic handoff after the successful compaction
// res of in, when the policy says one is due. It returns nil when there is
// none, for whatever reason; a failure is logged and kept for Status.
func (c *Compressor) maybeHandoff(ctx context.Context, log *slog.Logger, in []Message, o CompressOptions, res *Result) *Handoff {
	pol := c.cfg.handoff
	if !pol.Enabled {
		return nil
	}
	c.mu.Lock()
	// Compactions that pruning alone achieved wrote no summary: they do not
	// wear a context down, so they do not count toward a handoff.
	count, model, st := c.st.compressions-c.st.prunes, c.model, c.st.handoff
	c.mu.Unlock()
	if count-st.base < pol.AfterCompactions {
		return nil
	}
	if st.done >= pol.MaxPerSession {
		log.Debug("handoff quota spent, compacted as usual", "handoffs", st.done)
		return nil
	}
	h, err := c.handoff(ctx, in, o, res, HandoffInput{
		SessionID: o.SessionID, ParentSessionID: o.ParentSessionID, Model: model,
		Compactions: count, Tokens: res.TokensBefore, Created: c.cfg.now(),
		OpenTasks: o.OpenTasks, Messages: withIncoming(in, o.Incoming),
	}, st.done+1)
	c.mu.Lock()
	defer c.mu.Unlock()
	if err != nil {
		c.st.handoff.lastErr = errText(err)
		log.Warn("handoff failed, compacted as usual", "mode", pol.Mode.String(), "err", errText(err))
		return nil
	}
	c.st.handoff.done++
	c.st.handoff.lastErr = ""
	if pol.Mode == HandoffFreshSession {
		c.st.handoff.base = c.st.compressions - c.st.prunes
	}
	log.Info("handoff written", "mode", pol.Mode.String(), "path", h.Path,
		"handoffs", c.st.handoff.done, "continuation", h.ContinuationID)
	return h
}

// handoff builds, checks and writes the n-th automatic packet. Any error
// leaves nothing behind.
func (c *Compressor) handoff(ctx context.Context, in []Message, o CompressOptions, res *Result, input HandoffInput, n int) (*Handoff, error) {
	pol := c.cfg.handoff
	if res.SummaryIndex >= 0 && res.SummaryIndex < len(res.Messages) {
		input.Summary, _, _ = msg.SplitMerged(res.Messages[res.SummaryIndex])
	}
	input.MaxBytes, input.MaxMessages, input.MessageBytes = pol.MaxBytes, pol.MaxMessages, pol.MessageBytes
	packet := BuildHandoffPacket(input)
	h := &Handoff{Mode: pol.Mode, Packet: packet, SessionID: o.SessionID}
	if pol.Mode == HandoffFreshSession {
		cont, err := continuation(in, c.cfg.note, packet)
		if err != nil {
			return nil, err
		}
		h.Continuation = cont
	}
	path, err := WriteHandoffPacket(pol.Root, pol.Dir, handoffFileName(o.SessionID, input.Created, strconv.Itoa(n)), []byte(packet))
	if err != nil {
		return nil, err
	}
	h.Path = path
	if pol.Mode == HandoffFreshSession && pol.Start != nil {
		given := *h
		given.Continuation = Clone(h.Continuation)
		id, err := pol.Start(ctx, given)
		if err != nil {
			os.Remove(path)
			return nil, fmt.Errorf("compact: handoff: starting the continuation: %w", err)
		}
		h.ContinuationID = id
	}
	return h, nil
}

// continuation is the whole context of a fresh session continuing from
// packet: the leading system messages of in, without the compaction note,
// and one user message holding the packet. It must pass Validate.
func continuation(in []Message, note, packet string) ([]Message, error) {
	var out []Message
	for _, m := range in {
		if !msg.IsSystem(m) {
			break
		}
		out = append(out, msg.CloneMessage(m))
	}
	if len(out) > 0 && note != "" {
		out[0] = withoutNote(out[0], note)
	}
	out = append(out, Message{Role: RoleUser, Content: packet})
	if err := Validate(out); err != nil {
		return nil, fmt.Errorf("compact: handoff: continuation %w", err)
	}
	return out, nil
}

// withoutNote returns a system message with the compaction note (as
// appendNote added it) taken out, so the continuation's system prompt is the
// host's own, byte for byte.
func withoutNote(m Message, note string) Message {
	if len(m.MultiContent) > 0 {
		out := msg.CloneMessage(m)
		out.MultiContent = out.MultiContent[:0]
		for _, p := range m.MultiContent {
			if p.ImageURL == nil && p.Text == note {
				continue
			}
			out.MultiContent = append(out.MultiContent, p)
		}
		return out
	}
	if strings.Contains(m.Content, msg.CompactionNoteSep+note) {
		return msg.ReplaceText(m, strings.Replace(m.Content, msg.CompactionNoteSep+note, "", 1))
	}
	return m
}

// withIncoming returns msgs followed by incoming, if any, without touching
// msgs.
func withIncoming(msgs []Message, incoming *Message) []Message {
	if incoming == nil {
		return msgs
	}
	out := make([]Message, 0, len(msgs)+1)
	return append(append(out, msgs...), *incoming)
}

// ManualHandoffPacket writes a packet of msgs now, with the operator's note,
// for a host's handoffCommand ("/handoff-packet [note]"). It reads the
// session id, parent, open tasks and incoming message from opts, and the
// packet's root, directory and bounds from the handoff policy (Root must be
// set; Enabled need not be). The latest summary in msgs is the packet's
// summary.
//
// It never changes the conversation or the Compressor: msgs are not
// modified, nothing is counted against the quota, and no state moves.
func (c *Compressor) ManualHandoffPacket(msgs []Message, note string, opts ...CompressOption) (*Handoff, error) {
	o := ApplyCompressOptions(opts...)
	pol := c.cfg.handoff
	c.mu.Lock()
	model, count := c.model, c.st.compressions
	c.mu.Unlock()
	all := withIncoming(msgs, o.Incoming)
	input := HandoffInput{
		SessionID: o.SessionID, ParentSessionID: o.ParentSessionID, Model: model,
		Compactions: count, Tokens: c.count(all), Created: c.cfg.now(), Note: note,
		Summary: latestSummary(msgs), Messages: all, OpenTasks: o.OpenTasks,
		MaxBytes: pol.MaxBytes, MaxMessages: pol.MaxMessages, MessageBytes: pol.MessageBytes,
	}
	packet := BuildHandoffPacket(input)
	path, err := WriteHandoffPacket(pol.Root, pol.Dir, handoffFileName(o.SessionID, input.Created, "manual"), []byte(packet))
	if err != nil {
		return nil, err
	}
	return &Handoff{Mode: HandoffPromptUser, Manual: true, Path: path, Packet: packet, SessionID: o.SessionID}, nil
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
