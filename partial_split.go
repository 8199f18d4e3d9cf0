package compact

import (
	"fmt"

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
		keep = defaultKeepExchanges
	}
	last := msg.LastIndex(msgs, 0, IsSummary)
	start, found := -1, 0
	for i := len(msgs) - 1; i > last && found < keep; i-- {
		if startsExchange(msgs, i) {
			start, found = i, found+1
		}
	}
	if start < 0 {
		return nil, nil, fmt.Errorf("%w: no user turn after the last summary to keep", ErrNothingToCompress)
	}
	return split(msgs, start)
}

// startsExchange reports whether msgs[i] opens an exchange: a real user
// turn that does not follow another one.
func startsExchange(msgs []Message, i int) bool {
	return isPlainUser(msgs[i]) && (i == 0 || !isPlainUser(msgs[i-1]))
}

// isPlainUser reports whether m is a real user turn with no summary in it.
func isPlainUser(m Message) bool { return IsRealUser(m) && !IsSummary(m) }

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
	i := index
	for i < n && isStandaloneSummary(msgs[i]) {
		i++
	}
	if i == n {
		return nil, nil, fmt.Errorf("%w: message %d: nothing but summaries from there on to keep", ErrInvalidBoundary, index)
	}
	for i > 0 && !isStandaloneSummary(msgs[i-1]) && (msgs[i].Role == RoleTool || msg.Clashes(msgs[i-1], msgs[i])) {
		i--
	}
	return split(msgs, i)
}

// split cuts msgs before msgs[at], with capped capacities, and checks that
// the head holds something to summarise.
func split(msgs []Message, at int) (head, tail []Message, err error) {
	head, tail = msgs[:at:at], msgs[at:len(msgs):len(msgs)]
	if !hasFoldable(head) {
		return nil, nil, fmt.Errorf("%w: nothing before message %d but system messages and summaries", ErrNothingToCompress, at)
	}
	return head, tail, nil
}

// hasFoldable reports whether msgs hold a message a summary could stand for:
// one that is neither a system message nor an earlier summary alone.
func hasFoldable(msgs []Message) bool {
	for _, m := range msgs {
		if !msg.IsSystem(m) && !isStandaloneSummary(m) {
			return true
		}
	}
	return false
}

// isStandaloneSummary reports whether m is a summary message of its own,
// not one merged in front of another message's content.
func isStandaloneSummary(m Message) bool { return IsSummary(m) && isBlankRest(m) }
