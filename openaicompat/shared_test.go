package openaicompat

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/contextkit/compact"
	openai "github.com/sashabaranov/go-openai"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The summarizer has both capabilities a Compressor looks for: it names
// itself, and it can be sent the agent's history.
var (
	_ compact.Namer        = (*Summarizer)(nil)
	_ compact.PrefixSharer = (*Summarizer)(nil)
)

// sharedRequest is sampleRequest offered the agent's history: a system
// prompt, the turns, and two messages that stay verbatim.
func sharedSample(model string) compact.SummaryRequest {
	req := sampleRequest()
	req.History = append([]compact.Message{{Role: compact.RoleSystem, Content: "You deploy services."}}, req.Turns...)
	req.History = append(req.History, user("now roll back"), asst("rolled back"))
	req.Kept = 2
	req.Model = model
	req.Tools = []openai.Tool{{Type: openai.ToolTypeFunction, Function: &openai.FunctionDefinition{Name: "bash"}}}
	return req
}

// Offered the agent's history for its own model, the summarizer sends it
// unchanged, with its tools (and tool_choice none), and asks for the
// summary in one user message after it; the provider reads the history
// from its cache.
func TestSummarizerSendsTheAgentsHistoryForItsOwnModel(t *testing.T) {
	noLeaks(t)
	f := newFakeEndpoint(t, replyWith("Deployed, then rolled back."))
	s := f.summarizer(t)
	req := sharedSample("Test-Model")
	before := compact.Clone(req.History)
	require.True(t, s.SharesPrefix(req.Model), "the model's case does not matter")

	got, err := s.Summarize(context.Background(), req)
	require.NoError(t, err)
	assert.Equal(t, "Deployed, then rolled back.", got)
	assert.True(t, equalHistory(before, req.History), "Summarize modified req.History")

	seen := f.requests()
	require.Len(t, seen, 1)
	body := seen[0].body
	require.Len(t, body.Messages, len(req.History)+1)
	sent, err := json.Marshal(body.Messages[:len(req.History)])
	require.NoError(t, err)
	want, err := json.Marshal(req.History)
	require.NoError(t, err)
	assert.JSONEq(t, string(want), string(sent), "the history goes out byte for byte as the agent sent it")
	last := body.Messages[len(body.Messages)-1]
	assert.Equal(t, openai.ChatMessageRoleUser, last.Role)
	assert.Equal(t, SharedInstruction(req), last.Content)
	assert.Contains(t, last.Content, "last 2 messages")
	require.Len(t, body.Tools, 1)
	assert.Equal(t, `"none"`, string(seen[0].raw["tool_choice"]))
}

// The rendered prompt is sent when sharing is off, when the history is for
// another model, or when there is none.
func TestSummarizerRendersWhenItCannotShare(t *testing.T) {
	for name, tt := range map[string]struct {
		opts []Option
		req  compact.SummaryRequest
	}{
		"sharing off":   {[]Option{WithPrefixSharing(false)}, sharedSample("test-model")},
		"another model": {nil, sharedSample("gpt-5")},
		"no history":    {nil, sampleRequest()},
	} {
		t.Run(name, func(t *testing.T) {
			noLeaks(t)
			f := newFakeEndpoint(t, replyWith("ok"))
			s := f.summarizer(t, tt.opts...)
			_, err := s.Summarize(context.Background(), tt.req)
			require.NoError(t, err)
			seen := f.requests()
			require.Len(t, seen, 1)
			instructions, material := compact.SummaryPrompt(tt.req)
			require.Len(t, seen[0].body.Messages, 2)
			assert.Equal(t, instructions, seen[0].body.Messages[0].Content)
			assert.Equal(t, material, seen[0].body.Messages[1].Content)
			assert.Empty(t, seen[0].body.Tools)
		})
	}
	off, err := New("m", WithPrefixSharing(false))
	require.NoError(t, err)
	assert.False(t, off.SharesPrefix("m"))
	on, err := New("m")
	require.NoError(t, err)
	assert.False(t, on.SharesPrefix(""), "no model named: nothing to share")
}

// The instruction names what to leave out, the focus and the length, and
// starts with the instructions the request carries.
func TestSharedInstructionSaysWhatToSummarise(t *testing.T) {
	req := compact.SummaryRequest{Kept: 3, Focus: "the rollback", TargetTokens: 800, Prompt: "Summarise tersely."}
	got := SharedInstruction(req)
	assert.Contains(t, got, "Summarise tersely.")
	assert.Contains(t, got, "last 3 messages")
	assert.Contains(t, got, "the rollback")
	assert.Contains(t, got, "about 800 tokens")
	assert.Contains(t, SharedInstruction(compact.SummaryRequest{}), compact.DefaultSummaryInstructions[:40])
	assert.NotContains(t, SharedInstruction(compact.SummaryRequest{}), "messages stay")
}
