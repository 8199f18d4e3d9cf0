package models

import "time"

// The cache rules the families of one provider share.
const (
	// anthropicLifetime is the default lifetime of Anthropic's prompt
	// cache, started again by each read; anthropicLongLifetime the
	// one-hour lifetime a host may ask for at twice the input price. Both
	// from Anthropic's prompt caching documentation.
	anthropicLifetime     = 5 * time.Minute
	anthropicLongLifetime = time.Hour

	// openAILifetime is how long OpenAI's prompt cache keeps a prefix
	// without use: "typically 5 to 10 minutes of inactivity", always
	// removed within an hour of its last use (OpenAI's prompt caching
	// guide). We take the shorter figure, so a replay never counts on a
	// cache the provider may already have cleared.
	openAILifetime = 5 * time.Minute

	// openAIMinPrefix is the shortest prompt OpenAI caches: "Caching is
	// enabled automatically for prompts that are 1024 tokens or longer".
	openAIMinPrefix = 1024
)

// Sources several prices share.
const (
	srcAnthropicPricing = "Anthropic, Pricing, model pricing table: https://platform.claude.com/docs/en/about-claude/pricing"
	srcAnthropicCaching = "Anthropic, Prompt caching: https://platform.claude.com/docs/en/build-with-claude/prompt-caching"
	srcOpenAICaching    = "OpenAI, Prompt caching guide: https://platform.openai.com/docs/guides/prompt-caching"
	srcOpenAIPricing    = "OpenAI, Pricing: https://platform.openai.com/docs/pricing"
)

// A price is the Pricing of the family named family in the table.
type price struct {
	family string
	p      Pricing
}

// openAIPrice is the Pricing of an OpenAI family with a prompt cache:
// writes cost the input price, and the cache rules are the guide's.
func openAIPrice(input, cacheRead, output float64, source string) Pricing {
	return Pricing{Input: input, CacheRead: cacheRead, CacheWrite: input, Output: output,
		CacheLifetime: openAILifetime, MinCachePrefix: openAIMinPrefix,
		Source: source, CacheSource: srcOpenAICaching}
}

// openAIUncached is the Pricing of an OpenAI family older than prompt
// caching ("enabled for all recent models, gpt-4o and newer").
func openAIUncached(input, output float64, source string) Pricing {
	return Pricing{Input: input, CacheRead: input, CacheWrite: input, Output: output,
		Source: source, CacheSource: srcOpenAICaching}
}

// anthropicPrice is the Pricing of a Claude family: the pricing table's
// five columns (base input, 5-minute write, 1-hour write, cache hit,
// output) and the family's minimum cacheable prompt.
func anthropicPrice(input, write5m, write1h, read, output float64, minPrefix int) Pricing {
	return Pricing{Input: input, CacheRead: read, CacheWrite: write5m, Output: output,
		CacheWriteLong: write1h, LongCacheLifetime: anthropicLongLifetime,
		CacheLifetime: anthropicLifetime, MinCachePrefix: minPrefix,
		Source: srcAnthropicPricing, CacheSource: srcAnthropicCaching}
}

