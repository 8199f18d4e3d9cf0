package models

import (
	"strings"
	"testing"
)

// Every entry is found under its own name, and under each of its other
// spellings, with the figures the table gives it.
func TestEveryEntryIsFoundByEverySpelling(t *testing.T) {
	for i := range table {
		r := &table[i]
		want := r.model()
		for _, s := range append([]string{r.name}, r.also...) {
			got, ok := Lookup(s)
			if !ok || got != want {
				t.Errorf("Lookup(%q) = %+v, %v; want %+v, true", s, got, ok, want)
			}
		}
	}
	for _, m := range All() {
		if got, ok := Lookup(m.Name); !ok || got != m {
			t.Errorf("Lookup(%q) = %+v, %v; want the All() entry %+v", m.Name, got, ok, m)
		}
	}
}

// Every entry cites a source, has a window that holds its longest reply,
// and counts tokens with an embedded encoding or a positive factor.
func TestEveryEntryIsSound(t *testing.T) {
	providers := map[string]bool{"openai": true, "anthropic": true, "google": true, "deepseek": true, "qwen": true, "meta": true}
	for _, m := range All() {
		if m.Source == "" || !strings.Contains(m.Source, "https://") {
			t.Errorf("%s: Source %q cites no page", m.Name, m.Source)
		}
		if !providers[m.Provider] {
			t.Errorf("%s: unknown provider %q", m.Name, m.Provider)
		}
		// gpt-4 is the one family whose reply limit equals its window
		// (8,192 for both, as OpenAI gives it); every other reply limit
		// is smaller.
		if m.Window <= 0 || m.MaxOutput <= 0 || m.MaxOutput > m.Window ||
			(m.MaxOutput == m.Window && m.Name != "gpt-4") {
			t.Errorf("%s: Window %d, MaxOutput %d", m.Name, m.Window, m.MaxOutput)
		}
		switch m.Encoding {
		case "o200k_base", "cl100k_base":
			if m.Calibration != 1 || m.Provider != "openai" {
				t.Errorf("%s: Encoding %s with Calibration %v from %s", m.Name, m.Encoding, m.Calibration, m.Provider)
			}
		case "":
			if m.Calibration <= 0 || m.Provider == "openai" {
				t.Errorf("%s: no encoding, Calibration %v from %s", m.Name, m.Calibration, m.Provider)
			}
		default:
			t.Errorf("%s: Encoding %q is not an embedded encoding", m.Name, m.Encoding)
		}
	}
}

// Each spelling names one family and is already in the form Lookup
// reduces names to, so that Lookup can find it.
func TestSpellingsAreUniqueAndNormal(t *testing.T) {
	owner := map[string]string{}
	for i := range table {
		r := &table[i]
		for _, s := range append([]string{r.name}, r.also...) {
			if normalize(s) != s {
				t.Errorf("%s: spelling %q normalizes to %q", r.name, s, normalize(s))
			}
			if prev, dup := owner[s]; dup {
				t.Errorf("spelling %q belongs to both %s and %s", s, prev, r.name)
			}
			owner[s] = r.name
		}
	}
}

