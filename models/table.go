package models

// A row is one family of the table: its figures, its tokenizer, where the
// figures come from, and the other spellings hosts give it.
type row struct {
	name      string    // the provider's own id for the family, lower case
	provider  string    // who makes it
	window    int       // context window, tokens
	maxOutput int       // most tokens one reply may take
	tok       tokenizer // how its tokens are counted
	source    string    // the page the figures come from
	also      []string  // other spellings: other hosts' ids, lower case
}

// model returns the row as a Model.
func (r *row) model() Model {
	return Model{
		Name:        r.name,
		Provider:    r.provider,
		Window:      r.window,
		MaxOutput:   r.maxOutput,
		Encoding:    r.tok.encoding(),
		Calibration: r.tok.calibration(),
		Source:      r.source,
		Pricing:     pricingOf(r.name),
	}
}

// Sources several rows share.
const (
	srcClaudeLegacy = "Anthropic, Models overview, legacy models table (2025): https://docs.anthropic.com/en/docs/about-claude/models/overview"
	srcDeepSeek     = "DeepSeek API docs, Models & Pricing: https://api-docs.deepseek.com/quick_start/pricing"
	srcModelStudio  = "Alibaba Cloud Model Studio, Models: https://www.alibabacloud.com/help/en/model-studio/models"
	srcLlamaAPI     = "Meta, Llama API models: https://llama.developer.meta.com/docs/models"
)

