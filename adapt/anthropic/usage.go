package anthropic

import (
	"encoding/json"

	sdk "github.com/anthropics/anthropic-sdk-go/v2"

	"github.com/contextkit/compact"
)

// UsageFrom converts the usage of a Messages API response for
// compact.ContextEngine.UpdateUsage. The prompt is every input token:
// uncached, written to the cache and read from it. CachedTokens is
// cache_read_input_tokens and CacheWriteTokens cache_creation_input_tokens
// (writes of every lifetime together).
//
// A response that took several sampling iterations (a server tool loop, or
// Anthropic's compaction, which summarises the context in an iteration of
// its own) lists them in usage.iterations, and UsageFrom reads them:
// PromptTokens, CachedTokens and CacheWriteTokens are then the last message
// iteration's, the context the conversation holds now, which is what an
// engine's threshold is about (the top-level input fields add up every
// message iteration). CompletionTokens is every output token of the
// message iterations (output_tokens), and TotalTokens every token the
// response billed: the top-level input and output, plus the compaction
// iterations', which the top level leaves out. CompactionUsage reports the
// compaction iterations alone. SDK v2 keeps the iterations only in the
// usage's raw JSON: a Usage built by hand has none.
func UsageFrom(u sdk.Usage) compact.Usage {
	prompt := int(u.InputTokens + u.CacheCreationInputTokens + u.CacheReadInputTokens)
	out := compact.Usage{
		PromptTokens:     prompt,
		CompletionTokens: int(u.OutputTokens),
		TotalTokens:      prompt + int(u.OutputTokens),
		CachedTokens:     int(u.CacheReadInputTokens),
		CacheWriteTokens: int(u.CacheCreationInputTokens),
	}
	its := iterationsOf(u)
	for i := len(its) - 1; i >= 0; i-- {
		if it := its[i]; it.Type == iterationMessage || it.Type == iterationFallbackMessage {
			out.PromptTokens, out.CachedTokens, out.CacheWriteTokens = it.input(), it.CacheRead, it.CacheWrite
			break
		}
	}
	pass, _ := compactionUsage(its)
	out.TotalTokens += pass.TotalTokens
	return out
}

// CompactionUsage is what Anthropic's compaction cost in the response
// whose usage u is: the compaction iterations of usage.iterations, summed
// (the prompt every input token of the summarising pass, cached or not,
// the completion the summary it wrote). ok is false when the response had
// none. It is not the usage of a request: give UpdateUsage UsageFrom's.
func CompactionUsage(u sdk.Usage) (usage compact.Usage, ok bool) {
	return compactionUsage(iterationsOf(u))
}

// The iteration types of usage.iterations this package reads: a sampling
// pass of the conversation's model, the same on a fallback model, and a
// compaction pass. An advisor's iterations (another model consulted) are
// neither.
const (
	iterationMessage         = "message"
	iterationFallbackMessage = "fallback_message"
	iterationCompaction      = "compaction"
)

// iteration is one entry of usage.iterations.
type iteration struct {
	Type       string `json:"type"`
	Input      int    `json:"input_tokens"`
	Output     int    `json:"output_tokens"`
	CacheRead  int    `json:"cache_read_input_tokens"`
	CacheWrite int    `json:"cache_creation_input_tokens"`
}

// input is every input token of the iteration, cached or not.
func (it iteration) input() int { return it.Input + it.CacheRead + it.CacheWrite }

// iterationsOf reads usage.iterations from u's raw JSON; nil when there is
// none or it does not parse.
func iterationsOf(u sdk.Usage) []iteration {
	raw := u.RawJSON()
	if raw == "" {
		return nil
	}
	var w struct {
		Iterations []iteration `json:"iterations"`
	}
	if json.Unmarshal([]byte(raw), &w) != nil {
		return nil
	}
	return w.Iterations
}

// compactionUsage sums the compaction iterations of its.
func compactionUsage(its []iteration) (compact.Usage, bool) {
	var out compact.Usage
	found := false
	for _, it := range its {
		if it.Type != iterationCompaction {
			continue
		}
		found = true
		out.PromptTokens += it.input()
		out.CompletionTokens += it.Output
		out.CachedTokens += it.CacheRead
		out.CacheWriteTokens += it.CacheWrite
	}
	out.TotalTokens = out.PromptTokens + out.CompletionTokens
	return out, found
}