func TestLookup(t *testing.T) {
	tests := []struct {
		name, in, want string // want "" means no family
	}{
		// Dated snapshots, tags and versions resolve to the family.
		{"openai snapshot", "gpt-4o-2024-08-06", "gpt-4o"},
		{"openai 4-digit snapshot", "gpt-4-0613", "gpt-4"},
		{"gpt-5 snapshot", "gpt-5-2025-08-07", "gpt-5"},
		{"o-series snapshot", "o1-2024-12-17", "o1"},
		{"gpt-5 chat latest", "gpt-5-chat-latest", "gpt-5-chat"},
		{"anthropic snapshot", "claude-sonnet-4-20250514", "claude-sonnet-4"},
		{"anthropic -latest", "claude-3-5-sonnet-latest", "claude-3-5-sonnet"},
		{"anthropic 4.1 snapshot", "claude-opus-4-1-20250805", "claude-opus-4-1"},
		{"vertex @version", "claude-3-5-sonnet-v2@20241022", "claude-3-5-sonnet"},
		{"vertex @date", "claude-opus-4-1@20250805", "claude-opus-4-1"},
		{"gemini numbered version", "gemini-1.5-pro-002", "gemini-1.5-pro"},
		{"gemini preview", "gemini-2.5-flash-preview-05-20", "gemini-2.5-flash"},
		{"ollama tag", "qwen3:8b", "qwen3"},
		{"ollama dotted llama", "llama3.1:70b", "llama-3.1"},
		{"qwen size", "Qwen3-235B-A22B", "qwen3"},
		{"deepseek dated", "deepseek-r1-0528", "deepseek-reasoner"},
		{"openrouter tag", "anthropic/claude-3.7-sonnet:thinking", "claude-3-7-sonnet"},

		// Provider prefixes are dropped.
		{"openai prefix", "openai/gpt-4.1-mini", "gpt-4.1-mini"},
		{"openrouter path", "openrouter/anthropic/claude-sonnet-4.5", "claude-sonnet-4-5"},
		{"azure prefix", "azure/gpt-35-turbo", "gpt-3.5-turbo"},
		{"gemini models/", "models/gemini-2.0-flash-001", "gemini-2.0-flash"},
		{"vertex resource path", "projects/p/locations/us-central1/publishers/google/models/gemini-2.5-pro", "gemini-2.5-pro"},
		{"hugging face id", "meta-llama/Llama-3.3-70B-Instruct", "llama-3.3"},
		{"together id", "meta-llama/Meta-Llama-3.1-8B-Instruct-Turbo", "llama-3.1"},
		{"deepseek open weights", "deepseek-ai/DeepSeek-V3", "deepseek-chat"},
		{"fine-tune", "ft:gpt-4o-mini-2024-07-18:acme:support:9abc", "gpt-4o-mini"},
		{"prefixed fine-tune", "openai/ft:gpt-3.5-turbo-0125:acme::x1", "gpt-3.5-turbo"},
		{"bedrock", "anthropic.claude-3-5-haiku-20241022-v1:0", "claude-3-5-haiku"},
		{"bedrock profile", "us.anthropic.claude-sonnet-4-5-20250929-v1:0", "claude-sonnet-4-5"},
		{"litellm bedrock", "bedrock/global.anthropic.claude-haiku-4-5-20251001-v1:0", "claude-haiku-4-5"},
		{"bedrock llama", "us.meta.llama3-3-70b-instruct-v1:0", "llama-3.3"},
		{"bedrock llama 4", "meta.llama4-scout-17b-instruct-v1:0", "llama-4-scout"},
		{"bedrock qwen", "qwen.qwen3-32b-v1:0", "qwen3"},

		// Case and space are ignored.
		{"upper case", "GPT-4O", "gpt-4o"},
		{"spaces", "  claude-haiku-4-5  ", "claude-haiku-4-5"},

		// The longest matching spelling wins.
		{"mini before gpt-4o", "gpt-4o-mini", "gpt-4o-mini"},
		{"gpt-4o before gpt-4", "gpt-4o", "gpt-4o"},
		{"turbo before gpt-4", "gpt-4-turbo-2024-04-09", "gpt-4-turbo"},
		{"turbo preview", "gpt-4-1106-preview", "gpt-4-turbo"},
		{"4.1 mini before 4.1", "gpt-4.1-mini-2025-04-14", "gpt-4.1-mini"},
		{"o1-mini before o1", "o1-mini-2024-09-12", "o1-mini"},
		{"o1-preview before o1", "o1-preview", "o1-preview"},
		{"flash-lite before flash", "gemini-2.5-flash-lite", "gemini-2.5-flash-lite"},
		{"qwen3-max before qwen3", "qwen3-max-2025-09-23", "qwen3-max"},
		{"opus 4.5 before opus 4", "claude-opus-4-5-20251101", "claude-opus-4-5"},
		{"sonnet 4 alias 4-0", "claude-sonnet-4-0", "claude-sonnet-4"},
		{"gpt-4-32k is gpt-4", "gpt-4-32k", "gpt-4"},
		{"o4-mini-high", "openai/o4-mini-high", "o4-mini"},

		// Names no family matches.
		{"empty", "", ""},
		{"blank", "   ", ""},
		{"just a prefix", "openai/", ""},
		{"local model", "my-local-model", ""},
		{"newer minor version", "claude-opus-4-6", ""},
		{"newer minor version, dated", "claude-sonnet-4-6-20260101", ""},
		{"dotted newer version", "gpt-4.5-preview", ""},
		{"gpt-5.1 is not gpt-5", "gpt-5.1", ""},
		{"qwen3.5 is not qwen3", "qwen3.5-plus", ""},
		{"no boundary", "gpt-40", ""},
		{"o-series lookalike", "o1x", ""},
		{"claude 3 opus not in table", "claude-3-opus-20240229", ""},
		{"unknown bedrock vendor", "cohere.command-r-v1:0", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := Lookup(tt.in)
			if tt.want == "" {
				if ok || got != (Model{}) {
					t.Fatalf("Lookup(%q) = %+v, %v; want no family", tt.in, got, ok)
				}
				return
			}
			if !ok || got.Name != tt.want {
				t.Fatalf("Lookup(%q) = %q, %v; want %q", tt.in, got.Name, ok, tt.want)
			}
		})
	}
}

// All hands out a copy: changing it changes neither the table nor a later
// call's answer.
func TestAllReturnsACopy(t *testing.T) {
	first := All()
	if len(first) != len(table) {
		t.Fatalf("All() has %d entries, the table %d", len(first), len(table))
	}
	first[0].Window = -1
	first[0].Name = "changed"
	if again := All(); again[0].Window <= 0 || again[0].Name == "changed" {
		t.Fatalf("All() after changing an earlier result: %+v", again[0])
	}
	if m, ok := Lookup(table[0].name); !ok || m.Window <= 0 {
		t.Fatalf("Lookup(%q) after changing All()'s result: %+v, %v", table[0].name, m, ok)
	}
}

// The table is grouped by provider in the order All documents.
func TestAllIsInProviderOrder(t *testing.T) {
	order := []string{"openai", "anthropic", "google", "deepseek", "qwen", "meta"}
	at := 0
	for _, m := range All() {
		for at < len(order) && order[at] != m.Provider {
			at++
		}
		if at == len(order) {
			t.Fatalf("%s (%s) is out of provider order %v", m.Name, m.Provider, order)
		}
	}
}

func BenchmarkLookup(b *testing.B) {
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if _, ok := Lookup("openrouter/anthropic/claude-sonnet-4-20250514"); !ok {
			b.Fatal("no family")
		}
	}
}
