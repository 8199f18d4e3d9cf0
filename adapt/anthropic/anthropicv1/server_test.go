package anthropicv1

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	sdk "github.com/anthropics/anthropic-sdk-go"
	"github.com/anthropics/anthropic-sdk-go/option"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/contextkit/compact"
)

// fakeAPI is a local server speaking the Messages API: it keeps every
// request body, refuses (400, as the API does) a history without the API's
// shape, and answers anything else with a short text.
type fakeAPI struct {
	*httptest.Server
	mu     sync.Mutex
	bodies [][]byte
}

func newFakeAPI(t *testing.T) *fakeAPI {
	f := &fakeAPI{}
	f.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		f.mu.Lock()
		f.bodies = append(f.bodies, body)
		f.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		if r.Method != http.MethodPost || r.URL.Path != "/v1/messages" {
			w.WriteHeader(http.StatusNotFound)
			fmt.Fprintf(w, `{"type":"error","error":{"type":"not_found_error","message":"%s %s"}}`, r.Method, r.URL.Path)
			return
		}
		var req wire
		err := json.Unmarshal(body, &req)
		if err == nil {
			err = Validate(History(req))
		}
		if err != nil {
			w.WriteHeader(http.StatusBadRequest)
			_ = json.NewEncoder(w).Encode(map[string]any{"type": "error",
				"error": map[string]string{"type": "invalid_request_error", "message": err.Error()}})
			return
		}
		fmt.Fprintf(w, `{"id":"msg_01","type":"message","role":"assistant","model":"claude-test",
			"content":[{"type":"text","text":"Done."}],"stop_reason":"end_turn","stop_sequence":null,
			"usage":{"input_tokens":%d,"output_tokens":2}}`, len(body)/4)
	}))
	t.Cleanup(f.Close)
	return f
}

func (f *fakeAPI) lastBody(t *testing.T) []byte {
	f.mu.Lock()
	defer f.mu.Unlock()
	require.NotEmpty(t, f.bodies, "the server got a request")
	return f.bodies[len(f.bodies)-1]
}

// newClient is an SDK client for the fake server that reads nothing from
// the environment and never retries.
func newClient(url string) sdk.Client {
	return sdk.NewClient(option.WithoutEnvironmentDefaults(), option.WithAPIKey("test-key"),
		option.WithBaseURL(url), option.WithMaxRetries(0))
}

// longHistory is everyBlockJSON's conversation followed by rounds of
// parallel file reads, ending on a user question: long enough to compact
// in a small window.
func longHistory(t *testing.T, rounds int) History {
	h := decode(t, everyBlockJSON)
	for i := 0; i < rounds; i++ {
		a, b := fmt.Sprintf("toolu_r%da", i), fmt.Sprintf("toolu_r%db", i)
		h.Messages = append(h.Messages,
			sdk.NewUserMessage(sdk.NewTextBlock(fmt.Sprintf("Now read part %d.", i))),
			sdk.NewAssistantMessage(
				sdk.NewThinkingBlock(fmt.Sprintf("sig-%d", i), "Read both halves."),
				sdk.NewToolUseBlock(a, map[string]any{"path": fmt.Sprintf("part%d_a.go", i)}, "read_file"),
				sdk.NewToolUseBlock(b, map[string]any{"path": fmt.Sprintf("part%d_b.go", i)}, "read_file")),
			sdk.NewUserMessage(
				sdk.NewToolResultBlock(a, strings.Repeat(fmt.Sprintf("func a%d() {}\n", i), 60), i%3 == 0),
				sdk.NewToolResultBlock(b, "open: permission denied", true)),
			sdk.NewAssistantMessage(sdk.NewTextBlock(fmt.Sprintf("Part %d read.", i))))
	}
	last := sdk.NewUserMessage(sdk.NewTextBlock("Which flags did v2 remove?"))
	last.Content[0].OfText.CacheControl = sdk.CacheControlEphemeralParam{}
	h.Messages = append(h.Messages, last)
	require.NoError(t, Validate(h))
	return h
}

