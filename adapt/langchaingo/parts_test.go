package langchaingo

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tmc/langchaingo/llms"

	"github.com/contextkit/compact"
	"github.com/contextkit/compact/tokens"
)

// The tests here are issue 35's: typed nil parts, which panicked or passed
// as valid and encoded as null, and parts the adapter read as "[part]"
// (langchaingo's own cache wrapper, a host's own part type).

// nilParts are parts no message can hold, each with the words an error
// about it uses.
func nilParts() []struct {
	name string
	part llms.ContentPart
	says string
} {
	ephemeral := &llms.CacheControl{Type: "ephemeral"}
	loop := &llms.CachedContent{}
	loop.ContentPart = loop
	return []struct {
		name string
		part llms.ContentPart
		says string
	}{
		{"nil", nil, "is nil"},
		{"*TextContent", (*llms.TextContent)(nil), "is a nil *llms.TextContent"},
		{"*ToolCall", (*llms.ToolCall)(nil), "is a nil *llms.ToolCall"},
		{"*ToolCallResponse", (*llms.ToolCallResponse)(nil), "is a nil *llms.ToolCallResponse"},
		{"*BinaryContent", (*llms.BinaryContent)(nil), "is a nil *llms.BinaryContent"},
		{"*ImageURLContent", (*llms.ImageURLContent)(nil), "is a nil *llms.ImageURLContent"},
		{"*CachedContent", (*llms.CachedContent)(nil), "is a nil *llms.CachedContent"},
		{"a cache wrapper around nothing", llms.WithCacheControl(nil, ephemeral), "is a cache wrapper around nothing"},
		{"a cache wrapper around a nil pointer", llms.WithCacheControl((*llms.TextContent)(nil), ephemeral),
			"is a cache wrapper around a nil *llms.TextContent"},
		{"a cache wrapper that holds itself", loop, "nests more than 8 cache wrappers"},
	}
}

func TestATypedNilPartIsAnErrorNamingItsMessageAndPart(t *testing.T) {
	for _, np := range nilParts() {
		for _, role := range []llms.ChatMessageType{llms.ChatMessageTypeHuman, llms.ChatMessageTypeAI, llms.ChatMessageTypeTool} {
			t.Run(np.name+" in a "+string(role)+" message", func(t *testing.T) {
				msgs := []llms.MessageContent{
					llms.TextParts(llms.ChatMessageTypeHuman, "Read a.go."),
					msg(llms.ChatMessageTypeAI, call("c1", "read_file", `{"path":"a.go"}`)),
					msg(llms.ChatMessageTypeTool, response("c1", "read_file", "package a")),
				}
				k := map[llms.ChatMessageType]int{llms.ChatMessageTypeHuman: 0, llms.ChatMessageTypeAI: 1, llms.ChatMessageTypeTool: 2}[role]
				msgs[k].Parts = append(msgs[k].Parts, np.part)

				_, err := Convert(msgs)
				require.ErrorIs(t, err, compact.ErrInvalidHistory)
				assert.Equal(t, fmt.Sprintf("langchaingo: message %d: compact: invalid history: part 1 %s", k, np.says), err.Error())

				err = Validate(msgs)
				var se *ShapeError
				require.ErrorAs(t, err, &se, "Validate passes a history with a nil part")
				assert.Equal(t, RuleNilPart, se.Rule)
				assert.Equal(t, [2]int{k, 1}, [2]int{se.Index, se.Part})
				assert.Equal(t, fmt.Sprintf("langchaingo: message %d, part 1: the part %s", k, np.says), err.Error())

				_, _, err = Compress(context.Background(), compact.New(compact.WithContextWindow(4000)), msgs, compact.Force())
				require.ErrorIs(t, err, compact.ErrInvalidHistory)
				_, err = ShouldCompress(compact.New(), msgs)
				require.ErrorIs(t, err, compact.ErrInvalidHistory)
			})
		}
	}
}

// bigPrompt is a 36,000-byte system prompt, about 6,000 tokens.
var bigPrompt = strings.Repeat("Rule: quote the file and line of every claim you make. ", 655)[:36_000]

func TestACachedPartReadsAsThePartItWraps(t *testing.T) {
	counter, err := tokens.ForModel("gpt-4o")
	require.NoError(t, err)
	ephemeral := &llms.CacheControl{Type: "ephemeral"}
	msgs := []llms.MessageContent{
		msg(llms.ChatMessageTypeSystem, llms.WithCacheControl(llms.TextPart(bigPrompt), ephemeral)),
		msg(llms.ChatMessageTypeHuman, llms.WithCacheControl(&llms.TextContent{Text: "The deploy key is in vault/prod."}, ephemeral),
			llms.WithCacheControl(llms.BinaryPart("image/png", []byte{0x89, 'P'}), ephemeral)),
		msg(llms.ChatMessageTypeAI, &llms.CachedContent{ContentPart: call("c1", "read_file", `{"path":"a.go"}`), CacheControl: ephemeral}),
		msg(llms.ChatMessageTypeTool, llms.WithCacheControl(response("c1", "read_file", "package a"), ephemeral)),
	}
	require.NoError(t, Validate(msgs))
	conv, err := Convert(msgs)
	require.NoError(t, err)
	v := conv.Messages
	assert.Equal(t, bigPrompt, v[0].Content, "the engine reads the cached system prompt")
	assert.Greater(t, counter.CountMessage(v[0]), 5_000, "and counts it as what it is, not as a 7-token placeholder")
	require.Len(t, v[1].MultiContent, 2)
	assert.Equal(t, "The deploy key is in vault/prod.", v[1].MultiContent[0].Text)
	assert.Equal(t, "data:image/png;base64,iVA=", v[1].MultiContent[1].ImageURL.URL)
	require.Len(t, v[2].ToolCalls, 1, "a cached call is a call")
	assert.Equal(t, "c1", v[3].ToolCallID, "a cached response is a tool result")
	assert.Equal(t, "package a", v[3].Content)
	require.NoError(t, compact.Validate(v))
	requireIdentical(t, msgs, roundTrip(t, msgs))
}

