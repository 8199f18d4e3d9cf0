package models

// Model is what the package knows of one model family.
type Model struct {
	Name        string  // the family as matched, e.g. "gpt-4o-mini"
	Provider    string  // "openai", "anthropic", "google", "deepseek", "qwen", "meta"
	Window      int     // context window, tokens
	MaxOutput   int     // most tokens one reply may take
	Encoding    string  // "o200k_base", "cl100k_base", or "" (not an OpenAI tokenizer)
	Calibration float64 // multiply o200k_base counts by this when Encoding is ""; 1 otherwise
	Source      string  // where the figures come from
	// Pricing is what the family's tokens cost and how its prompt cache
	// behaves; the zero (unknown) Pricing when no price could be sourced.
	Pricing Pricing
}

// Lookup returns the family a model name belongs to.
//
// Case is ignored. Everything up to the last "/" is dropped ("openai/",
// "openrouter/anthropic/", "models/" for Gemini, "meta-llama/"), then a
// fine-tune prefix "ft:", then a Bedrock region and vendor
// ("us.anthropic.", "meta."). What is left matches a family when it is
// one of the family's spellings, or starts with one followed by ":", "@"
// or "-": so dated snapshots ("gpt-4o-2024-08-06",
// "claude-sonnet-4-20250514"), "-latest", Vertex's "@20250514" and
// Ollama's ":8b" all resolve to their family. A "." or a "-" with a one-
// or two-digit number that ends the name or is followed by another
// separator marks a newer minor version, not a snapshot:
// "claude-opus-4-6" does not resolve to claude-opus-4, nor "gpt-4.5" to
// gpt-4. When several spellings match, the longest wins, so "gpt-4o-mini"
// is gpt-4o-mini, not gpt-4o or gpt-4.
//
// A name no family matches returns the zero Model and false.
func Lookup(name string) (Model, bool) {
	n := normalize(name)
	if n == "" {
		return Model{}, false
	}
	best, bestLen := -1, 0
	for i := range table {
		r := &table[i]
		if len(r.name) > bestLen && matches(n, r.name) {
			best, bestLen = i, len(r.name)
		}
		for _, s := range r.also {
			if len(s) > bestLen && matches(n, s) {
				best, bestLen = i, len(s)
			}
		}
	}
	if best < 0 {
		return Model{}, false
	}
	return table[best].model(), true
}

// All returns every entry of the table, in table order: OpenAI, Anthropic,
// Google, DeepSeek, Qwen, then Meta's Llama. The slice is the caller's.
func All() []Model {
	out := make([]Model, len(table))
	for i := range table {
		out[i] = table[i].model()
	}
	return out
}
