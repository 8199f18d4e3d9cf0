package compact

import (
	"context"
	"fmt"
)

// foldRange is a range of messages a person chose to fold: msgs[from:to].
type foldRange struct{ from, to int }

// CompressRange folds exactly msgs[from:to] into one summary and keeps every
// other message verbatim: the leading system messages (the first gains
// CompactionNote once), msgs[:from] before the summary and msgs[to:] after
// it. It is the Compressor's RangeCompressor ability, used by CompressHere,
// CompressBefore and CompressFrom; the Compressor's own head and tail
// protection does not apply, since the person chose what to keep.
//
// The latest real user message, when it lies in the range, comes back
// verbatim right after the summary, unless what follows the range starts
// with a user turn (two user turns would meet): it is then carried inside
// the summary. The summary takes the role its neighbours allow (with
// nothing kept before it, it is merged in front of a user turn after it:
// see WithUserFirst); when
// msgs[from-1] and what follows the range already alternate so that no role
// fits, the range grows back a message at a time (never into the leading
// system messages, never splitting a tool call from its result), and
// Result.SummarizedFrom says where it starts. A from inside the leading
// system messages is raised past them. Earlier summaries in the range are
// folded into the new one; one left outside it stays as it is.
//
// Errors: ErrInvalidBoundary when from or to is outside [0, len(msgs)], from
// is after to, or either falls on a tool result (the range would separate
// it from its call); the input's first problem, wrapping
// ErrInvalidHistory, even under WithRepair, since a repair would move the
// messages the range names; ErrNothingToCompress when the range holds only
// earlier summaries and the lifted message; and the errors of Compress.
// Like Compress it honours Force, WithFocus, WithIncoming and
// WithSessionID.
func (c *Compressor) CompressRange(ctx context.Context, msgs []Message, from, to int, opts ...CompressOption) (*Result, error) {
	n := len(msgs)
	switch {
	case from < 0 || from > n:
		return nil, fmt.Errorf("%w: range start %d is outside [0, %d]", ErrInvalidBoundary, from, n)
	case to < 0 || to > n:
		return nil, fmt.Errorf("%w: range end %d is outside [0, %d]", ErrInvalidBoundary, to, n)
	case from > to:
		return nil, fmt.Errorf("%w: range start %d is after its end %d", ErrInvalidBoundary, from, to)
	case from < n && msgs[from].Role == RoleTool:
		return nil, fmt.Errorf("%w: message %d: the range would start on a tool result, apart from its call", ErrInvalidBoundary, from)
	case to < n && msgs[to].Role == RoleTool:
		return nil, fmt.Errorf("%w: message %d: the range would end before a tool result, apart from its call", ErrInvalidBoundary, to)
	}
	return c.compress(ctx, msgs, &foldRange{from, to}, opts)
}

// rangePlan is the plan for a chosen range of a valid history (counts: see newPlan).
func (c *Compressor) rangePlan(msgs []Message, counts []int, r foldRange, incoming *Message) plan {
	p := c.newPlan(msgs, counts)
	p.headEnd = max(r.from, p.sysEnd)
	p.cut = max(r.to, p.headEnd)
	if p.headEnd < p.cut {
		// An empty range stays empty (nothing to compress) rather than
		// growing back to fit a summary no one asked for.
		p.settle(incoming)
	}
	return p
}

var _ RangeCompressor = (*Compressor)(nil)
