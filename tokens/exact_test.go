package tokens

import (
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/contextkit/compact/tokens/internal/bpe"
	openai "github.com/sashabaranov/go-openai"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func newCounter(tb testing.TB, encoding string, opts ...Option) *Exact {
	tb.Helper()
	c, err := ForEncoding(encoding, opts...)
	require.NoError(tb, err)
	return c
}

func TestEncodingForModel(t *testing.T) {
	tests := []struct {
		model string
		want  string
	}{
		{"gpt-4o", EncodingO200KBase},
		{"gpt-4o-mini", EncodingO200KBase},
		{"gpt-4o-2024-08-06", EncodingO200KBase},
		{"chatgpt-4o-latest", EncodingO200KBase},
		{"gpt-4.1", EncodingO200KBase},
		{"gpt-4.1-nano-2025-04-14", EncodingO200KBase},
		{"gpt-4.5-preview", EncodingO200KBase},
		{"gpt-5", EncodingO200KBase},
		{"gpt-5-mini", EncodingO200KBase},
		{"o1", EncodingO200KBase},
		{"o1-preview", EncodingO200KBase},
		{"o3-mini", EncodingO200KBase},
		{"o4-mini", EncodingO200KBase},
		{"gpt-4", EncodingCL100KBase},
		{"gpt-4-0613", EncodingCL100KBase},
		{"gpt-4-32k", EncodingCL100KBase},
		{"gpt-4-turbo", EncodingCL100KBase},
		{"gpt-4-turbo-2024-04-09", EncodingCL100KBase},
		{"gpt-3.5-turbo", EncodingCL100KBase},
		{"gpt-3.5-turbo-16k-0613", EncodingCL100KBase},
		{"gpt-35-turbo", EncodingCL100KBase}, // Azure's spelling
		{"text-embedding-3-small", EncodingCL100KBase},
		{"text-embedding-ada-002", EncodingCL100KBase},
		{"openai/gpt-4", EncodingCL100KBase},
		{"azure/gpt-4-32k", EncodingCL100KBase},
		{"openai/gpt-4o", EncodingO200KBase},
		{"openrouter/openai/gpt-3.5-turbo", EncodingCL100KBase},
		{"ft:gpt-3.5-turbo-0125:acme::abc123", EncodingCL100KBase},
		{"GPT-4", EncodingCL100KBase},
		{" gpt-4 ", EncodingCL100KBase},
		{"gpt-40", EncodingO200KBase}, // not gpt-4, not gpt-4-*
		{"gpt-4o1", EncodingO200KBase},
		{"claude-sonnet-4", EncodingO200KBase},
		{"llama-3.1-70b", EncodingO200KBase},
		{"", EncodingO200KBase},
		{"/", EncodingO200KBase},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, EncodingForModel(tt.model), "EncodingForModel(%q)", tt.model)
	}
}

func TestForEncodingRejectsUnknownEncodings(t *testing.T) {
	for _, name := range []string{"", "p50k_base", "r50k_base", "gpt2", "O200K_BASE", "o200k_harmony"} {
		c, err := ForEncoding(name)
		assert.Nil(t, c, name)
		assert.ErrorIs(t, err, ErrUnknownEncoding, name)
	}
}

func TestForModelPicksTheModelsEncoding(t *testing.T) {
	for model, want := range map[string]string{"gpt-4": EncodingCL100KBase, "gpt-4o": EncodingO200KBase, "": EncodingO200KBase} {
		c, err := ForModel(model)
		require.NoError(t, err)
		assert.Equal(t, want, c.Encoding(), model)
	}
}

// TestCountTextMatchesPublishedCounts checks counts python tiktoken
// published. Unless noted, they come from pkoukk/tiktoken-go
// doc/test_result.md, whose left column is python tiktoken's output.
func TestCountTextMatchesPublishedCounts(t *testing.T) {
	tests := []struct {
		text          string
		o200k, cl100k int
	}{
		{"hallo world!", 4, 4},
		{"你好世界！", 3, 6},
		{"こんにちは世界！", 3, 5},
		{"안녕하세요 세계!", 4, 10},
		{"Привет мир!", 4, 6},
		{"¡Hola mundo!", 4, 4},
		{"Hallo Welt!", 3, 3},
		{"Bonjour le monde!", 4, 4},
		{"Ciao mondo!", 4, 4},
		{"Hej världen!", 3, 7},
		{"Hallo wereld!", 3, 3},
		{"Hallo verden!", 3, 4},
		{"", 0, 0},
	}
	o200k, cl100k := newCounter(t, EncodingO200KBase), newCounter(t, EncodingCL100KBase)
	for _, tt := range tests {
		assert.Equal(t, tt.o200k, o200k.CountText(tt.text), "o200k_base %q", tt.text)
		assert.Equal(t, tt.cl100k, cl100k.CountText(tt.text), "cl100k_base %q", tt.text)
	}
	// OpenAI cookbook, How to count tokens with tiktoken.
	assert.Equal(t, 6, cl100k.CountText("tiktoken is great!"))
	assert.Equal(t, 6, cl100k.CountText("antidisestablishmentarianism"))
	// openai/tiktoken test_simple, and its o200k_base ports.
	assert.Equal(t, 2, cl100k.CountText("hello world"))
	assert.Equal(t, 2, o200k.CountText("hello world"))
}

