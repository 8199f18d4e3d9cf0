package langchaingo

import (
	"context"
	"errors"
	"fmt"

	"github.com/tmc/langchaingo/llms"

	"github.com/contextkit/compact"
	"github.com/contextkit/compact/internal/align"
)

// Compress converts msgs, compacts them through engine and converts the
// result back: one call before GenerateContent. It returns the compacted
// history and the engine's Result, whose Messages are the compacted
// history in compact's form (its indexes count those messages).
//
// It may be called before every request: when the engine does nothing (the
// Compressor under its threshold sets Result.Skipped and hands the messages
// back) Compress returns msgs itself. ShouldCompress asks the same question
// without a compaction. On error msgs are untouched and the caller keeps
// sending them. Errors are Convert's, the engine's (a
// *compact.ValidationError from the engine comes wrapped with the index of
// the message behind it), and, when msgs pass Validate but the compacted
// history would not, an error wrapping ErrShape: the engine broke a
// contract.
func Compress(ctx context.Context, engine compact.ContextEngine, msgs []llms.MessageContent,
	opts ...compact.CompressOption) ([]llms.MessageContent, *compact.Result, error) {
	conv, err := Convert(msgs)
	if err != nil {
		return nil, nil, err
	}
	res, err := engine.Compress(ctx, conv.Messages, opts...)
	if err != nil {
		var ve *compact.ValidationError
		if errors.As(err, &ve) {
			if k := conv.messageOf(ve.Index); k >= 0 {
				return nil, nil, fmt.Errorf("langchaingo: message %d: %w", k, err)
			}
		}
		return nil, nil, err
	}
	if res == nil {
		return nil, nil, fmt.Errorf("langchaingo: engine %q returned no result and no error", engine.Name())
	}
	if res.Skipped != "" && len(res.Messages) == len(conv.Messages) {
		return msgs, res, nil
	}
	out, err := conv.Restore(res.Messages)
	if err != nil {
		return nil, nil, err
	}
	if Validate(msgs) == nil {
		if err := Validate(out); err != nil {
			return nil, nil, fmt.Errorf("langchaingo: engine %q: compacted history: %w", engine.Name(), err)
		}
	}
	return out, res, nil
}

// ShouldCompress reports whether engine wants msgs compacted before they
// are sent. An engine that can preflight (the Compressor can) counts the
// converted history; any other engine judges by the usage it last recorded
// (see compact.ContextEngine.UpdateUsage and UsageFrom). It never calls a
// model. The error is Convert's.
func ShouldCompress(engine compact.ContextEngine, msgs []llms.MessageContent) (bool, error) {
	conv, err := Convert(msgs)
	if err != nil {
		return false, err
	}
	return align.ShouldCompress(engine, conv.Messages), nil
}

// The keys under which langchaingo's providers report usage in a
// ContentChoice's GenerationInfo: OpenAI-style ones, and Anthropic's.
const (
	keyPromptTokens     = "PromptTokens"
	keyCompletionTokens = "CompletionTokens"
	keyTotalTokens      = "TotalTokens"
	keyCachedTokens     = "PromptCachedTokens"
	keyInputTokens      = "InputTokens"
	keyOutputTokens     = "OutputTokens"
	keyCacheReadTokens  = "CacheReadInputTokens"
	keyCacheWriteTokens = "CacheCreationInputTokens"
)

// UsageFrom reads the usage a provider put in a ContentChoice's
// GenerationInfo (nil reads as none): the OpenAI provider's PromptTokens,
// CompletionTokens, TotalTokens and PromptCachedTokens, or the Anthropic
// provider's InputTokens and OutputTokens with its cache reads and writes
// (all of which count toward the prompt; the writes are CacheWriteTokens).
// Missing keys read as 0; a total the provider did not send is the sum.
func UsageFrom(info map[string]any) compact.Usage {
	n := func(key string) int {
		switch v := info[key].(type) {
		case int:
			return v
		case int32:
			return int(v)
		case int64:
			return int(v)
		case float64:
			return int(v)
		}
		return 0
	}
	u := compact.Usage{PromptTokens: n(keyPromptTokens), CompletionTokens: n(keyCompletionTokens),
		TotalTokens: n(keyTotalTokens), CachedTokens: n(keyCachedTokens)}
	if u.PromptTokens == 0 && u.CompletionTokens == 0 {
		u.PromptTokens = n(keyInputTokens) + n(keyCacheReadTokens) + n(keyCacheWriteTokens)
		u.CompletionTokens = n(keyOutputTokens)
		u.CachedTokens = n(keyCacheReadTokens)
		u.CacheWriteTokens = n(keyCacheWriteTokens)
	}
	if u.TotalTokens == 0 {
		u.TotalTokens = u.PromptTokens + u.CompletionTokens
	}
	return u
}
