// Package openaicompat is a [compact.Summarizer] that asks any endpoint
// speaking OpenAI's Chat Completions API for the summary: OpenAI itself, a
// gateway, or a local server such as Ollama, vLLM or llama.cpp.
//
// [New] builds one for a model. What it sends is what
// [compact.SummaryPrompt] renders (secrets redacted, long turns shortened),
// and nothing is sent until a compaction asks for a summary. It retries rate
// limits and server errors with jittered backoff (honouring Retry-After),
// gives up at once on failures that retrying cannot fix, and reports every
// failure as an [*Error] that unwraps to the root package's sentinels
// ([compact.ErrSummarizerAuth], [compact.ErrSummarizerQuota], ...), so a
// Compressor knows to abort rather than fall back. The API key never
// appears in an error or a log line.
//
// The package is named for what it speaks, so that it can be imported
// beside go-openai's openai package without renaming either.
package openaicompat
