// Package models is a table of current model families from OpenAI,
// Anthropic, Google, DeepSeek, Qwen and Meta: for each, the context window,
// the longest reply, how its tokens are counted, what its tokens cost and
// how its prompt cache keeps them, and the pages the figures come from.
//
// Lookup takes a model name as a host sends it and returns its family:
//
//	m, ok := models.Lookup("openrouter/anthropic/claude-sonnet-4-20250514")
//	// m.Name "claude-sonnet-4", m.Window 200000, m.MaxOutput 64000
//
// Case is ignored; a provider path ("openai/", "models/"), a fine-tune
// prefix ("ft:") and a Bedrock region and vendor ("us.anthropic.") are
// dropped; a dated snapshot ("-20250514", "-2024-08-06"), "-latest", an
// "@version" or a ":tag" after a family's name still names the family; and
// the longest matching name wins, so gpt-4o-mini is not taken for gpt-4o.
// A newer minor version is not taken for its older family
// ("claude-opus-4-6" is not claude-opus-4, "gpt-5.1" is not gpt-5): a name
// the table does not know returns false, and the caller keeps its own
// defaults.
//
// # Windows and replies
//
// Window is the whole context, prompt and reply together; MaxOutput is the
// longest reply the provider allows. Where a provider offers more behind a
// beta header, a usage tier or a scaling switch (Claude's 1M-token beta,
// Qwen's YaRN), or where sources disagree, the table takes the smaller
// figure: a window set too small makes compaction come early, one set too
// large makes the provider reject the request. The comments on the rows
// in table.go say where each figure was checked and what disagrees.
// Models retire and move: a host that knows its deployment's window should
// set it.
//
// # Tokenizers
//
// OpenAI's models use o200k_base or cl100k_base, encodings the root package
// embeds, and are counted exactly. The other families' tokenizers are not
// embedded: count with o200k_base and multiply by Calibration, an estimate
// of the ratio of the family's own count to o200k_base's on English text
// and code. Each factor's basis is listed below. The ones marked as ours
// were measured by testdata/calibration/measure.mjs, which counts the
// message text of the shared agent transcripts with the published
// tokenizers; chat-template tokens are not included. The factors are
// starting points: the prompt tokens a provider reports for a request are
// the true count, and a host that reads them should calibrate from them.
//
// # Prices and the prompt cache
//
// Providers cache the leading part of a request that is byte-identical to
// one they stored a moment ago and bill it at a fraction of the input
// price (Pricing.CacheRead); the rest is written to the cache, at a
// premium at Anthropic (1.25 times the input price for a five-minute
// lifetime, twice for an hour) and at the input price at OpenAI. A stored
// prefix lives CacheLifetime after its last read, and only prefixes of at
// least MinCachePrefix tokens are stored. Pricing.Cost prices one
// request's tokens, Pricing.Equivalent expresses that in input tokens
// billed in full, and Pricing.PriceEdit prices an edit to a cached
// history: what it costs and after how many requests it pays back the
// cache it breaks.
//
// Prices come only from a source: a family whose prices we could not
// source has the zero Pricing, which is not Known, and the arithmetic
// refuses it with ErrUnpriced rather than guess. Prices change; a host
// that knows its own should use them.
//
// # The table
//
//	| Family                | Provider  | Window    | Max output | Tokenizer         | Source |
//	|-----------------------|-----------|-----------|------------|-------------------|--------|
//	| gpt-5                 | openai    |   400,000 |    128,000 | o200k_base        | [1]    |
//	| gpt-5-mini            | openai    |   400,000 |    128,000 | o200k_base        | [2]    |
//	| gpt-5-nano            | openai    |   400,000 |    128,000 | o200k_base        | [3]    |
//	| gpt-5-pro             | openai    |   400,000 |    272,000 | o200k_base        | [4]    |
//	| gpt-5-chat            | openai    |   128,000 |     16,384 | o200k_base        | [5]    |
//	| gpt-4.1               | openai    | 1,047,576 |     32,768 | o200k_base        | [6]    |
//	| gpt-4.1-mini          | openai    | 1,047,576 |     32,768 | o200k_base        | [7]    |
//	| gpt-4.1-nano          | openai    | 1,047,576 |     32,768 | o200k_base        | [8]    |
//	| gpt-4o                | openai    |   128,000 |     16,384 | o200k_base        | [9]    |
//	| gpt-4o-mini           | openai    |   128,000 |     16,384 | o200k_base        | [10]   |
//	| o1                    | openai    |   200,000 |    100,000 | o200k_base        | [11]   |
//	| o1-mini               | openai    |   128,000 |     65,536 | o200k_base        | [12]   |
//	| o1-preview            | openai    |   128,000 |     32,768 | o200k_base        | [13]   |
//	| o3                    | openai    |   200,000 |    100,000 | o200k_base        | [14]   |
//	| o3-mini               | openai    |   200,000 |    100,000 | o200k_base        | [15]   |
//	| o4-mini               | openai    |   200,000 |    100,000 | o200k_base        | [16]   |
//	| gpt-4-turbo           | openai    |   128,000 |      4,096 | cl100k_base       | [17]   |
//	| gpt-4                 | openai    |     8,192 |      8,192 | cl100k_base       | [18]   |
//	| gpt-3.5-turbo         | openai    |    16,385 |      4,096 | cl100k_base       | [19]   |
//	| claude-opus-4-5       | anthropic |   200,000 |     64,000 | o200k_base × 1.20 | [20]   |
//	| claude-opus-4-1       | anthropic |   200,000 |     32,000 | o200k_base × 1.20 | [21]   |
//	| claude-opus-4         | anthropic |   200,000 |     32,000 | o200k_base × 1.20 | [21]   |
//	| claude-sonnet-4-5     | anthropic |   200,000 |     64,000 | o200k_base × 1.20 | [22]   |
//	| claude-sonnet-4       | anthropic |   200,000 |     64,000 | o200k_base × 1.20 | [21]   |
//	| claude-haiku-4-5      | anthropic |   200,000 |     64,000 | o200k_base × 1.20 | [23]   |
//	| claude-3-7-sonnet     | anthropic |   200,000 |     64,000 | o200k_base × 1.20 | [21]   |
//	| claude-3-5-sonnet     | anthropic |   200,000 |      8,192 | o200k_base × 1.20 | [21]   |
//	| claude-3-5-haiku      | anthropic |   200,000 |      8,192 | o200k_base × 1.20 | [21]   |
//	| gemini-2.5-pro        | google    | 1,048,576 |     65,536 | o200k_base × 1.16 | [24]   |
//	| gemini-2.5-flash      | google    | 1,048,576 |     65,536 | o200k_base × 1.16 | [25]   |
//	| gemini-2.5-flash-lite | google    | 1,048,576 |     65,536 | o200k_base × 1.16 | [26]   |
//	| gemini-2.0-flash      | google    | 1,048,576 |      8,192 | o200k_base × 1.16 | [27]   |
//	| gemini-2.0-flash-lite | google    | 1,048,576 |      8,192 | o200k_base × 1.16 | [28]   |
//	| gemini-1.5-pro        | google    | 2,097,152 |      8,192 | o200k_base × 1.16 | [29]   |
//	| gemini-1.5-flash      | google    | 1,048,576 |      8,192 | o200k_base × 1.16 | [29]   |
//	| deepseek-chat         | deepseek  |   128,000 |      8,192 | o200k_base × 1.05 | [30]   |
//	| deepseek-reasoner     | deepseek  |   128,000 |     65,536 | o200k_base × 1.05 | [30]   |
//	| qwen3-max             | qwen      |   262,144 |     65,536 | o200k_base × 1.09 | [31]   |
//	| qwen3                 | qwen      |    32,768 |      8,192 | o200k_base × 1.09 | [32]   |
//	| qwen2.5               | qwen      |    32,768 |      8,192 | o200k_base × 1.09 | [33]   |
//	| qwen-max              | qwen      |    32,768 |      8,192 | o200k_base × 1.09 | [31]   |
//	| qwen-plus             | qwen      |   131,072 |      8,192 | o200k_base × 1.09 | [31]   |
//	| qwen-turbo            | qwen      | 1,000,000 |      8,192 | o200k_base × 1.09 | [31]   |
//	| llama-4-maverick      | meta      |   128,000 |      4,028 | o200k_base × 1.00 | [34]   |
//	| llama-4-scout         | meta      |   128,000 |      4,028 | o200k_base × 1.00 | [34]   |
//	| llama-3.3             | meta      |   128,000 |      4,028 | o200k_base × 1.01 | [34]   |
//	| llama-3.2             | meta      |   128,000 |      4,028 | o200k_base × 1.01 | [35]   |
//	| llama-3.1             | meta      |   128,000 |      4,028 | o200k_base × 1.01 | [36]   |
//
// # Prices
//
// US dollars per million tokens; "-" where no price could be sourced.
// Cache is the lifetime of a cached prefix ("none": no prompt cache,
// every input token billed in full); 1h write is the price of a write kept
// for an hour where the provider offers it; Min is the shortest prefix
// cached, in tokens.
//
//	| Family                | Input | Cache read | Cache write | 1h write | Output | Cache | Min   | Source     |
//	|-----------------------|-------|------------|-------------|----------|--------|-------|-------|------------|
//	| gpt-5                 | 1.25  | 0.125      | 1.25        | -        | 10.00  | 5m    | 1,024 | [1], [37]  |
//	| gpt-5-mini            | 0.25  | 0.025      | 0.25        | -        | 2.00   | 5m    | 1,024 | [2], [37]  |
//	| gpt-5-nano            | 0.05  | 0.005      | 0.05        | -        | 0.40   | 5m    | 1,024 | [3], [37]  |
//	| gpt-5-pro             | -     | -          | -           | -        | -      | -     | -     | -          |
//	| gpt-5-chat            | -     | -          | -           | -        | -      | -     | -     | -          |
//	| gpt-4.1               | 2.00  | 0.50       | 2.00        | -        | 8.00   | 5m    | 1,024 | [6], [37]  |
//	| gpt-4.1-mini          | 0.40  | 0.10       | 0.40        | -        | 1.60   | 5m    | 1,024 | [7], [37]  |
//	| gpt-4.1-nano          | 0.10  | 0.025      | 0.10        | -        | 0.40   | 5m    | 1,024 | [8], [37]  |
//	| gpt-4o                | 2.50  | 1.25       | 2.50        | -        | 10.00  | 5m    | 1,024 | [9], [37]  |
//	| gpt-4o-mini           | 0.15  | 0.075      | 0.15        | -        | 0.60   | 5m    | 1,024 | [10], [37] |
//	| o1                    | 15.00 | 7.50       | 15.00       | -        | 60.00  | 5m    | 1,024 | [11], [37] |
//	| o1-mini               | -     | -          | -           | -        | -      | -     | -     | -          |
//	| o1-preview            | -     | -          | -           | -        | -      | -     | -     | -          |
//	| o3                    | -     | -          | -           | -        | -      | -     | -     | -          |
//	| o3-mini               | -     | -          | -           | -        | -      | -     | -     | -          |
//	| o4-mini               | 1.10  | 0.275      | 1.10        | -        | 4.40   | 5m    | 1,024 | [16], [37] |
//	| gpt-4-turbo           | 10.00 | 10.00      | 10.00       | -        | 30.00  | none  | -     | [38], [37] |
//	| gpt-4                 | 30.00 | 30.00      | 30.00       | -        | 60.00  | none  | -     | [38], [37] |
//	| gpt-3.5-turbo         | 0.50  | 0.50       | 0.50        | -        | 1.50   | none  | -     | [38], [37] |
//	| claude-opus-4-5       | 5.00  | 0.50       | 6.25        | 10.00    | 25.00  | 5m    | 4,096 | [39], [40] |
//	| claude-opus-4-1       | 15.00 | 1.50       | 18.75       | 30.00    | 75.00  | 5m    | 1,024 | [39], [40] |
//	| claude-opus-4         | 15.00 | 1.50       | 18.75       | 30.00    | 75.00  | 5m    | 1,024 | [39], [40] |
//	| claude-sonnet-4-5     | 3.00  | 0.30       | 3.75        | 6.00     | 15.00  | 5m    | 1,024 | [39], [40] |
//	| claude-sonnet-4       | 3.00  | 0.30       | 3.75        | 6.00     | 15.00  | 5m    | 1,024 | [39], [40] |
//	| claude-haiku-4-5      | 1.00  | 0.10       | 1.25        | 2.00     | 5.00   | 5m    | 4,096 | [39], [40] |
//	| claude-3-7-sonnet     | 3.00  | 0.30       | 3.75        | 6.00     | 15.00  | 5m    | 1,024 | [39], [40] |
//	| claude-3-5-sonnet     | -     | -          | -           | -        | -      | -     | -     | -          |
//	| claude-3-5-haiku      | 0.80  | 0.08       | 1.00        | 1.60     | 4.00   | 5m    | 2,048 | [39], [40] |
//	| gemini-2.5-pro        | -     | -          | -           | -        | -      | -     | -     | -          |
//	| gemini-2.5-flash      | -     | -          | -           | -        | -      | -     | -     | -          |
//	| gemini-2.5-flash-lite | -     | -          | -           | -        | -      | -     | -     | -          |
//	| gemini-2.0-flash      | -     | -          | -           | -        | -      | -     | -     | -          |
//	| gemini-2.0-flash-lite | -     | -          | -           | -        | -      | -     | -     | -          |
//	| gemini-1.5-pro        | -     | -          | -           | -        | -      | -     | -     | -          |
//	| gemini-1.5-flash      | -     | -          | -           | -        | -      | -     | -     | -          |
//	| deepseek-chat         | -     | -          | -           | -        | -      | -     | -     | -          |
//	| deepseek-reasoner     | -     | -          | -           | -        | -      | -     | -     | -          |
//	| qwen3-max             | -     | -          | -           | -        | -      | -     | -     | -          |
//	| qwen3                 | -     | -          | -           | -        | -      | -     | -     | -          |
//	| qwen2.5               | -     | -          | -           | -        | -      | -     | -     | -          |
//	| qwen-max              | -     | -          | -           | -        | -      | -     | -     | -          |
//	| qwen-plus             | -     | -          | -           | -        | -      | -     | -     | -          |
//	| qwen-turbo            | -     | -          | -           | -        | -      | -     | -     | -          |
//	| llama-4-maverick      | -     | -          | -           | -        | -      | -     | -     | -          |
//	| llama-4-scout         | -     | -          | -           | -        | -      | -     | -     | -          |
//	| llama-3.3             | -     | -          | -           | -        | -      | -     | -     | -          |
//	| llama-3.2             | -     | -          | -           | -        | -      | -     | -     | -          |
//	| llama-3.1             | -     | -          | -           | -        | -      | -     | -     | -          |
//
// # Calibration factors
//
// Claude (Anthropic), × 1.20. Anthropic publishes no tokenizer for these
// models, so we could not measure it. A published comparison of Claude 3.5
// Sonnet with GPT-4o (o200k_base) on the same inputs found 16% more tokens
// on English articles, 21% more on mathematics and 30% more on Python code
// (Lavanya Gupta, "Hidden costs in AI deployment: Why Claude models may be
// 20-30% more expensive than GPT in enterprise settings", VentureBeat, May
// 2025). Agent histories mix prose with code and JSON; we take 1.20, between
// the prose and the code figures. We assume Claude 3.5 through 4.5 share
// that tokenizer: Anthropic's model documentation says the tokenizer of
// Claude 4.7 and later counts about 30% more than Claude Haiku 4.5's, which
// places the change after the models in this table.
//
// Gemini (Google), × 1.16. Google publishes no Gemini tokenizer, but the
// Gemma 3 technical report (Google DeepMind, 2025) says Gemma 3 uses the
// same tokenizer as Gemini 2.0. Our measurement: we counted the message text
// of the 30 agent transcripts in ../shared/transcripts (1.2 million
// characters of English prose, code and JSON tool output) with Gemma 3's
// published tokenizer and with o200k_base, and found 1.163 times as many
// tokens (per transcript, 1.07 to 1.28). We assume Gemini 2.5 and 1.5
// tokenize like 2.0.
//
// DeepSeek, × 1.05. Our measurement, made as for Gemini, with DeepSeek-V3's
// published tokenizer, which deepseek-chat and deepseek-reasoner (V3 and R1)
// share: 1.047 times o200k_base (per transcript, 1.01 to 1.15).
//
// Qwen, × 1.09. Our measurement, made as for Gemini, with the published
// Qwen2.5 and Qwen3 tokenizers, which gave identical counts: 1.088 times
// o200k_base (per transcript, 1.00 to 1.14). Qwen writes every digit as a
// token of its own, which costs most in number-heavy tool output. We assume
// qwen-max, qwen-plus and qwen-turbo, which Alibaba builds on these models,
// tokenize alike.
//
// Llama 4, × 1.00. Unknown: Llama 4 has a tokenizer of its own that we did
// not measure, so the factor stays 1.
//
// Llama 3, × 1.01. Our measurement, made as for Gemini, with Llama 3's
// published tokenizer, which 3.1, 3.2 and 3.3 share: 1.006 times o200k_base
// (per transcript, 0.99 to 1.04), the same as cl100k_base, from which Meta
// built it.
//
// # Sources
//
//	[1] OpenAI, GPT-5 model page: https://platform.openai.com/docs/models/gpt-5
//	[2] OpenAI, GPT-5 mini model page: https://platform.openai.com/docs/models/gpt-5-mini
//	[3] OpenAI, GPT-5 nano model page: https://platform.openai.com/docs/models/gpt-5-nano
//	[4] OpenAI, GPT-5 pro model page: https://platform.openai.com/docs/models/gpt-5-pro
//	[5] OpenAI, GPT-5 Chat model page: https://platform.openai.com/docs/models/gpt-5-chat-latest
//	[6] OpenAI, GPT-4.1 model page: https://platform.openai.com/docs/models/gpt-4.1
//	[7] OpenAI, GPT-4.1 mini model page: https://platform.openai.com/docs/models/gpt-4.1-mini
//	[8] OpenAI, GPT-4.1 nano model page: https://platform.openai.com/docs/models/gpt-4.1-nano
//	[9] OpenAI, GPT-4o model page: https://platform.openai.com/docs/models/gpt-4o
//	[10] OpenAI, GPT-4o mini model page: https://platform.openai.com/docs/models/gpt-4o-mini
//	[11] OpenAI, o1 model page: https://platform.openai.com/docs/models/o1
//	[12] OpenAI, o1-mini model page: https://platform.openai.com/docs/models/o1-mini
//	[13] OpenAI, o1-preview model page: https://platform.openai.com/docs/models/o1-preview
//	[14] OpenAI, o3 model page: https://platform.openai.com/docs/models/o3
//	[15] OpenAI, o3-mini model page: https://platform.openai.com/docs/models/o3-mini
//	[16] OpenAI, o4-mini model page: https://platform.openai.com/docs/models/o4-mini
//	[17] OpenAI, GPT-4 Turbo model page: https://platform.openai.com/docs/models/gpt-4-turbo
//	[18] OpenAI, GPT-4 model page: https://platform.openai.com/docs/models/gpt-4
//	[19] OpenAI, GPT-3.5 Turbo model page: https://platform.openai.com/docs/models/gpt-3.5-turbo
//	[20] Anthropic, Claude Opus 4.5 model overview: https://platform.claude.com/docs/en/models/opus-4-5/overview
//	[21] Anthropic, Models overview, legacy models table (2025): https://docs.anthropic.com/en/docs/about-claude/models/overview
//	[22] Anthropic, Claude Sonnet 4.5 model overview: https://platform.claude.com/docs/en/models/sonnet-4-5/overview
//	[23] Anthropic, Claude Haiku 4.5 model overview: https://platform.claude.com/docs/en/models/haiku-4-5/overview
//	[24] Google, Gemini API models, Gemini 2.5 Pro: https://ai.google.dev/gemini-api/docs/models/gemini-2.5-pro
//	[25] Google, Gemini API models, Gemini 2.5 Flash: https://ai.google.dev/gemini-api/docs/models/gemini-2.5-flash
//	[26] Google, Gemini API models, Gemini 2.5 Flash-Lite: https://ai.google.dev/gemini-api/docs/models/gemini-2.5-flash-lite
//	[27] Google, Gemini API models, Gemini 2.0 Flash: https://ai.google.dev/gemini-api/docs/models/gemini-2.0-flash
//	[28] Google, Gemini API models, Gemini 2.0 Flash-Lite: https://ai.google.dev/gemini-api/docs/models/gemini-2.0-flash-lite
//	[29] Google, Gemini API long context guide: https://ai.google.dev/gemini-api/docs/long-context
//	[30] DeepSeek API docs, Models & Pricing: https://api-docs.deepseek.com/quick_start/pricing
//	[31] Alibaba Cloud Model Studio, Models: https://www.alibabacloud.com/help/en/model-studio/models
//	[32] Qwen, Qwen3 model card (Qwen3-8B): https://huggingface.co/Qwen/Qwen3-8B
//	[33] Qwen, Qwen2.5 model card (Qwen2.5-7B-Instruct): https://huggingface.co/Qwen/Qwen2.5-7B-Instruct
//	[34] Meta, Llama API models: https://llama.developer.meta.com/docs/models
//	[35] Meta, Llama 3.2 model card: https://github.com/meta-llama/llama-models/blob/main/models/llama3_2/MODEL_CARD.md
//	[36] Meta, Llama 3.1 model card: https://github.com/meta-llama/llama-models/blob/main/models/llama3_1/MODEL_CARD.md
//	[37] OpenAI, Prompt caching guide: https://platform.openai.com/docs/guides/prompt-caching
//	[38] OpenAI, Pricing: https://platform.openai.com/docs/pricing
//	[39] Anthropic, Pricing, model pricing table: https://platform.claude.com/docs/en/about-claude/pricing
//	[40] Anthropic, Prompt caching: https://platform.claude.com/docs/en/build-with-claude/prompt-caching
//
// # Other spellings
//
// Lookup also answers to these names, and to longer names that begin with
// them as described above:
//
//	gpt-4o             chatgpt-4o
//	gpt-4-turbo        gpt-4-1106, gpt-4-0125, gpt-4-vision
//	gpt-3.5-turbo      gpt-35-turbo
//	claude-opus-4-5    claude-opus-4.5, claude-4.5-opus, claude-4-5-opus
//	claude-opus-4-1    claude-opus-4.1, claude-4.1-opus, claude-4-1-opus
//	claude-opus-4      claude-opus-4-0, claude-4-opus
//	claude-sonnet-4-5  claude-sonnet-4.5, claude-4.5-sonnet, claude-4-5-sonnet
//	claude-sonnet-4    claude-sonnet-4-0, claude-4-sonnet
//	claude-haiku-4-5   claude-haiku-4.5, claude-4.5-haiku, claude-4-5-haiku
//	claude-3-7-sonnet  claude-3.7-sonnet
//	claude-3-5-sonnet  claude-3.5-sonnet
//	claude-3-5-haiku   claude-3.5-haiku
//	deepseek-chat      deepseek-v3
//	deepseek-reasoner  deepseek-r1
//	qwen2.5            qwen-2.5
//	llama-4-maverick   llama4-maverick
//	llama-4-scout      llama4-scout
//	llama-3.3          llama3.3, llama3-3, meta-llama-3.3
//	llama-3.2          llama3.2, llama3-2, meta-llama-3.2
//	llama-3.1          llama3.1, llama3-1, meta-llama-3.1
package models
