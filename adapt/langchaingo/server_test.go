package langchaingo

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

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tmc/langchaingo/llms"
	"github.com/tmc/langchaingo/llms/openai"

	"github.com/contextkit/compact"
)

// fakeAPI is a local server speaking OpenAI's Chat Completions: it keeps
// every request body, refuses (400, as the API does) a history that is not
// a valid chat request, and answers anything else with a short text.
type fakeAPI struct {
	*httptest.Server
	mu     sync.Mutex
	bodies [][]byte
}

// chatRequest is the part of a Chat Completions body the fake reads.
type chatRequest struct {
	Messages []compact.Message `json:"messages"`
}

func newFakeAPI(t *testing.T) *fakeAPI {
	f := &fakeAPI{}
	f.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		f.mu.Lock()
		f.bodies = append(f.bodies, body)
		f.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		var req chatRequest
		err := json.Unmarshal(body, &req)
		if err == nil && r.URL.Path != "/chat/completions" {
			err = fmt.Errorf("no such path %s", r.URL.Path)
		}
		if err == nil {
			err = compact.Validate(req.Messages)
		}
		if err != nil {
			w.WriteHeader(http.StatusBadRequest)
			_ = json.NewEncoder(w).Encode(map[string]any{"error": map[string]any{"message": err.Error(), "type": "invalid_request_error"}})
			return
		}
		fmt.Fprintf(w, `{"id":"chatcmpl-1","object":"chat.completion","created":1,"model":"gpt-test",
			"choices":[{"index":0,"message":{"role":"assistant","content":"Done."},"finish_reason":"stop"}],
			"usage":{"prompt_tokens":%d,"completion_tokens":2,"total_tokens":%d}}`, len(body)/4, len(body)/4+2)
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

// newLLM is langchaingo's OpenAI model for the fake server.
func newLLM(t *testing.T, url string) *openai.LLM {
	llm, err := openai.New(openai.WithToken("test-key"), openai.WithBaseURL(url), openai.WithModel("gpt-test"))
	require.NoError(t, err)
	return llm
}

// longHistory is everyPartJSON's conversation followed by rounds of
// parallel file reads, answered in one tool message, ending on a human
// question.
func longHistory(t testing.TB, rounds int) []llms.MessageContent {
	msgs := decode(t, everyPartJSON)
	for i := 0; i < rounds; i++ {
		a, b := fmt.Sprintf("call_r%da", i), fmt.Sprintf("call_r%db", i)
		msgs = append(msgs,
			llms.TextParts(llms.ChatMessageTypeHuman, fmt.Sprintf("Now read part %d.", i)),
			msg(llms.ChatMessageTypeAI, call(a, "read_file", fmt.Sprintf(`{"path":"part%d_a.go"}`, i)),
				call(b, "read_file", fmt.Sprintf(`{"path":"part%d_b.go"}`, i))),
			msg(llms.ChatMessageTypeTool, response(a, "read_file", strings.Repeat(fmt.Sprintf("func a%d() {}\n", i), 60))),
			msg(llms.ChatMessageTypeTool, response(b, "read_file", "open: permission denied")),
			llms.TextParts(llms.ChatMessageTypeAI, fmt.Sprintf("Part %d read.", i)))
	}
	msgs = append(msgs, llms.TextParts(llms.ChatMessageTypeHuman, "Which flags did v2 remove?"))
	require.NoError(t, Validate(msgs))
	return msgs
}

func TestTheProviderSendsTheCompactedHistory(t *testing.T) {
	api := newFakeAPI(t)
	msgs := longHistory(t, 12)
	// The fixture's tool message answering two calls at once is what the
	// OpenAI provider refuses; the history without it is what it sends.
	msgs = append(msgs[:3:3], msgs[4:]...)
	msgs[2].Parts = msgs[2].Parts[:1]
	require.NoError(t, Validate(msgs))

	engine := compact.New(compact.WithContextWindow(6000))
	out, res, err := Compress(context.Background(), engine, msgs, compact.Force())
	require.NoError(t, err)
	require.GreaterOrEqual(t, res.SummaryIndex, 0, "the engine wrote a summary")

	resp, err := newLLM(t, api.URL).GenerateContent(context.Background(), out)
	require.NoError(t, err, "the fake API accepts the compacted history")
	assert.Equal(t, "Done.", resp.Choices[0].Content)
	engine.UpdateUsage(UsageFrom(resp.Choices[0].GenerationInfo))
	assert.Equal(t, len(api.lastBody(t))/4, engine.Status().LastPromptTokens, "the provider's usage reaches the engine")

	var req chatRequest
	require.NoError(t, json.Unmarshal(api.lastBody(t), &req))
	assert.Less(t, len(req.Messages), len(msgs), "the body is shorter than the history")
	assert.Equal(t, "system", req.Messages[0].Role)
	assert.Contains(t, compact.Text(req.Messages[0]), compact.CompactionNote, "the note is sent with the system prompt")
	assert.Equal(t, "Which flags did v2 remove?", compact.Text(req.Messages[len(req.Messages)-1]), "the latest question is sent as it was")
	assert.Contains(t, string(api.lastBody(t)), strings.Trim(jsonOf(t, res.Summary[:40]), `"`), "the summary is sent")
}

func TestPrunedResponsesKeepTheirNames(t *testing.T) {
	msgs := longHistory(t, 12)
	out, res, err := Compress(context.Background(), compact.New(compact.WithContextWindow(10000)), msgs)
	require.NoError(t, err)
	require.Equal(t, -1, res.SummaryIndex, "pruning alone was enough")
	require.NotEmpty(t, res.Pruned)
	require.Len(t, out, len(msgs), "pruning changes messages, never their number")
	changed := 0
	for k := range msgs {
		for i, p := range out[k].Parts {
			r, ok := asResponse(p)
			if !ok || jsonOf(t, p) == jsonOf(t, msgs[k].Parts[i]) {
				continue
			}
			changed++
			orig, _ := asResponse(msgs[k].Parts[i])
			assert.Equal(t, orig.Name, r.Name)
			assert.Contains(t, r.Content, "[pruned", "response %s was pruned", r.ToolCallID)
		}
	}
	results := 0
	for _, p := range res.Pruned {
		if p.ToolCallID != "" {
			results++
		}
	}
	assert.Equal(t, results, changed, "every pruned response is changed, and only those")
	require.NoError(t, Validate(out))
}

func TestTheFakeAPIRefusesABrokenHistory(t *testing.T) {
	api := newFakeAPI(t)
	_, err := newLLM(t, api.URL).GenerateContent(context.Background(), []llms.MessageContent{
		llms.TextParts(llms.ChatMessageTypeHuman, "q"), msg(llms.ChatMessageTypeAI, call("a", "f", "{}")),
		llms.TextParts(llms.ChatMessageTypeHuman, "no answer")})
	require.Error(t, err, "the check the compacted history passes can fail")
	assert.Contains(t, err.Error(), "never answered")
}