// cookbookMessages are the example messages of OpenAI's cookbook, "How to
// count tokens with tiktoken", section 6.
func cookbookMessages() []Message {
	return []Message{
		{Role: openai.ChatMessageRoleSystem, Content: "You are a helpful, pattern-following assistant that translates corporate jargon into plain English."},
		{Role: openai.ChatMessageRoleSystem, Name: "example_user", Content: "New synergies will help drive top-line growth."},
		{Role: openai.ChatMessageRoleSystem, Name: "example_assistant", Content: "Things working well together will increase revenue."},
		{Role: openai.ChatMessageRoleSystem, Name: "example_user", Content: "Let's circle back when we have more bandwidth to touch base on opportunities for increased leverage."},
		{Role: openai.ChatMessageRoleSystem, Name: "example_assistant", Content: "Let's talk later when we're less busy about how to do better."},
		{Role: openai.ChatMessageRoleUser, Content: "This late pivot means we don't have time to boil the ocean for the client deliverable."},
	}
}

// TestCountMessagesMatchesTheAPI checks the whole request against the
// prompt_tokens OpenAI's API reported for the cookbook's example: 129 for
// gpt-3.5-turbo and gpt-4 (cl100k_base), 124 for gpt-4o and gpt-4o-mini
// (o200k_base).
func TestCountMessagesMatchesTheAPI(t *testing.T) {
	for model, want := range map[string]int{"gpt-4": 129, "gpt-4-0613": 129, "gpt-3.5-turbo": 129, "gpt-4o": 124, "gpt-4o-mini": 124} {
		c, err := ForModel(model)
		require.NoError(t, err)
		assert.Equal(t, want, CountMessages(c, cookbookMessages()), model)
	}
}

func TestCountMessagesOfNothingIsZero(t *testing.T) {
	c := newCounter(t, EncodingO200KBase)
	assert.Zero(t, CountMessages(c, nil))
	assert.Zero(t, CountMessages(c, []Message{}))
	assert.Equal(t, ReplyPrimingTokens+tokensPerMessage, CountMessages(c, []Message{{}}))
}

