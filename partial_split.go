package compact

import (
	"fmt"

	"github.com/contextkit/compact/internal/cmdargs"
	"github.com/contextkit/compact/internal/english"
	"github.com/contextkit/compact/internal/msg"
)

// SplitExchanges splits msgs into a head to summarise and a tail of the last
// keep exchanges to keep verbatim; head followed by tail is msgs. A keep of
// zero or less means 2, as "/compress here" keeps.
//
// An exchange starts at a real user turn (IsRealUser: a summary or the
// state a compaction carried is not one) and runs to the next start; user
// turns sent one after another, before any reply, open one exchange
// together, so the tail never starts between them. Exchanges are counted
// after the last summary: turns before it are compacted already, and a
// kept tail never holds a summary. With fewer exchanges than keep, the tail
// starts at the earliest one.
//
// The error wraps ErrNothingToCompress when there is no real user turn
// after the last summary to start the tail, or when the head would hold
// nothing but system messages and earlier summaries. On a valid history
// the split never separates a tool call from its results.
//
// head and tail share msgs' messages. Their capacity is capped, so
// appending to either never writes into msgs; edit a message only after
// copying it (msg.CloneMessage).
func SplitExchanges(msgs []Message, keep int) (head, tail []Message, err error) {
	if keep <= 0 {
		keep = cmdargs.DefaultKeep
	}
	start := msg.ExchangeStart(msgs, keep)
	if start < 0 {
		return nil, nil, fmt.Errorf("%w: no user turn after the last summary to keep", ErrNothingToCompress)
	}
	return split(msgs, start)
}

// SplitAt splits msgs before msgs[index], for a host whose interface lets a
// person pick the first message to keep ("summarize up to here"): head is
// what gets summarised, tail what stays verbatim, and head followed by tail
// is msgs.
//
// The boundary moves where keeping it would break the history:
//   - off an earlier summary, forward past it: the summary is folded into
//     the new one rather than kept beside it;
//   - off a tool result, back to the assistant turn that made the call, so
//     a call and its results stay together;
//   - back to the first of two user turns, or of two assistant turns, in a
//     row, so the first kept message never meets a turn of its own role.
//
// Errors: index outside [0, len(msgs)) wraps ErrInvalidBoundary, as does
// an index followed by nothing but summaries; a head holding nothing but
// system messages and earlier summaries wraps ErrNothingToCompress. head
// and tail share msgs' messages, capped as in SplitExchanges.
func SplitAt(msgs []Message, index int) (head, tail []Message, err error) {
	n := len(msgs)
	if index < 0 || index >= n {
		return nil, nil, fmt.Errorf("%w: message %d is out of range: the history has %d %s", ErrInvalidBoundary, index, n, english.Noun(n, "message"))
	}
	i, ok := msg.KeepStart(msgs, index)
	if !ok {
		return nil, nil, fmt.Errorf("%w: message %d: nothing but summaries from there on to keep", ErrInvalidBoundary, index)
	}
	return split(msgs, i)
}

// split cuts msgs before msgs[at], with capped capacities, and checks that
// the head holds something to summarise.
func split(msgs []Message, at int) (head, tail []Message, err error) {
	head, tail = msgs[:at:at], msgs[at:len(msgs):len(msgs)]
	if !msg.HasFoldable(head) {
		return nil, nil, fmt.Errorf("%w: nothing before message %d but system messages and summaries", ErrNothingToCompress, at)
	}
	return head, tail, nil
}
