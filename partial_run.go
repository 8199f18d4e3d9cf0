package compact

import (
	"context"
	"errors"
	"fmt"

	"github.com/contextkit/compact/internal/english"
	"github.com/contextkit/compact/internal/msg"
	"github.com/contextkit/compact/tokens"
)

// CompressHere is "/compress here N": it keeps the last keep exchanges
// verbatim (split as [SplitExchanges] does; keep <= 0 means 2) and
// summarises everything before them except the leading system messages. The compaction is forced; opts add a focus, an
// incoming message or a session id. The Result describes the whole
// history: its indexes are those of msgs, its counts those of msgs and
// Result.Messages.
//
// An engine that implements RangeCompressor (the Compressor does) folds
// exactly the head. Any other engine compacts the head as a history of its
// own, with the tail's first message as the incoming one so that it places
// its summary to fit what follows, and may keep part of the head verbatim
// by its own rules; its result is rejoined with the tail through Join, so
// the history is valid whatever the engine returns. Its TokensBefore and
// TokensAfter add the engine's counts for the head to an estimate for the
// tail it did not see; their difference is the engine's own.
//
// The last keep exchanges come back byte-identical, in order, at the end
// of Result.Messages (followed by the incoming message, if one was given);
// the first of them carries the summary merged in front of its content
// when nothing precedes the summary but system messages (see
// WithUserFirst).
// The one exception is an engine that breaks its contract by ending the
// compacted head with a turn of the first kept message's role: Join then
// merges that message into it, so nothing is lost and the history stays
// valid.
// Errors: the input's first problem, wrapping ErrInvalidHistory (a
// partial compaction never repairs its input, since a repair would move
// the boundary); ErrNothingToCompress from the split; the engine's own
// errors. The caller's messages are never modified.
func CompressHere(ctx context.Context, engine ContextEngine, msgs []Message, keep int, opts ...CompressOption) (*Result, error) {
	if err := Validate(msgs); err != nil {
		return nil, fmt.Errorf("compact: input %w", err)
	}
	head, tail, err := SplitExchanges(msgs, keep)
	if err != nil {
		return nil, err
	}
	return compressSplit(ctx, engine, msgs, head, tail, opts)
}

// CompressBefore is "summarize up to here" for a host with a message list
// a person can point at: it keeps msgs[index:] verbatim and summarises
// what comes before, except the leading system messages. The boundary
// moves as SplitAt says when keeping it exactly would split a tool call
// from its result, leave two turns of one role in a row, or keep an earlier
// summary at the start of the tail. Everything else is as in CompressHere;
// an index outside [0, len(msgs)) is an error wrapping ErrInvalidBoundary.
func CompressBefore(ctx context.Context, engine ContextEngine, msgs []Message, index int, opts ...CompressOption) (*Result, error) {
	if err := Validate(msgs); err != nil {
		return nil, fmt.Errorf("compact: input %w", err)
	}
	head, tail, err := SplitAt(msgs, index)
	if err != nil {
		return nil, err
	}
	return compressSplit(ctx, engine, msgs, head, tail, opts)
}

// CompressFrom is "summarize from here": it keeps msgs[:index] verbatim
// and summarises msgs[index:], then places the latest real user message,
// verbatim, after the summary, so the model still answers what was last
// asked. A pending tool-call group at the very end stays verbatim too,
// since its results may still arrive. An index on a tool result moves back
// to the assistant turn that made the call; an index inside the leading
// system messages moves past them. Where no role lets the summary sit
// between msgs[index-1] and what follows it, the summarised range starts a
// little earlier (Result.SummarizedFrom says where). An earlier summary
// among the kept messages stays as it is, beside the new one; the next
// compaction folds them into one.
//
// The compaction is forced. It needs an engine that implements
// RangeCompressor, as the Compressor does: with any other, the error wraps
// errors.ErrUnsupported, since such an engine cannot be told what to keep.
// Other errors: an index outside [0, len(msgs)) wraps ErrInvalidBoundary;
// the input's first problem wraps ErrInvalidHistory; ErrNothingToCompress
// when nothing from index on can be folded (only a pending group, or only
// the latest user message); the engine's own errors.
func CompressFrom(ctx context.Context, engine ContextEngine, msgs []Message, index int, opts ...CompressOption) (*Result, error) {
	rc, ok := engine.(RangeCompressor)
	if !ok {
		return nil, fmt.Errorf("compact: engine %q cannot summarise from a chosen message: %w", engine.Name(), errors.ErrUnsupported)
	}
	if index < 0 || index >= len(msgs) {
		return nil, fmt.Errorf("%w: message %d is out of range: the history has %d %s", ErrInvalidBoundary, index, len(msgs), english.Noun(len(msgs), "message"))
	}
	if err := Validate(msgs); err != nil {
		return nil, fmt.Errorf("compact: input %w", err)
	}
	from := msg.AlignCut(msgs, index, 0)
	return rc.CompressRange(ctx, msgs, from, pendingStart(msgs), forced(opts)...)
}