// table is every family the package knows, grouped by provider. It is
// never handed out: Lookup and All return copies of its rows as Models.
//
// Figures were checked in November 2026 against the provider's page, or,
// where the search corpus held no copy of that page, against a third
// party's copy of it, named in the row's comment. Where sources disagree
// the comment says so, and the row takes the figure that fails safe: the
// smaller window, so that compaction comes early rather than the provider
// rejecting the request.
var table = [...]row{
	// ---- OpenAI ----

	// GPT-5: 400,000 in and out together; OpenAI's gpt-5-nano page adds
	// "Maximum input tokens: 272,000", which is the window less the
	// output. gpt-5-codex has the same figures and resolves here.
	{name: "gpt-5", provider: "openai", window: 400_000, maxOutput: 128_000, tok: tokO200K,
		source: "OpenAI, GPT-5 model page: https://platform.openai.com/docs/models/gpt-5"},
	// Checked against Vercel AI Gateway's copy (400,000 / 128,000).
	{name: "gpt-5-mini", provider: "openai", window: 400_000, maxOutput: 128_000, tok: tokO200K,
		source: "OpenAI, GPT-5 mini model page: https://platform.openai.com/docs/models/gpt-5-mini"},
	// Checked against OpenAI's own page (developers.openai.com).
	{name: "gpt-5-nano", provider: "openai", window: 400_000, maxOutput: 128_000, tok: tokO200K,
		source: "OpenAI, GPT-5 nano model page: https://platform.openai.com/docs/models/gpt-5-nano"},
	// Checked against JetBrains Koog's copy of OpenAI's text (400,000 /
	// 272,000).
	{name: "gpt-5-pro", provider: "openai", window: 400_000, maxOutput: 272_000, tok: tokO200K,
		source: "OpenAI, GPT-5 pro model page: https://platform.openai.com/docs/models/gpt-5-pro"},
	// gpt-5-chat-latest, the model behind ChatGPT, has a smaller window
	// than the API's gpt-5; without this row it would resolve to gpt-5.
	{name: "gpt-5-chat", provider: "openai", window: 128_000, maxOutput: 16_384, tok: tokO200K,
		source: "OpenAI, GPT-5 Chat model page: https://platform.openai.com/docs/models/gpt-5-chat-latest"},
	// 1,047,576 is OpenAI's exact figure ("1M" in the announcement);
	// checked against contextwindows.dev's copy. The mini and nano share
	// the figures.
	{name: "gpt-4.1", provider: "openai", window: 1_047_576, maxOutput: 32_768, tok: tokO200K,
		source: "OpenAI, GPT-4.1 model page: https://platform.openai.com/docs/models/gpt-4.1"},
	{name: "gpt-4.1-mini", provider: "openai", window: 1_047_576, maxOutput: 32_768, tok: tokO200K,
		source: "OpenAI, GPT-4.1 mini model page: https://platform.openai.com/docs/models/gpt-4.1-mini"},
	{name: "gpt-4.1-nano", provider: "openai", window: 1_047_576, maxOutput: 32_768, tok: tokO200K,
		source: "OpenAI, GPT-4.1 nano model page: https://platform.openai.com/docs/models/gpt-4.1-nano"},
	// The first snapshot, gpt-4o-2024-05-13, replies with at most 4,096
	// tokens; later snapshots with 16,384, the figure here. Checked
	// against UiPath's model limits table (128K / 16,384).
	{name: "gpt-4o", provider: "openai", window: 128_000, maxOutput: 16_384, tok: tokO200K,
		source: "OpenAI, GPT-4o model page: https://platform.openai.com/docs/models/gpt-4o",
		also:   []string{"chatgpt-4o"}},
	{name: "gpt-4o-mini", provider: "openai", window: 128_000, maxOutput: 16_384, tok: tokO200K,
		source: "OpenAI, GPT-4o mini model page: https://platform.openai.com/docs/models/gpt-4o-mini"},
	// o1-pro has the same figures and resolves here. Checked against
	// Vercel AI Gateway's copy (200,000 / 100,000).
	{name: "o1", provider: "openai", window: 200_000, maxOutput: 100_000, tok: tokO200K,
		source: "OpenAI, o1 model page: https://platform.openai.com/docs/models/o1"},
	{name: "o1-mini", provider: "openai", window: 128_000, maxOutput: 65_536, tok: tokO200K,
		source: "OpenAI, o1-mini model page: https://platform.openai.com/docs/models/o1-mini"},
	// Retired, but its window is smaller than o1's: without this row it
	// would resolve to o1 and overstate it.
	{name: "o1-preview", provider: "openai", window: 128_000, maxOutput: 32_768, tok: tokO200K,
		source: "OpenAI, o1-preview model page: https://platform.openai.com/docs/models/o1-preview"},
	// o3-pro and o3-deep-research resolve here with the same figures.
	// Checked against Roo Code's table citing this page (200,000 /
	// 100,000).
	{name: "o3", provider: "openai", window: 200_000, maxOutput: 100_000, tok: tokO200K,
		source: "OpenAI, o3 model page: https://platform.openai.com/docs/models/o3"},
	{name: "o3-mini", provider: "openai", window: 200_000, maxOutput: 100_000, tok: tokO200K,
		source: "OpenAI, o3-mini model page: https://platform.openai.com/docs/models/o3-mini"},
	{name: "o4-mini", provider: "openai", window: 200_000, maxOutput: 100_000, tok: tokO200K,
		source: "OpenAI, o4-mini model page: https://platform.openai.com/docs/models/o4-mini"},
	// GPT-4 Turbo was first published as the dated previews
	// gpt-4-1106-preview and gpt-4-0125-preview, which would otherwise
	// resolve to gpt-4 and its 8,192-token window.
	{name: "gpt-4-turbo", provider: "openai", window: 128_000, maxOutput: 4_096, tok: tokCL100K,
		source: "OpenAI, GPT-4 Turbo model page: https://platform.openai.com/docs/models/gpt-4-turbo",
		also:   []string{"gpt-4-1106", "gpt-4-0125", "gpt-4-vision"}},
	// The only entry whose reply limit equals its window: OpenAI gives
	// 8,192 for both. The retired gpt-4-32k resolves here and is
	// understated (32,768).
	{name: "gpt-4", provider: "openai", window: 8_192, maxOutput: 8_192, tok: tokCL100K,
		source: "OpenAI, GPT-4 model page: https://platform.openai.com/docs/models/gpt-4"},
	// The current snapshot; the retired gpt-3.5-turbo-0613 had 4,096.
	// "gpt-35-turbo" is Azure's spelling.
	{name: "gpt-3.5-turbo", provider: "openai", window: 16_385, maxOutput: 4_096, tok: tokCL100K,
		source: "OpenAI, GPT-3.5 Turbo model page: https://platform.openai.com/docs/models/gpt-3.5-turbo",
		also:   []string{"gpt-35-turbo"}},

	// ---- Anthropic ----
	//
	// The provider's ids are hyphenated ("claude-opus-4-1"); OpenRouter and
	// others write the version with a dot, some put it first
	// ("claude-4-sonnet"). "claude-sonnet-4-0" is Anthropic's own alias.

	{name: "claude-opus-4-5", provider: "anthropic", window: 200_000, maxOutput: 64_000, tok: tokClaude,
		source: "Anthropic, Claude Opus 4.5 model overview: https://platform.claude.com/docs/en/models/opus-4-5/overview",
		also:   []string{"claude-opus-4.5", "claude-4.5-opus", "claude-4-5-opus"}},
	// Checked against mixtape-core's table (200,000 / 32,000).
	{name: "claude-opus-4-1", provider: "anthropic", window: 200_000, maxOutput: 32_000, tok: tokClaude,
		source: srcClaudeLegacy,
		also:   []string{"claude-opus-4.1", "claude-4.1-opus", "claude-4-1-opus"}},
	// Checked against AIHubMix's copy of the legacy table (200K / 32000).
	// Anthropic retired the id on 15 June 2026 (ai-provider-watch's record
	// of the release notes); kept for histories recorded before.
	{name: "claude-opus-4", provider: "anthropic", window: 200_000, maxOutput: 32_000, tok: tokClaude,
		source: srcClaudeLegacy,
		also:   []string{"claude-opus-4-0", "claude-4-opus"}},
	// A 1M-token window is a beta behind a header and a usage tier; the
	// figure here is the one every request gets.
	{name: "claude-sonnet-4-5", provider: "anthropic", window: 200_000, maxOutput: 64_000, tok: tokClaude,
		source: "Anthropic, Claude Sonnet 4.5 model overview: https://platform.claude.com/docs/en/models/sonnet-4-5/overview",
		also:   []string{"claude-sonnet-4.5", "claude-4.5-sonnet", "claude-4-5-sonnet"}},
	// As for Sonnet 4.5, 1M is a beta. Checked against AIHubMix's copy of
	// the legacy table (200K / 64000). Retired with Opus 4 on 15 June 2026.
	{name: "claude-sonnet-4", provider: "anthropic", window: 200_000, maxOutput: 64_000, tok: tokClaude,
		source: srcClaudeLegacy,
		also:   []string{"claude-sonnet-4-0", "claude-4-sonnet"}},
	{name: "claude-haiku-4-5", provider: "anthropic", window: 200_000, maxOutput: 64_000, tok: tokClaude,
		source: "Anthropic, Claude Haiku 4.5 model overview: https://platform.claude.com/docs/en/models/haiku-4-5/overview",
		also:   []string{"claude-haiku-4.5", "claude-4.5-haiku", "claude-4-5-haiku"}},
	// 64,000 by default; 128,000 with the beta header
	// output-128k-2025-02-19. Checked against AIHubMix's copy.
	{name: "claude-3-7-sonnet", provider: "anthropic", window: 200_000, maxOutput: 64_000, tok: tokClaude,
		source: srcClaudeLegacy,
		also:   []string{"claude-3.7-sonnet"}},
	// Retired. 8,192 since July 2024 (4,096 before).
	{name: "claude-3-5-sonnet", provider: "anthropic", window: 200_000, maxOutput: 8_192, tok: tokClaude,
		source: srcClaudeLegacy,
		also:   []string{"claude-3.5-sonnet"}},
	{name: "claude-3-5-haiku", provider: "anthropic", window: 200_000, maxOutput: 8_192, tok: tokClaude,
		source: srcClaudeLegacy,
		also:   []string{"claude-3.5-haiku"}},

	// ---- Google ----
	//
	// Google gives an input limit and an output limit; the input limit is
	// the window here. The Gemini API and Vertex AI pages agree on 2.5.

	{name: "gemini-2.5-pro", provider: "google", window: 1_048_576, maxOutput: 65_536, tok: tokGemini,
		source: "Google, Gemini API models, Gemini 2.5 Pro: https://ai.google.dev/gemini-api/docs/models/gemini-2.5-pro"},
	{name: "gemini-2.5-flash", provider: "google", window: 1_048_576, maxOutput: 65_536, tok: tokGemini,
		source: "Google, Gemini API models, Gemini 2.5 Flash: https://ai.google.dev/gemini-api/docs/models/gemini-2.5-flash"},
	{name: "gemini-2.5-flash-lite", provider: "google", window: 1_048_576, maxOutput: 65_536, tok: tokGemini,
		source: "Google, Gemini API models, Gemini 2.5 Flash-Lite: https://ai.google.dev/gemini-api/docs/models/gemini-2.5-flash-lite"},
	{name: "gemini-2.0-flash", provider: "google", window: 1_048_576, maxOutput: 8_192, tok: tokGemini,
		source: "Google, Gemini API models, Gemini 2.0 Flash: https://ai.google.dev/gemini-api/docs/models/gemini-2.0-flash"},
	// The Gemini API page gives 8,192 output tokens; a later Vertex AI
	// page gives 65,536. We keep the smaller. Vertex AI discontinued both
	// 2.0 models on 1 June 2026.
	{name: "gemini-2.0-flash-lite", provider: "google", window: 1_048_576, maxOutput: 8_192, tok: tokGemini,
		source: "Google, Gemini API models, Gemini 2.0 Flash-Lite: https://ai.google.dev/gemini-api/docs/models/gemini-2.0-flash-lite"},
	// Retired; figures from Google's long-context guide and the 1.5 model
	// pages as they stood in 2025. gemini-1.5-flash-8b resolves to
	// gemini-1.5-flash with the same figures.
	{name: "gemini-1.5-pro", provider: "google", window: 2_097_152, maxOutput: 8_192, tok: tokGemini,
		source: "Google, Gemini API long context guide: https://ai.google.dev/gemini-api/docs/long-context"},
	{name: "gemini-1.5-flash", provider: "google", window: 1_048_576, maxOutput: 8_192, tok: tokGemini,
		source: "Google, Gemini API long context guide: https://ai.google.dev/gemini-api/docs/long-context"},

	// ---- DeepSeek ----
	//
	// The API's two ids are aliases that move to newer models. DeepSeek's
	// early-2025 table (V3 and R1) gave a 64K window and 8K replies for
	// both; the table since V3.1 gives 128K, with deepseek-chat replying
	// with at most 8K and deepseek-reasoner with at most 64K (reasoning
	// included). Roo Code's table of December 2025 agrees on 128K for
	// deepseek-chat. We read "128K" as 128,000, the smaller reading.

	{name: "deepseek-chat", provider: "deepseek", window: 128_000, maxOutput: 8_192, tok: tokDeepSeek,
		source: srcDeepSeek,
		also:   []string{"deepseek-v3"}},
	{name: "deepseek-reasoner", provider: "deepseek", window: 128_000, maxOutput: 65_536, tok: tokDeepSeek,
		source: srcDeepSeek,
		also:   []string{"deepseek-r1"}},

	// ---- Qwen (Alibaba) ----

	// Checked against Vercel AI Gateway's copy (262,144 / 65,536).
	{name: "qwen3-max", provider: "qwen", window: 262_144, maxOutput: 65_536, tok: tokQwen,
		source: srcModelStudio},
	// The open Qwen3 models: the model card gives 32,768 tokens natively
	// and 131,072 with YaRN scaling, which a host must turn on; the 2507
	// updates and Qwen3-Coder give 262,144 natively. We take the native
	// 32,768, which every host serves (OpenRouter lists qwen3-32b at
	// 40,960). The card sets no reply limit of its own and recommends
	// replies of up to 32,768 tokens, which fit only a YaRN window; we
	// take Qwen2.5's 8,192.
	{name: "qwen3", provider: "qwen", window: 32_768, maxOutput: 8_192, tok: tokQwen,
		source: "Qwen, Qwen3 model card (Qwen3-8B): https://huggingface.co/Qwen/Qwen3-8B"},
	// The card gives "Full 131,072 tokens and generation 8192 tokens", but
	// its config serves 32,768 until YaRN is turned on, and Qwen says
	// "no YaRN no 128K". As for Qwen3 we take the native 32,768.
	// Alibaba's own API serves the Qwen2.5 instruct models with 131,072.
	{name: "qwen2.5", provider: "qwen", window: 32_768, maxOutput: 8_192, tok: tokQwen,
		source: "Qwen, Qwen2.5 model card (Qwen2.5-7B-Instruct): https://huggingface.co/Qwen/Qwen2.5-7B-Instruct",
		also:   []string{"qwen-2.5"}},
	// The Model Studio figures below are as promptfoo's provider guide
	// copies them: qwen-max 32K (30,720 in, 8,192 out), qwen-plus 128K
	// (129,024 in, 8,192 out), qwen-turbo 1M (8,192 out). Alibaba moves
	// these ids to newer models: snapshots built on Qwen3 list larger
	// windows and replies for qwen-plus and qwen-turbo. We keep the older,
	// smaller figures.
	{name: "qwen-max", provider: "qwen", window: 32_768, maxOutput: 8_192, tok: tokQwen,
		source: srcModelStudio},
	{name: "qwen-plus", provider: "qwen", window: 131_072, maxOutput: 8_192, tok: tokQwen,
		source: srcModelStudio},
	{name: "qwen-turbo", provider: "qwen", window: 1_000_000, maxOutput: 8_192, tok: tokQwen,
		source: srcModelStudio},

	// ---- Meta (Llama) ----
	//
	// Open models: the window is what Meta's model cards and Llama API
	// give, 128K, read as 128,000. The weights set no reply limit of their
	// own; Meta's Llama API lists an output context length printed as
	// "4028" for Llama 4 and 3.3 (as LiteLLM's provider page copies it),
	// which we take as written and assume for 3.1 and 3.2 too. The Llama 4
	// model cards claim 10M (Scout) and 1M (Maverick) tokens, but hosts
	// serve far less and differ; we keep the 128K Meta's own API serves.
	// Bedrock spells the families "llama3-1", "llama4-scout"; Ollama
	// "llama3.1"; Together "meta-llama-3.1".

	{name: "llama-4-maverick", provider: "meta", window: 128_000, maxOutput: 4_028, tok: tokLlama4,
		source: srcLlamaAPI,
		also:   []string{"llama4-maverick"}},
	{name: "llama-4-scout", provider: "meta", window: 128_000, maxOutput: 4_028, tok: tokLlama4,
		source: srcLlamaAPI,
		also:   []string{"llama4-scout"}},
	{name: "llama-3.3", provider: "meta", window: 128_000, maxOutput: 4_028, tok: tokLlama3,
		source: srcLlamaAPI,
		also:   []string{"llama3.3", "llama3-3", "meta-llama-3.3"}},
	{name: "llama-3.2", provider: "meta", window: 128_000, maxOutput: 4_028, tok: tokLlama3,
		source: "Meta, Llama 3.2 model card: https://github.com/meta-llama/llama-models/blob/main/models/llama3_2/MODEL_CARD.md",
		also:   []string{"llama3.2", "llama3-2", "meta-llama-3.2"}},
	{name: "llama-3.1", provider: "meta", window: 128_000, maxOutput: 4_028, tok: tokLlama3,
		source: "Meta, Llama 3.1 model card: https://github.com/meta-llama/llama-models/blob/main/models/llama3_1/MODEL_CARD.md",
		also:   []string{"llama3.1", "llama3-1", "meta-llama-3.1"}},
}
