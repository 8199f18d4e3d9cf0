package compact

import (
	"context"
	"strings"

	"github.com/contextkit/compact/handoff"
	"github.com/contextkit/compact/internal/extractive"
	"github.com/contextkit/compact/internal/msg"
	"github.com/contextkit/compact/internal/promptsize"
	"github.com/contextkit/compact/prune"
	"github.com/contextkit/compact/redact"
	"github.com/contextkit/compact/tokens"
)

// The work a compaction hands off sits behind these interfaces, which New
// fills in, so the engine depends on what they answer, not on how: the
// size of the prompt SummaryPrompt would render (estimated, see
// promptsize.Prompt), the facts index of a range
// (see extractive.FactsRoom), a handoff packet written (any error leaves
// nothing behind), an error's text redacted (see errText), pruning, and
// the message counts the engine uses (the host's or the model's counter,
// remembered per message, see trigger.Remembered).
type (
	roundCounter interface {
		tokens.Counter
		Round() // starts a call: counts its last two calls did not use are forgotten
	}
	promptSizer interface {
		promptTokens(tc tokens.Counter, req SummaryRequest) int
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

// The parts New fills in: the prompt's estimate, the extractive
// summarizer's facts index, the redact package and the prune package.
type (
	promptEstimate  struct{ memo *promptsize.Memo }
	extractiveFacts struct{ memo *extractive.ScanMemo }
	redactScrubber  struct{}
	rulePruner      struct{}
)

func (p promptEstimate) promptTokens(tc tokens.Counter, req SummaryRequest) int {
	instructions := req.Prompt
	if strings.TrimSpace(instructions) == "" {
		instructions = DefaultSummaryInstructions
	}
	p.memo.Round()
	return promptsize.PromptMemo(tc, promptsize.Request{Instructions: instructions,
		Previous: msg.StripSummaryPrefix(req.PreviousSummary), Focus: req.Focus, Turns: req.Turns, Target: req.TargetTokens},
		promptsize.Caps{Message: defaultMaxMessageChars, Arguments: defaultMaxArgumentChars, Total: defaultMaxChars,
			GapMarker: gapMarkerMax, Separator: blockSep}, p.memo)
}

func (f extractiveFacts) factsRoom(ctx context.Context, req SummaryRequest, limit int) int {
	return extractive.FactsRoomMemo(ctx, extractiveRequest(req), limit, f.memo)
}

func (redactScrubber) scrub(s string) string { return redact.String(s) }

func (rulePruner) apply(msgs []Message, opts ...prune.Option) *prune.Result {
	return prune.Apply(msgs, opts...)
}

// errText is errText with the Compressor's scrubber.
func (c *Compressor) errText(err error) string { return c.scrub.scrub(err.Error()) }