func TestTheSDKSendsTheCompactedHistory(t *testing.T) {
	api := newFakeAPI(t)
	h := longHistory(t, 12)
	engine := compact.New(compact.WithContextWindow(6000))
	should, err := ShouldCompress(engine, h)
	require.NoError(t, err)
	require.True(t, should, "the history is over the threshold")

	out, res, err := Compress(context.Background(), engine, h, compact.Force())
	require.NoError(t, err)
	require.GreaterOrEqual(t, res.SummaryIndex, 0, "the engine wrote a summary")

	client := newClient(api.URL)
	msg, err := client.Messages.New(context.Background(), sdk.MessageNewParams{
		Model: "claude-test", MaxTokens: 256, System: out.System, Messages: out.Messages})
	require.NoError(t, err, "the fake API accepts the compacted history")
	assert.Equal(t, "Done.", msg.Content[0].Text)

	var sent struct {
		System   json.RawMessage `json:"system"`
		Messages json.RawMessage `json:"messages"`
	}
	body := api.lastBody(t)
	require.NoError(t, json.Unmarshal(body, &sent))
	assert.JSONEq(t, jsonOf(t, out.System), string(sent.System), "the SDK sends the restored system prompt")
	assert.JSONEq(t, jsonOf(t, out.Messages), string(sent.Messages), "and the restored turns")

	var req wire
	require.NoError(t, json.Unmarshal(body, &req))
	require.NoError(t, Validate(History(req)), "the body has the API's shape")
	assert.Less(t, len(req.Messages), len(h.Messages), "the body is shorter than the history")
	assert.JSONEq(t, jsonOf(t, h.System[0]), jsonOf(t, req.System[0]), "the system block keeps its cache_control")
	assert.Equal(t, compact.CompactionNote, req.System[len(req.System)-1].Text, "the note is a block of its own")
	assert.JSONEq(t, jsonOf(t, h.Messages[len(h.Messages)-1]), jsonOf(t, req.Messages[len(req.Messages)-1]),
		"the latest user turn is sent as it was, cache_control and all")
	assert.Contains(t, string(body), jsonString(t, res.Summary), "the summary is sent")

	// Every kept assistant turn still carries its signed thinking block.
	for _, m := range req.Messages {
		if m.Role == sdk.MessageParamRoleAssistant && len(m.Content) > 1 && m.Content[1].OfToolUse != nil {
			require.NotNil(t, m.Content[0].OfThinking, "a kept tool-calling turn starts with its thinking")
			assert.True(t, strings.HasPrefix(m.Content[0].OfThinking.Signature, "sig-"))
		}
	}
}

func TestPrunedResultsKeepTheirBlocksFields(t *testing.T) {
	h := longHistory(t, 12)
	out, res, err := Compress(context.Background(), compact.New(compact.WithContextWindow(6000)), h)
	require.NoError(t, err)
	require.Equal(t, -1, res.SummaryIndex, "pruning alone was enough")
	require.NotEmpty(t, res.Pruned)
	in := map[string]*sdk.ToolResultBlockParam{}
	for _, m := range h.Messages {
		for _, b := range m.Content {
			if b.OfToolResult != nil {
				in[b.OfToolResult.ToolUseID] = b.OfToolResult
			}
		}
	}
	changed := 0
	for _, m := range out.Messages {
		for _, b := range m.Content {
			r := b.OfToolResult
			if r == nil || jsonOf(t, r) == jsonOf(t, in[r.ToolUseID]) {
				continue
			}
			changed++
			assert.Equal(t, in[r.ToolUseID].IsError, r.IsError, "result %s keeps is_error", r.ToolUseID)
			assert.Contains(t, r.Content[0].OfText.Text, "[pruned", "result %s was pruned", r.ToolUseID)
		}
	}
	results := 0
	for _, p := range res.Pruned {
		if p.ToolCallID != "" {
			results++
		}
	}
	assert.Equal(t, results, changed, "every pruned result is changed, and only those")

	// The first turn lost its images to notes and kept every other block.
	first, orig := out.Messages[0].Content, h.Messages[0].Content
	require.Len(t, first, len(orig))
	for i, b := range orig {
		if b.OfImage != nil && b.OfImage.Source.OfFile == nil {
			assert.Contains(t, first[i].OfText.Text, "[pruned", "image %d is a note now", i)
			continue
		}
		assert.Equal(t, b, first[i], "block %d is kept: text with cache_control, documents, the file image", i)
	}
	require.NoError(t, Validate(out))
}

func TestTheFakeAPIRefusesABrokenHistory(t *testing.T) {
	api := newFakeAPI(t)
	client := newClient(api.URL)
	_, err := client.Messages.New(context.Background(), sdk.MessageNewParams{
		Model: "claude-test", MaxTokens: 16,
		Messages: []sdk.MessageParam{sdk.NewUserMessage(sdk.NewTextBlock("a")), sdk.NewUserMessage(sdk.NewTextBlock("b"))}})
	var apiErr *sdk.Error
	require.ErrorAs(t, err, &apiErr, "the check the compacted history passes can fail")
	assert.Equal(t, http.StatusBadRequest, apiErr.StatusCode)
}

// jsonString is s as it appears inside a JSON document.
func jsonString(t *testing.T, s string) string {
	data, err := json.Marshal(s)
	require.NoError(t, err)
	return strings.Trim(string(data), `"`)
}