// TestCountMessageRules checks what each part of a message adds, by
// comparing it with the same message without that part.
func TestCountMessageRules(t *testing.T) {
	c := newCounter(t, EncodingO200KBase)
	text := c.CountText
	png := "data:image/png;base64," + strings.Repeat("iVBORw0KGgo", 5000)
	tests := []struct {
		name      string
		base, msg Message
		adds      int
	}{
		{"a message costs its framing and its role", Message{}, Message{Role: openai.ChatMessageRoleUser}, text("user")},
		{"content is counted", Message{Role: openai.ChatMessageRoleUser}, Message{Role: openai.ChatMessageRoleUser, Content: "hello world"}, 2},
		{"a name costs one token more than its text", Message{Role: openai.ChatMessageRoleUser}, Message{Role: openai.ChatMessageRoleUser, Name: "example_user"}, tokensPerName + text("example_user")},
		{"a tool call costs its framing, name and arguments",
			Message{Role: openai.ChatMessageRoleAssistant},
			Message{Role: openai.ChatMessageRoleAssistant, ToolCalls: []openai.ToolCall{{ID: "call_1", Type: openai.ToolTypeFunction, Function: openai.FunctionCall{Name: "get_weather", Arguments: `{"city":"Paris"}`}}}},
			tokensPerToolCall + text("get_weather") + text(`{"city":"Paris"}`)},
		{"a legacy function call costs like a tool call",
			Message{Role: openai.ChatMessageRoleAssistant},
			Message{Role: openai.ChatMessageRoleAssistant, FunctionCall: &openai.FunctionCall{Name: "f", Arguments: "{}"}},
			tokensPerToolCall + text("f") + text("{}")},
		{"a tool result's call id is counted", Message{Role: openai.ChatMessageRoleTool, Content: "ok"}, Message{Role: openai.ChatMessageRoleTool, Content: "ok", ToolCallID: "call_abc123"}, text("call_abc123")},
		{"refusal text is counted", Message{Role: openai.ChatMessageRoleAssistant}, Message{Role: openai.ChatMessageRoleAssistant, Refusal: "I can't help with that."}, text("I can't help with that.")},
		{"reasoning text is counted", Message{Role: openai.ChatMessageRoleAssistant}, Message{Role: openai.ChatMessageRoleAssistant, ReasoningContent: "Let me think."}, text("Let me think.")},
		{"text parts count their text and no separator",
			Message{Role: openai.ChatMessageRoleUser},
			Message{Role: openai.ChatMessageRoleUser, MultiContent: []openai.ChatMessagePart{{Type: openai.ChatMessagePartTypeText, Text: "hello"}, {Type: openai.ChatMessagePartTypeText, Text: " world"}}},
			2},
		{"an image costs defaultImageTokens, whatever its URL",
			Message{Role: openai.ChatMessageRoleUser},
			Message{Role: openai.ChatMessageRoleUser, MultiContent: []openai.ChatMessagePart{{Type: openai.ChatMessagePartTypeImageURL, ImageURL: &openai.ChatMessageImageURL{URL: png}}}},
			defaultImageTokens},
		{"a high-detail image costs defaultImageTokens",
			Message{Role: openai.ChatMessageRoleUser},
			Message{Role: openai.ChatMessageRoleUser, MultiContent: []openai.ChatMessagePart{{Type: openai.ChatMessagePartTypeImageURL, ImageURL: &openai.ChatMessageImageURL{URL: "https://example.com/a.png", Detail: openai.ImageURLDetailHigh}}}},
			defaultImageTokens},
		{"a low-detail image costs lowDetailImageTokens",
			Message{Role: openai.ChatMessageRoleUser},
			Message{Role: openai.ChatMessageRoleUser, MultiContent: []openai.ChatMessagePart{{Type: openai.ChatMessagePartTypeImageURL, ImageURL: &openai.ChatMessageImageURL{URL: png, Detail: openai.ImageURLDetailLow}}}},
			lowDetailImageTokens},
		{"an image part without a URL is still an image",
			Message{Role: openai.ChatMessageRoleUser},
			Message{Role: openai.ChatMessageRoleUser, MultiContent: []openai.ChatMessagePart{{Type: openai.ChatMessagePartTypeImageURL}}},
			defaultImageTokens},
		{"content wins over parts, as Text reads it",
			Message{Role: openai.ChatMessageRoleUser, Content: "hello world"},
			Message{Role: openai.ChatMessageRoleUser, Content: "hello world", MultiContent: []openai.ChatMessagePart{{Type: openai.ChatMessagePartTypeImageURL}}},
			0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.adds, c.CountMessage(tt.msg)-c.CountMessage(tt.base))
		})
	}
	assert.Equal(t, tokensPerMessage, c.CountMessage(Message{}), "an empty message costs its framing")
}

func TestWithImageTokensChangesTheImageCost(t *testing.T) {
	img := Message{Role: openai.ChatMessageRoleUser, MultiContent: []openai.ChatMessagePart{{Type: openai.ChatMessagePartTypeImageURL, ImageURL: &openai.ChatMessageImageURL{URL: "https://example.com/a.png"}}}}
	low := cloneMessage(img)
	low.MultiContent[0].ImageURL.Detail = openai.ImageURLDetailLow
	base := newCounter(t, EncodingO200KBase).CountMessage(Message{Role: openai.ChatMessageRoleUser})
	for _, tt := range []struct{ opt, want int }{{1105, 1105}, {0, 0}, {-5, defaultImageTokens}} {
		c := newCounter(t, EncodingO200KBase, WithImageTokens(tt.opt))
		assert.Equal(t, tt.want, c.CountMessage(img)-base, "WithImageTokens(%d)", tt.opt)
		assert.Equal(t, lowDetailImageTokens, c.CountMessage(low)-base, "low detail ignores WithImageTokens(%d)", tt.opt)
	}
}

func TestCountTextCountsSpecialTokensAsText(t *testing.T) {
	for _, enc := range []string{EncodingO200KBase, EncodingCL100KBase} {
		c := newCounter(t, enc)
		for _, s := range []string{"<|endoftext|>", "<|endofprompt|>", "<|fim_prefix|>", "<|fim_middle|>", "<|fim_suffix|>", "hello <|endoftext|> world <|endofprompt|>"} {
			var n int
			require.NotPanics(t, func() { n = c.CountText(s) }, "%s %q", enc, s)
			assert.Greater(t, n, 1, "%s: %q is text, several tokens, not one special token", enc, s)
		}
		m := Message{Role: openai.ChatMessageRoleUser, Content: "<|endoftext|>", Name: "<|endofprompt|>"}
		require.NotPanics(t, func() { c.CountMessage(m) })
	}
}

