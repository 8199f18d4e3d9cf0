package eino

import (
	"context"
	"fmt"

	"github.com/cloudwego/eino/schema"

	"github.com/contextkit/compact"
	"github.com/contextkit/compact/internal/align"
)

// Compress converts msgs, compacts them through engine and converts the
// result back: one call before a model request. It returns the compacted
// history and the engine's Result, whose indexes count the converted
// messages, which are msgs' own indexes.
//
// It may be called before every request: when the engine does nothing (the
// Compressor under its threshold sets Result.Skipped and hands the messages
// back) Compress returns msgs itself. ShouldCompress asks the same question
// without a compaction. On error msgs are untouched and the caller keeps
// sending them. Errors are Convert's and the engine's (a history compact
// refuses is a *compact.ValidationError naming the message).
func Compress(ctx context.Context, engine compact.ContextEngine, msgs []*schema.Message,
	opts ...compact.CompressOption) ([]*schema.Message, *compact.Result, error) {
	conv, err := Convert(msgs)
	if err != nil {
		return nil, nil, err
	}
	res, err := engine.Compress(ctx, conv.Messages, opts...)
	if err != nil {
		return nil, nil, err
	}
	if res == nil {
		return nil, nil, fmt.Errorf("eino: engine %q returned no result and no error", engine.Name())
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
func ShouldCompress(engine compact.ContextEngine, msgs []*schema.Message) (bool, error) {
	conv, err := Convert(msgs)
	if err != nil {
		return false, err
	}
	return align.ShouldCompress(engine, conv.Messages), nil
}

// UsageFrom converts the usage an eino model reports in a response's
// ResponseMeta: CachedTokens is PromptTokenDetails.CachedTokens and
// CacheWriteTokens PromptTokenDetails.CacheWriteTokens (both 0 from a model
// component that does not report them). nil is no usage.
func UsageFrom(u *schema.TokenUsage) compact.Usage {
	if u == nil {
		return compact.Usage{}
	}
	return compact.Usage{
		PromptTokens:     u.PromptTokens,
		CompletionTokens: u.CompletionTokens,
		TotalTokens:      u.TotalTokens,
		CachedTokens:     u.PromptTokenDetails.CachedTokens,
		CacheWriteTokens: u.PromptTokenDetails.CacheWriteTokens,
	}
}
