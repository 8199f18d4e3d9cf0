package genai

import (
	"context"
	"errors"
	"fmt"

	sdk "google.golang.org/genai"

	"github.com/contextkit/compact"
	"github.com/contextkit/compact/internal/align"
)

// Compress converts h, compacts it through engine and converts the result
// back: one call before a request. It returns the compacted history and the
// engine's Result, whose Messages are the compacted history in compact's
// form (SummarizedFrom and the other indexes count those messages, not
// contents).
//
// It may be called before every request: when the engine does nothing (the
// Compressor under its threshold sets Result.Skipped and hands the messages
// back) Compress returns h itself. ShouldCompress asks the same question
// without a compaction. On error h is untouched and the caller keeps
// sending it. Errors are Convert's, the engine's (a *compact.ValidationError
// from the engine comes wrapped with the index of the content behind it),
// and, when h has the Gemini API's shape but the compacted history would
// not, an error wrapping ErrShape: the engine broke a contract.
func Compress(ctx context.Context, engine compact.ContextEngine, h History, opts ...compact.CompressOption) (History, *compact.Result, error) {
	conv, err := Convert(h)
	if err != nil {
		return History{}, nil, err
	}
	res, err := engine.Compress(ctx, conv.Messages, opts...)
	if err != nil {
		var ve *compact.ValidationError
		if errors.As(err, &ve) {
			if k := conv.contentOf(ve.Index); k >= 0 {
				return History{}, nil, fmt.Errorf("genai: History.Contents[%d]: %w", k, err)
			}
		}
		return History{}, nil, err
	}
	if res == nil {
		return History{}, nil, fmt.Errorf("genai: engine %q returned no result and no error", engine.Name())
	}
	if res.Skipped != "" && len(res.Messages) == len(conv.Messages) {
		return h, res, nil
	}
	out, err := conv.Restore(res.Messages)
	if err != nil {
		return History{}, nil, err
	}
	if Validate(h) == nil {
		if err := Validate(out); err != nil {
			return History{}, nil, fmt.Errorf("genai: engine %q: compacted history: %w", engine.Name(), err)
		}
	}
	return out, res, nil
}

// ShouldCompress reports whether engine wants h compacted before it is
// sent. An engine that can preflight (the Compressor can) counts the
// converted history; any other engine judges by the usage it last recorded
// (see compact.ContextEngine.UpdateUsage and UsageFrom). It never calls a
// model. The error is Convert's.
func ShouldCompress(engine compact.ContextEngine, h History) (bool, error) {
	conv, err := Convert(h)
	if err != nil {
		return false, err
	}
	return align.ShouldCompress(engine, conv.Messages), nil
}

// UsageFrom converts the usage metadata of a GenerateContentResponse (nil
// reads as none). The prompt is every token of the request, cached ones
// included, as Gemini counts them; the completion counts the answer and
// the thoughts, which are billed as output. Gemini reports no cache
// writes, so CacheWriteTokens is 0.
func UsageFrom(u *sdk.GenerateContentResponseUsageMetadata) compact.Usage {
	if u == nil {
		return compact.Usage{}
	}
	completion := int(u.CandidatesTokenCount + u.ThoughtsTokenCount)
	total := int(u.TotalTokenCount)
	if total == 0 {
		total = int(u.PromptTokenCount+u.ToolUsePromptTokenCount) + completion
	}
	return compact.Usage{
		PromptTokens:     int(u.PromptTokenCount),
		CompletionTokens: completion,
		TotalTokens:      total,
		CachedTokens:     int(u.CachedContentTokenCount),
	}
}
