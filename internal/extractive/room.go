package extractive

import (
	"context"
	"strings"

	"github.com/contextkit/compact/internal/msg"
)

// factBytesPerToken estimates the facts index's tokens from its bytes:
// identifiers, paths and error lines run denser than prose (about three
// bytes a token against four), and an estimate spares counting exactly
// on every compaction.
const factBytesPerToken = 3

// FactsRoom returns the summary target at which the facts index of req
// (and of the summary it updates), written as for a summary of target
// tokens with nothing trimmed, takes no more than its share of the target:
// all but the share the prose keeps. It is 0 when there are no facts, or
// when ctx ends first. The index is measured as the summarizer would write
// it with nothing left out but the paths only mentioned in prose or output
// (the first an index gives up), at factBytesPerToken.
func FactsRoom(ctx context.Context, req Request, target int) int {
	return FactsRoomMemo(ctx, req, target, nil)
}

// FactsRoomMemo is FactsRoom resuming the scan where memo's last stopped
// (see ScanMemo); a nil memo remembers nothing.
func FactsRoomMemo(ctx context.Context, req Request, target int, memo *ScanMemo) int {
	d := &digest{factsOnly: true}
	if memo != nil {
		d.written = memo.texts
	}
	if d.scanWith(ctx, req.Turns, memo) != nil {
		return 0
	}
	d.mergePrevious(strings.TrimSpace(msg.StripSummaryPrefix(req.PreviousSummary)), len(req.Turns) > 0)
	lim := (&Summarizer{}).resolvedLimits(target)
	settleFiles(&d.files)
	var b strings.Builder
	newFactIndex(d, lim).render(&b)
	need := (b.Len() + factBytesPerToken - 1) / factBytesPerToken
	return (need*100 + 100 - proseShare - 1) / (100 - proseShare)
}
