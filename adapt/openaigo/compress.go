package openaigo

import (
	"context"
	"fmt"

	"github.com/openai/openai-go/v3"

	"github.com/contextkit/compact"
)

// Compress converts msgs, compacts them through engine and converts the
// result back: one call before a request. It returns the compacted history
// and the engine's Result, whose indexes count the converted messages,
// which are msgs' own indexes.
//
// It may be called before every request: when the engine does nothing (the
// Compressor under its threshold sets Result.Skipped and hands the messages
// back) Compress returns msgs itself. ShouldCompress asks the same question
// without a compaction. On error msgs are untouched and the caller keeps
// sending them. Errors are Convert's and the engine's (a history compact
// refuses, such as one with deprecated function messages, is a
// *compact.ValidationError naming the message).
func Compress(ctx context.Context, engine compact.ContextEngine, msgs []openai.ChatCompletionMessageParamUnion,
	opts ...compact.CompressOption) ([]openai.ChatCompletionMessageParamUnion, *compact.Result, error) {
	conv, err := Convert(msgs)
	if err != nil {
		return nil, nil, err
	}
	res, err := engine.Compress(ctx, conv.Messages, opts...)
	if err != nil {
		return nil, nil, err
	}
	if res == nil {
		return nil, nil, fmt.Errorf("openaigo: engine %q returned no result and no error", engine.Name())
	}
	if res.Skipped != "" && len(res.Messages) == len(conv.Messages) {
		return msgs, res, nil
	}
	out, err := conv.Restore(res.Messages)
	if err != nil {
		return nil, nil, err
	}
	return out, res, nil
}

// ShouldCompress reports whether engine wants msgs compacted before they
// are sent. An engine that can preflight (the Compressor can) counts the
// converted history; any other engine judges by the usage it last recorded
// (see compact.ContextEngine.UpdateUsage and UsageFrom). It never calls a
// model. The error is Convert's.
func ShouldCompress(engine compact.ContextEngine, msgs []openai.ChatCompletionMessageParamUnion) (bool, error) {
	conv, err := Convert(msgs)
	if err != nil {
		return false, err
	}
	if p, ok := engine.(compact.Preflighter); ok {
		return p.Preflight(conv.Messages, nil).Compress, nil
	}
	return engine.ShouldCompress(engine.Status().LastPromptTokens), nil
}

// UsageFrom converts the usage of a chat completion. CachedTokens comes
// from prompt_tokens_details.cached_tokens; OpenAI bills cache writes as
// ordinary input and reports none, so CacheWriteTokens is 0.
func UsageFrom(u openai.CompletionUsage) compact.Usage {
	return compact.Usage{
		PromptTokens:     int(u.PromptTokens),
		CompletionTokens: int(u.CompletionTokens),
		TotalTokens:      int(u.TotalTokens),
		CachedTokens:     int(u.PromptTokensDetails.CachedTokens),
	}
}