// prices are the families whose prices we could source, in table order.
// A family not listed has an unknown Pricing: we found no source, or the
// sources disagreed (the comments say which), and a guess must not pass
// for a price.
//
// Figures were checked in November 2026 against the provider's page, or
// where the search corpus held no copy of it, against a third party's
// copy, named in the comment.
//
// Not priced: gpt-5-pro and gpt-5-chat (no copy of their cached-input
// price found); o1-mini, o1-preview and o3-mini (input and output found,
// cached input not); o3 (its prices were cut after launch and the copies
// found disagree); claude-3-5-sonnet (retired, gone from Anthropic's
// table); Google, DeepSeek, Qwen and Meta (not yet sourced: DeepSeek's
// aliases have moved to newer models at new prices, and Google prices
// its caches by storage time as well).
var prices = [...]price{
	// ---- OpenAI ----

	// OpenAI's GPT-5-Codex page lists GPT-5 beside it at the same
	// prices; models.dev's copy of GPT-5 agrees (1.25, 0.125, 10).
	{"gpt-5", openAIPrice(1.25, 0.125, 10.00,
		"OpenAI, GPT-5 model page: https://platform.openai.com/docs/models/gpt-5")},
	// OpenAI's own page.
	{"gpt-5-mini", openAIPrice(0.25, 0.025, 2.00,
		"OpenAI, GPT-5 mini model page: https://platform.openai.com/docs/models/gpt-5-mini")},
	// OpenAI's own page.
	{"gpt-5-nano", openAIPrice(0.05, 0.005, 0.40,
		"OpenAI, GPT-5 nano model page: https://platform.openai.com/docs/models/gpt-5-nano")},
	// Checked against GitHub's Copilot price table and LiteLLM's price
	// map (2.00, 0.50, 8.00).
	{"gpt-4.1", openAIPrice(2.00, 0.50, 8.00,
		"OpenAI, GPT-4.1 model page: https://platform.openai.com/docs/models/gpt-4.1")},
	// Checked against LiteLLM's price map (input and output) and a
	// published rate card (0.40, 0.10, 1.60).
	{"gpt-4.1-mini", openAIPrice(0.40, 0.10, 1.60,
		"OpenAI, GPT-4.1 mini model page: https://platform.openai.com/docs/models/gpt-4.1-mini")},
	// OpenAI's own page.
	{"gpt-4.1-nano", openAIPrice(0.10, 0.025, 0.40,
		"OpenAI, GPT-4.1 nano model page: https://platform.openai.com/docs/models/gpt-4.1-nano")},
	// Checked against the openai-models crate's copy of OpenAI's pricing
	// page (2.50, 1.25, 10.00).
	{"gpt-4o", openAIPrice(2.50, 1.25, 10.00,
		"OpenAI, GPT-4o model page: https://platform.openai.com/docs/models/gpt-4o")},
	{"gpt-4o-mini", openAIPrice(0.15, 0.075, 0.60,
		"OpenAI, GPT-4o mini model page: https://platform.openai.com/docs/models/gpt-4o-mini")},
	// Checked against an OpenAI community answer quoting the pricing page
	// (15.00, 7.50, 60.00) and the openai-models crate.
	{"o1", openAIPrice(15.00, 7.50, 60.00,
		"OpenAI, o1 model page: https://platform.openai.com/docs/models/o1")},
	// Checked against Roo Code's table citing this page and a published
	// rate card (1.10, 0.275, 4.40).
	{"o4-mini", openAIPrice(1.10, 0.275, 4.40,
		"OpenAI, o4-mini model page: https://platform.openai.com/docs/models/o4-mini")},
	// Before prompt caching; input and output as a copy of OpenAI's
	// pricing page gives them (kunishou/GenerativeAI-Cost).
	{"gpt-4-turbo", openAIUncached(10.00, 30.00, srcOpenAIPricing)},
	{"gpt-4", openAIUncached(30.00, 60.00, srcOpenAIPricing)},
	{"gpt-3.5-turbo", openAIUncached(0.50, 1.50, srcOpenAIPricing)},

	// ---- Anthropic ----
	//
	// Anthropic's pricing table (its own page) and, for the minimum
	// cacheable prompt, its prompt caching page as quoted in
	// anthropic-sdk-python issue 1194: 4,096 tokens for Opus 4.5 and
	// Haiku 4.5, 1,024 for Sonnet 4.5, Opus 4.1, Opus 4, Sonnet 4 and
	// Sonnet 3.7, 2,048 for Haiku 3.5.

	{"claude-opus-4-5", anthropicPrice(5, 6.25, 10, 0.50, 25, 4096)},
	{"claude-opus-4-1", anthropicPrice(15, 18.75, 30, 1.50, 75, 1024)},
	{"claude-opus-4", anthropicPrice(15, 18.75, 30, 1.50, 75, 1024)},
	{"claude-sonnet-4-5", anthropicPrice(3, 3.75, 6, 0.30, 15, 1024)},
	{"claude-sonnet-4", anthropicPrice(3, 3.75, 6, 0.30, 15, 1024)},
	{"claude-haiku-4-5", anthropicPrice(1, 1.25, 2, 0.10, 5, 4096)},
	{"claude-3-7-sonnet", anthropicPrice(3, 3.75, 6, 0.30, 15, 1024)},
	{"claude-3-5-haiku", anthropicPrice(0.80, 1, 1.6, 0.08, 4, 2048)},
}

// pricingOf returns the Pricing of the family named family, or the zero
// (unknown) Pricing.
func pricingOf(family string) Pricing {
	for i := range prices {
		if prices[i].family == family {
			return prices[i].p
		}
	}
	return Pricing{}
}