func TestCountMessageDoesNotModifyItsInput(t *testing.T) {
	idx := 2
	m := Message{
		Role: openai.ChatMessageRoleAssistant, Content: "", Name: "bot",
		MultiContent: []openai.ChatMessagePart{{Type: openai.ChatMessagePartTypeText, Text: "see"}, {Type: openai.ChatMessagePartTypeImageURL, ImageURL: &openai.ChatMessageImageURL{URL: "data:image/png;base64,AAAA", Detail: openai.ImageURLDetailLow}}},
		ToolCalls:    []openai.ToolCall{{Index: &idx, ID: "c1", Type: openai.ToolTypeFunction, Function: openai.FunctionCall{Name: "f", Arguments: "{}"}}},
		FunctionCall: &openai.FunctionCall{Name: "g", Arguments: "[]"},
	}
	want := cloneMessage(m)
	msgs := []Message{m, m}
	for _, tc := range []Counter{newCounter(t, EncodingO200KBase), Estimator{}} {
		tc.CountMessage(m)
		CountMessages(tc, msgs)
		NewTally(tc).Add(msgs...)
		assert.True(t, reflect.DeepEqual(want, m))
		assert.True(t, reflect.DeepEqual(want, msgs[0]) && reflect.DeepEqual(want, msgs[1]))
	}
}

// TestNoNetworkIsNeeded counts in a fresh process with every proxy pointed
// at a closed port: were anything to download ranks, it would fail. It also
// builds both encodings afresh under the same environment, because the
// shared ones may already exist.
func TestNoNetworkIsNeeded(t *testing.T) {
	if os.Getenv("COMPACT_TEST_OFFLINE_CHILD") == "1" {
		for _, model := range []string{"gpt-4o", "gpt-4"} {
			c, err := ForModel(model)
			require.NoError(t, err)
			require.Equal(t, 2, c.CountText("hello world"), "%s: hello world", model)
		}
		return
	}
	env := map[string]string{
		"HTTP_PROXY": "http://127.0.0.1:9", "HTTPS_PROXY": "http://127.0.0.1:9",
		"http_proxy": "http://127.0.0.1:9", "https_proxy": "http://127.0.0.1:9",
		"NO_PROXY": "", "no_proxy": "",
		"TIKTOKEN_CACHE_DIR": t.TempDir(), "DATA_GYM_CACHE_DIR": t.TempDir(),
	}
	for k, v := range env {
		t.Setenv(k, v)
	}
	for _, name := range []string{EncodingO200KBase, EncodingCL100KBase} {
		enc, err := bpe.Build(name)
		require.NoError(t, err, name)
		assert.Equal(t, 2, enc.Count("hello world", nil), name)
	}

	cmd := exec.Command(os.Args[0], "-test.run=^TestNoNetworkIsNeeded$", "-test.count=1")
	cmd.Env = append(os.Environ(), "COMPACT_TEST_OFFLINE_CHILD=1")
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "fresh process, no network:\n%s", out)
}

// TestLinksNoOtherTokenizer checks the package's source and its encoder's:
// it counts with its own encoder and embeds only its own two rank tables,
// so it must not import tiktoken-go, its loader (which embeds four
// encodings) or its regular expression engine. Package tiktokengo offers
// tiktoken-go.
func TestLinksNoOtherTokenizer(t *testing.T) {
	forbidden := []string{"github.com/pkoukk/tiktoken-go", "github.com/dlclark/regexp2"}
	files, err := filepath.Glob("*.go")
	require.NoError(t, err)
	inner, err := filepath.Glob("internal/bpe/*.go")
	require.NoError(t, err)
	files = append(files, inner...)
	fset := token.NewFileSet()
	checked := 0
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.ImportsOnly)
		require.NoError(t, err)
		for _, imp := range f.Imports {
			for _, path := range forbidden {
				assert.False(t, strings.HasPrefix(strings.Trim(imp.Path.Value, `"`), path), "%s imports %s", name, imp.Path.Value)
			}
		}
		checked++
	}
	assert.Positive(t, checked)
}

