package compact

import (
	"context"

	"github.com/contextkit/compact/handoff"
	"github.com/contextkit/compact/internal/extractive"
	"github.com/contextkit/compact/prune"
	"github.com/contextkit/compact/redact"
)

// The work a compaction hands off sits behind these interfaces, which New
// fills in, so the engine depends on what they answer, not on how: the
// prompt a model summarizer is sent (byte for byte as SummaryPrompt
// renders it; its bill is estimated from it), the facts index of a range
// (see extractive.FactsRoom), a handoff packet written (any error leaves
// nothing behind), an error's text redacted (see errText), and pruning.
type (
	promptRenderer interface {
		prompt(req SummaryRequest) (instructions, material string)
	}
	factsSizer interface {
		factsRoom(ctx context.Context, req SummaryRequest, limit int) int
	}
	handoffWriter interface {
		write(ctx context.Context, job *handoffJob) (*handoff.Report, error)
	}
	scrubber interface{ scrub(s string) string }
	pruner   interface {
		apply(msgs []Message, opts ...prune.Option) *prune.Result
	}
)

// The parts New fills in: the extractive summarizer's facts index, the
// redact package and the prune package.
type (
	extractiveFacts struct{ memo *extractive.ScanMemo }
	redactScrubber  struct{}
	rulePruner      struct{}
)

func (f extractiveFacts) factsRoom(ctx context.Context, req SummaryRequest, limit int) int {
	return extractive.FactsRoomMemo(ctx, extractiveRequest(req), limit, f.memo)
}

func (redactScrubber) scrub(s string) string { return redact.String(s) }

func (rulePruner) apply(msgs []Message, opts ...prune.Option) *prune.Result {
	return prune.Apply(msgs, opts...)
}

// errText is errText with the Compressor's scrubber.
func (c *Compressor) errText(err error) string { return c.scrub.scrub(err.Error()) }