// notePart is a host's own part type: it embeds a langchaingo part, as any
// type outside llms must to be a ContentPart.
type notePart struct {
	llms.TextContent
	Author string
}

func TestAPartOfAHostsOwnTypeIsCountedAndCarried(t *testing.T) {
	note := notePart{TextContent: llms.TextContent{Text: "Ship on Friday."}, Author: "pm"}
	msgs := []llms.MessageContent{
		msg(llms.ChatMessageTypeHuman, llms.TextPart("Plan?"), note, &note),
		msg(llms.ChatMessageTypeAI, llms.TextPart("Friday.")),
	}
	conv, err := Convert(msgs)
	require.NoError(t, err)
	parts := conv.Messages[0].MultiContent
	require.Len(t, parts, 3)
	for _, p := range parts[1:] {
		assert.Contains(t, p.Text, "Ship on Friday.", "the engine reads what the part says")
		assert.Contains(t, p.Text, "langchaingo.notePart", "and what it is")
	}
	requireSame(t, msgs, roundTrip(t, msgs))
}

// requireSame fails unless got is want by value (a host's own parts do not
// encode as langchaingo's).
func requireSame(t testing.TB, want, got []llms.MessageContent) {
	t.Helper()
	require.Equal(t, want, got)
}

func TestAChangedPartKeepsItsCacheWrapperAndItsPointer(t *testing.T) {
	ephemeral := &llms.CacheControl{Type: "ephemeral"}
	first := response("c1", "read_file", "package a")
	in := []llms.MessageContent{
		msg(llms.ChatMessageTypeHuman, llms.WithCacheControl(llms.TextPart("Compare."), ephemeral),
			llms.WithCacheControl(&llms.ImageURLContent{URL: "https://example.com/a.png"}, ephemeral)),
		msg(llms.ChatMessageTypeAI, llms.WithCacheControl(&llms.ToolCall{ID: "c1", Type: "function",
			FunctionCall: &llms.FunctionCall{Name: "read_file", Arguments: `{"path":"a.go"}`}}, ephemeral)),
		msg(llms.ChatMessageTypeTool, llms.WithCacheControl(&first, ephemeral)),
	}
	conv, err := Convert(in)
	require.NoError(t, err)
	out := compact.Clone(conv.Messages)
	out[0].Content, out[0].MultiContent = "Compare.\n[image removed]", nil
	out[1].ToolCalls[0].Function.Arguments = `{"path":"a…"}`
	out[2].Content = "[pruned]"

	got, err := conv.Restore(out)
	require.NoError(t, err)
	require.NoError(t, Validate(got))
	assert.Equal(t, in[0].Parts[0], got[0].Parts[0], "the kept part is the original")
	assert.Equal(t, llms.WithCacheControl(&llms.TextContent{Text: "[image removed]"}, ephemeral), got[0].Parts[1],
		"the note keeps the image's wrapper and pointer")
	assert.Equal(t, llms.WithCacheControl(&llms.ToolCall{ID: "c1", Type: "function",
		FunctionCall: &llms.FunctionCall{Name: "read_file", Arguments: `{"path":"a…"}`}}, ephemeral), got[1].Parts[0])
	assert.Equal(t, llms.WithCacheControl(&llms.ToolCallResponse{ToolCallID: "c1", Name: "read_file", Content: "[pruned]"}, ephemeral),
		got[2].Parts[0])
	assert.Equal(t, "package a", first.Content, "the input is not modified")
}

func TestACachedSystemPromptCountsTowardTheWindow(t *testing.T) {
	ephemeral := &llms.CacheControl{Type: "ephemeral"}
	msgs := []llms.MessageContent{msg(llms.ChatMessageTypeSystem, llms.WithCacheControl(llms.TextPart(bigPrompt), ephemeral))}
	for i := range 6 {
		msgs = append(msgs, llms.TextParts(llms.ChatMessageTypeHuman, fmt.Sprintf("Step %d: %s", i, strings.Repeat("check the flags; ", 150))),
			llms.TextParts(llms.ChatMessageTypeAI, fmt.Sprintf("Done with step %d.", i)))
	}
	engine := compact.New(compact.WithContextWindow(16_000))
	should, err := ShouldCompress(engine, msgs)
	require.NoError(t, err)
	assert.True(t, should, "a 6,000-token cached prompt and 3,000 tokens of turns near a 16k window")
	out, res, err := Compress(context.Background(), engine, msgs)
	require.NoError(t, err)
	assert.Empty(t, res.Skipped, "the engine compacts")
	assert.Equal(t, msgs[0].Parts[0], out[0].Parts[0], "the cached system prompt comes back wrapped")
	require.NoError(t, Validate(out))
}