// messageTexts returns every piece of text CountMessage counts in m.
func messageTexts(m Message) []string {
	out := []string{m.Role, m.Name, m.Content, m.Refusal, m.ReasoningContent, m.ToolCallID}
	for _, p := range m.MultiContent {
		out = append(out, p.Text)
	}
	for _, c := range m.ToolCalls {
		out = append(out, c.Function.Name, c.Function.Arguments)
	}
	return out
}

func TestInvalidBytesThatJoinCountAsTheCharacterTheyMake(t *testing.T) {
	a, b := "\u2712\x92\xf2", "\x94\x94\x94\x94\x94\x94\x94\xff\x00\x00"
	require.False(t, seamless(a, b), "the halves must join into a new character")
	require.True(t, seamless("abc", "\xff"))
	for _, name := range []string{EncodingO200KBase, EncodingCL100KBase} {
		c := newCounter(t, name)
		// Read as runes, invalid bytes as U+FFFD: the text the counter sees.
		assert.Equal(t, c.CountText(string([]rune(a+b))), c.CountText(a+b), name)
		assert.Equal(t, c.CountText(string([]rune(a))), c.CountText(a), name)
		assert.Equal(t, c.CountText("\U00094514"), c.CountText("\xf2\x94\x94\x94"), name)
	}
}

func FuzzCountText(f *testing.F) {
	for _, s := range []string{"", "hello world", "<|endoftext|>", "today\n  \n", " \u00850", "👍", "\xff\xfe", "a\x00b",
		strings.Repeat("a", 300), strings.Repeat("=", 600), strings.Repeat("你", 100), strings.Repeat(" ", 257) + "x"} {
		f.Add(s, "world")
	}
	// Invalid bytes on both sides that join into one new character.
	f.Add("\u2712\x92\xf2", "\x94\x94\x94\x94\x94\x94\x94\xff\x00\x00")
	o200k := newCounter(f, EncodingO200KBase)
	cl100k := newCounter(f, EncodingCL100KBase)
	f.Fuzz(func(t *testing.T, a, b string) {
		for _, c := range []Counter{o200k, cl100k} {
			na, nb, nab := c.CountText(a), c.CountText(b), c.CountText(a+b)
			require.False(t, na < 0 || nb < 0 || nab < 0, "negative count: %d %d %d", na, nb, nab)
			require.Equal(t, na, c.CountText(a), "CountText(%q) a second time", a)
			d := nab - (na + nb)
			require.False(t, seamless(a, b) && (d < -concatSlack || d > concatSlack), "CountText(a+b) = %d, CountText(a)+CountText(b) = %d+%d: differ by %d\na=%q\nb=%q", nab, na, nb, d, a, b)
			require.Equal(t, a == "", na == 0, "CountText(%q) = %d: only empty text counts nothing", a, na)
		}
	})
}

func FuzzCountMessage(f *testing.F) {
	f.Add("user", "", "hello world", "", "", "", "", "", false)
	f.Add("assistant", "bot", "", "part", "read_file", `{"path":"a.go"}`, "", "low", true)
	f.Add("tool", "read_file", "<|endoftext|>", "", "", "", "call_1", "", false)
	memo := newCounter(f, EncodingO200KBase, WithCacheSize(16))
	plain := newCounter(f, EncodingO200KBase, WithCacheSize(0))
	f.Fuzz(func(t *testing.T, role, name, content, part, fn, args, callID, detail string, image bool) {
		m := Message{Role: role, Name: name, Content: content, ToolCallID: callID}
		if part != "" || image {
			m.MultiContent = []openai.ChatMessagePart{{Type: openai.ChatMessagePartTypeText, Text: part}}
			if image {
				m.MultiContent = append(m.MultiContent, openai.ChatMessagePart{Type: openai.ChatMessagePartTypeImageURL, ImageURL: &openai.ChatMessageImageURL{URL: part, Detail: openai.ImageURLDetail(detail)}})
			}
		}
		if fn != "" || args != "" {
			m.ToolCalls = []openai.ToolCall{{ID: callID, Type: openai.ToolTypeFunction, Function: openai.FunctionCall{Name: fn, Arguments: args}}}
		}
		want := cloneMessage(m)
		n := plain.CountMessage(m)
		require.GreaterOrEqual(t, n, tokensPerMessage, "the count is below the framing")
		for i := 0; i < 2; i++ {
			require.Equal(t, n, memo.CountMessage(m), "memoised count against unmemoised")
		}
		require.GreaterOrEqual(t, (Estimator{}).CountMessage(m), tokensPerMessage, "the estimate is below the framing")
		require.True(t, reflect.DeepEqual(want, m), "message modified: %+v, was %+v", m, want)
	})
}
