package models

// A tokenizer is how a family's token counts relate to the encodings the
// root package embeds: exactly (an OpenAI encoding), or as o200k_base
// counts times a calibration factor. Each factor's basis is written in
// basis and shown in the package documentation.
type tokenizer int

const (
	tokO200K    tokenizer = iota // OpenAI's o200k_base, counted exactly
	tokCL100K                    // OpenAI's cl100k_base, counted exactly
	tokClaude                    // Anthropic's Claude tokenizer, unpublished
	tokGemini                    // Google's Gemini tokenizer, unpublished
	tokDeepSeek                  // DeepSeek-V3's tokenizer
	tokQwen                      // the Qwen2.5 and Qwen3 tokenizer
	tokLlama3                    // Llama 3's tokenizer
	tokLlama4                    // Llama 4's tokenizer, not measured
)

// The calibration factors: a family's own token count divided by
// o200k_base's, on English text and code. basis says where each comes
// from; testdata/calibration/measure.mjs is the script that measured the
// ones marked as ours.
const (
	calibrationClaude   = 1.20
	calibrationGemini   = 1.16
	calibrationDeepSeek = 1.05
	calibrationQwen     = 1.09
	calibrationLlama3   = 1.01
	calibrationUnknown  = 1.0
)

// encoding returns the OpenAI encoding t is, or "" when it is another.
func (t tokenizer) encoding() string {
	switch t {
	case tokO200K:
		return "o200k_base"
	case tokCL100K:
		return "cl100k_base"
	}
	return ""
}

// calibration returns the factor o200k_base counts are multiplied by to
// estimate t's: 1 for the OpenAI encodings, which are counted exactly.
func (t tokenizer) calibration() float64 {
	switch t {
	case tokClaude:
		return calibrationClaude
	case tokGemini:
		return calibrationGemini
	case tokDeepSeek:
		return calibrationDeepSeek
	case tokQwen:
		return calibrationQwen
	case tokLlama3:
		return calibrationLlama3
	}
	return calibrationUnknown
}

// label names t in the package documentation.
func (t tokenizer) label() string {
	switch t {
	case tokO200K:
		return "o200k_base"
	case tokCL100K:
		return "cl100k_base"
	case tokClaude:
		return "Claude (Anthropic)"
	case tokGemini:
		return "Gemini (Google)"
	case tokDeepSeek:
		return "DeepSeek"
	case tokQwen:
		return "Qwen"
	case tokLlama3:
		return "Llama 3"
	case tokLlama4:
		return "Llama 4"
	}
	return ""
}

// basis says where t's calibration factor comes from.
func (t tokenizer) basis() string {
	switch t {
	case tokO200K, tokCL100K:
		return "An OpenAI encoding, counted exactly."
	case tokClaude:
		return "Anthropic publishes no tokenizer for these models, so we could not " +
			"measure it. A published comparison of Claude 3.5 Sonnet with GPT-4o " +
			"(o200k_base) on the same inputs found 16% more tokens on English " +
			"articles, 21% more on mathematics and 30% more on Python code " +
			"(Lavanya Gupta, \"Hidden costs in AI deployment: Why Claude models " +
			"may be 20-30% more expensive than GPT in enterprise settings\", " +
			"VentureBeat, May 2025). Agent histories mix prose with code and " +
			"JSON; we take 1.20, between the prose and the code figures. We " +
			"assume Claude 3.5 through 4.5 share that tokenizer: Anthropic's " +
			"model documentation says the tokenizer of Claude 4.7 and later " +
			"counts about 30% more than Claude Haiku 4.5's, which places the " +
			"change after the models in this table."
	case tokGemini:
		return "Google publishes no Gemini tokenizer, but the Gemma 3 technical " +
			"report (Google DeepMind, 2025) says Gemma 3 uses the same tokenizer " +
			"as Gemini 2.0. Our measurement: we counted the message text of the " +
			"30 agent transcripts in ../shared/transcripts (1.2 million " +
			"characters of English prose, code and JSON tool output) with Gemma " +
			"3's published tokenizer and with o200k_base, and found 1.163 times " +
			"as many tokens (per transcript, 1.07 to 1.28). We assume Gemini 2.5 " +
			"and 1.5 tokenize like 2.0."
	case tokDeepSeek:
		return "Our measurement, made as for Gemini, with DeepSeek-V3's published " +
			"tokenizer, which deepseek-chat and deepseek-reasoner (V3 and R1) " +
			"share: 1.047 times o200k_base (per transcript, 1.01 to 1.15)."
	case tokQwen:
		return "Our measurement, made as for Gemini, with the published Qwen2.5 " +
			"and Qwen3 tokenizers, which gave identical counts: 1.088 times " +
			"o200k_base (per transcript, 1.00 to 1.14). Qwen writes every digit " +
			"as a token of its own, which costs most in number-heavy tool " +
			"output. We assume qwen-max, qwen-plus and qwen-turbo, which Alibaba " +
			"builds on these models, tokenize alike."
	case tokLlama3:
		return "Our measurement, made as for Gemini, with Llama 3's published " +
			"tokenizer, which 3.1, 3.2 and 3.3 share: 1.006 times o200k_base " +
			"(per transcript, 0.99 to 1.04), the same as cl100k_base, from " +
			"which Meta built it."
	case tokLlama4:
		return "Unknown: Llama 4 has a tokenizer of its own that we did not " +
			"measure, so the factor stays 1."
	}
	return ""
}
