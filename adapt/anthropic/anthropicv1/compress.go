package anthropicv1

import (
	"context"
	"errors"
	"fmt"

	sdk "github.com/anthropics/anthropic-sdk-go"

	"github.com/contextkit/compact"
)

// Compress converts h, compacts it through engine and converts the result
// back: one call before a request. It returns the compacted history and the
// engine's Result, whose Messages are the compacted history in compact's
// form (SummarizedFrom and the other indexes count those messages, not
// turns).
//
// It may be called before every request: when the engine does nothing (the
// Compressor under its threshold sets Result.Skipped and hands the messages
// back) Compress returns h itself. ShouldCompress asks the same question
// without a compaction. On error h is untouched and the caller keeps
// sending it. Errors are Convert's, the engine's (a *compact.ValidationError
// from the engine comes wrapped with the index of the turn behind it), and,
// when h has the Messages API's shape but the compacted history would not,
// an error wrapping ErrShape: the engine broke a contract.
func Compress(ctx context.Context, engine compact.ContextEngine, h History, opts ...compact.CompressOption) (History, *compact.Result, error) {
	conv, err := Convert(h)
	if err != nil {
		return History{}, nil, err
	}
	res, err := engine.Compress(ctx, conv.Messages, opts...)
	if err != nil {
		var ve *compact.ValidationError
		if errors.As(err, &ve) {
			if turn := conv.turnOf(ve.Index); turn >= 0 {
				return History{}, nil, fmt.Errorf("anthropic: History.Messages[%d]: %w", turn, err)
			}
		}
		return History{}, nil, err
	}
	if res == nil {
		return History{}, nil, fmt.Errorf("anthropic: engine %q returned no result and no error", engine.Name())
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
			return History{}, nil, fmt.Errorf("anthropic: engine %q: compacted history: %w", engine.Name(), err)
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
	if p, ok := engine.(compact.Preflighter); ok {
		return p.Preflight(conv.Messages, nil).Compress, nil
	}
	return engine.ShouldCompress(engine.Status().LastPromptTokens), nil
}

// UsageFrom converts the usage of a Messages API response. The prompt is
// every input token: uncached, written to the cache and read from it.
// CachedTokens is cache_read_input_tokens and CacheWriteTokens
// cache_creation_input_tokens (writes of every lifetime together).
func UsageFrom(u sdk.Usage) compact.Usage {
	prompt := int(u.InputTokens + u.CacheCreationInputTokens + u.CacheReadInputTokens)
	return compact.Usage{
		PromptTokens:     prompt,
		CompletionTokens: int(u.OutputTokens),
		TotalTokens:      prompt + int(u.OutputTokens),
		CachedTokens:     int(u.CacheReadInputTokens),
		CacheWriteTokens: int(u.CacheCreationInputTokens),
	}
}