// pendingStart returns the index of the assistant turn whose tool calls
// are still waiting for results at the very end of msgs, or len(msgs) when
// there is none.
func pendingStart(msgs []Message) int {
	i := len(msgs) - 1
	for i >= 0 && msgs[i].Role == RoleTool {
		i--
	}
	if i < 0 || msgs[i].Role != RoleAssistant || len(msgs[i].ToolCalls) == 0 {
		return len(msgs)
	}
	g := msg.NewCallGroup(i, msgs[i], nil)
	for _, m := range msgs[i+1:] {
		g.Answer(m.ToolCallID)
	}
	if len(g.Unanswered()) == 0 {
		return len(msgs)
	}
	return i
}

// forced returns opts with Force added, without writing into opts' array.
func forced(opts []CompressOption) []CompressOption {
	return append(opts[:len(opts):len(opts)], Force())
}

// compressSplit summarises head and keeps tail, through the engine's range
// ability when it has one and through head compaction and Join otherwise.
func compressSplit(ctx context.Context, engine ContextEngine, msgs, head, tail []Message, opts []CompressOption) (*Result, error) {
	if rc, ok := engine.(RangeCompressor); ok {
		return rc.CompressRange(ctx, msgs, 0, len(head), forced(opts)...)
	}
	o := ApplyCompressOptions(opts...)
	res, err := engine.Compress(ctx, head, append(forced(opts), WithIncoming(tail[0]))...)
	if err != nil {
		return nil, err
	}
	if res == nil {
		return nil, fmt.Errorf("compact: engine %q returned no result and no error", engine.Name())
	}
	out, err := rejoin(res.Messages, tail)
	if err != nil {
		return nil, fmt.Errorf("compact: engine %q: %w", engine.Name(), err)
	}
	if o.Incoming != nil {
		out = append(out, msg.CloneMessage(*o.Incoming))
	}
	if err := Validate(out); err != nil {
		return nil, fmt.Errorf("compact: engine %q returned a history that does not rejoin: %w", engine.Name(), err)
	}
	// The engine counted the head and tail[0]; the rest of the tail and
	// the caller's incoming message are the same on both sides.
	var est tokens.Estimator
	extra := 0
	for _, m := range tail[1:] {
		extra += est.CountMessage(m)
	}
	if o.Incoming != nil {
		extra += est.CountMessage(*o.Incoming)
	}
	r := *res
	tailAt := len(out) - len(tail)
	if o.Incoming != nil {
		tailAt--
	}
	r.Account = accountSplit(msgs, res, tailAt, tail)
	r.Messages = out
	r.MessagesBefore, r.MessagesAfter = len(msgs), len(out)
	r.TokensBefore += extra
	r.TokensAfter += extra
	return &r, nil
}

// accountSplit extends the engine's account of the head (nil when it
// kept none) over the tail, which follows the head's compaction in a
// history whose tail starts at tailAt; Join may have merged the tail's
// first message into the turn before it. The engine never counted the
// tail but its first message, so the tail is counted by the estimate.
func accountSplit(msgs []Message, res *Result, tailAt int, tail []Message) []MessageFate {
	head := len(msgs) - len(tail)
	if len(res.Account) != head {
		return nil
	}
	acc := make([]MessageFate, 0, len(msgs))
	acc = append(acc, res.Account...)
	// Unmerged, the tail takes the place of the engine's copy of tail[0];
	// merged into the turn before, it starts a message earlier.
	merged := tailAt < len(res.Messages)-1
	names := callNames(msgs)
	var est tokens.Estimator
	for j, m := range tail {
		i := head + j
		a := MessageFate{Index: i, Role: m.Role, Tool: names[i], Tokens: est.CountMessage(m), Fate: fateKept, Output: tailAt + j}
		if merged && j == 0 {
			a.Fate = fateMerged
		}
		acc = append(acc, a)
	}
	return acc
}

// rejoin puts a compacted head back in front of the tail it was compacted
// for. The engine was given tail[0] as the incoming message, so compacted
// ends with a copy of it, placed to fit; that copy gives way to the tail,
// and Join guards the seam in case the engine placed it badly. A copy the
// engine merged its summary into (see WithUserFirst) stays in its place.
func rejoin(compacted, tail []Message) ([]Message, error) {
	k := len(compacted)
	switch {
	case k > 0 && msg.EqualMessage(compacted[k-1], tail[0]):
		return Join(compacted[:k-1], tail), nil
	case k > 0 && isSharedWith(compacted[k-1], tail[0]):
		// The seam after it is the input's own: no guard.
		return append(Join(compacted[:k-1], compacted[k-1:]), msg.Clone(tail[1:])...), nil
	}
	return nil, fmt.Errorf("%w: the incoming message did not come back last", ErrInvalidHistory)
}

// isSharedWith reports whether m is own with a summary merged in front.
func isSharedWith(m, own Message) bool {
	_, rest, ok := msg.SplitMerged(m)
	return ok && msg.EqualMessage(rest, own)
}
