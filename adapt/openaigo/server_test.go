package openaigo

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

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/contextkit/compact"
)

// fakeAPI is a local server speaking Chat Completions: it keeps every
// request body, refuses (400, as the API does) a history that is not a
// valid request, and answers anything else with a short text.
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
		if r.Method != http.MethodPost || r.URL.Path != "/v1/chat/completions" {
			w.WriteHeader(http.StatusNotFound)
			fmt.Fprintf(w, `{"error":{"message":"%s %s","type":"invalid_request_error"}}`, r.Method, r.URL.Path)
			return
		}
		var req struct {
			Messages []openai.ChatCompletionMessageParamUnion `json:"messages"`
		}
		err := json.Unmarshal(body, &req)
		if err == nil {
			err = Validate(req.Messages)
		}
		if err != nil {
			w.WriteHeader(http.StatusBadRequest)
			_ = json.NewEncoder(w).Encode(map[string]any{"error": map[string]string{"message": err.Error(), "type": "invalid_request_error"}})
			return
		}
		fmt.Fprintf(w, `{"id":"chatcmpl-1","object":"chat.completion","created":1,"model":"gpt-test",
			"choices":[{"index":0,"finish_reason":"stop","message":{"role":"assistant","content":"Done."}}],
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

// newClient is an SDK client for the fake server that never retries.
func newClient(url string) openai.Client {
	return openai.NewClient(option.WithAPIKey("test-key"), option.WithBaseURL(url+"/v1/"), option.WithMaxRetries(0))
}

// longHistory is everyPartJSON's conversation followed by rounds of
// parallel function and custom calls, ending on a user question.
func longHistory(t *testing.T, rounds int) []openai.ChatCompletionMessageParamUnion {
	msgs := decode(t, everyPartJSON)
	for i := 0; i < rounds; i++ {
		a, b := fmt.Sprintf("call_r%da", i), fmt.Sprintf("call_r%db", i)
		msgs = append(msgs,
			openai.UserMessage(fmt.Sprintf("Now read part %d.", i)),
			openai.ChatCompletionMessageParamUnion{OfAssistant: &openai.ChatCompletionAssistantMessageParam{
				ToolCalls: []openai.ChatCompletionMessageToolCallUnionParam{
					{OfFunction: &openai.ChatCompletionMessageFunctionToolCallParam{ID: a,
						Function: openai.ChatCompletionMessageFunctionToolCallFunctionParam{Name: "read_file", Arguments: fmt.Sprintf(`{"path":"part%d.go"}`, i)}}},
					{OfCustom: &openai.ChatCompletionMessageCustomToolCallParam{ID: b,
						Custom: openai.ChatCompletionMessageCustomToolCallCustomParam{Name: "grep", Input: fmt.Sprintf("part%d", i)}}},
				}}},
			openai.ToolMessage(strings.Repeat(fmt.Sprintf("func a%d() {}\n", i), 60), a),
			openai.ToolMessage("no matches", b),
			openai.AssistantMessage(fmt.Sprintf("Part %d read.", i)))
	}
	msgs = append(msgs, openai.UserMessage("Which flags did v2 remove?"))
	require.NoError(t, Validate(msgs))
	return msgs
}

func TestTheSDKSendsTheCompactedHistory(t *testing.T) {
	api := newFakeAPI(t)
	msgs := longHistory(t, 12)
	engine := compact.New(compact.WithContextWindow(6000))
	should, err := ShouldCompress(engine, msgs)
	require.NoError(t, err)
	require.True(t, should, "the history is over the threshold")

	out, res, err := Compress(context.Background(), engine, msgs, compact.Force())
	require.NoError(t, err)
	require.GreaterOrEqual(t, res.SummaryIndex, 0, "the engine wrote a summary")

	client := newClient(api.URL)
	resp, err := client.Chat.Completions.New(context.Background(), openai.ChatCompletionNewParams{Model: "gpt-test", Messages: out})
	require.NoError(t, err, "the fake API accepts the compacted history")
	assert.Equal(t, "Done.", resp.Choices[0].Message.Content)

	body := api.lastBody(t)
	var sent struct {
		Messages json.RawMessage `json:"messages"`
	}
	require.NoError(t, json.Unmarshal(body, &sent))
	assert.JSONEq(t, jsonOf(t, out), string(sent.Messages), "the SDK sends the restored history")

	var req []openai.ChatCompletionMessageParamUnion
	require.NoError(t, json.Unmarshal(sent.Messages, &req))
	require.NoError(t, Validate(req))
	assert.Less(t, len(req), len(msgs))
	first := req[0].OfDeveloper
	require.NotNil(t, first, "the developer prompt opens the request")
	assert.JSONEq(t, jsonOf(t, msgs[0].OfDeveloper.Content.OfArrayOfContentParts[0]), jsonOf(t, first.Content.OfArrayOfContentParts[0]),
		"its part keeps its prompt cache breakpoint")
	assert.Equal(t, compact.CompactionNote, first.Content.OfArrayOfContentParts[len(first.Content.OfArrayOfContentParts)-1].Text)
	assert.JSONEq(t, jsonOf(t, msgs[len(msgs)-1]), jsonOf(t, req[len(req)-1]), "the latest user message is sent as it was")
	summaries := 0
	for _, m := range req {
		if m.OfUser != nil && strings.Contains(m.OfUser.Content.OfString.Value, res.Summary) ||
			m.OfAssistant != nil && strings.Contains(m.OfAssistant.Content.OfString.Value, res.Summary) {
			summaries++
		}
	}
	assert.Equal(t, 1, summaries, "the summary is sent, once")
	custom := 0
	for _, m := range req {
		if m.OfAssistant != nil {
			for _, c := range m.OfAssistant.ToolCalls {
				if c.OfCustom != nil {
					custom++
				}
			}
		}
	}
	assert.Positive(t, custom, "kept custom calls are sent as custom calls")
}

func TestTheFakeAPIRefusesABrokenHistory(t *testing.T) {
	api := newFakeAPI(t)
	client := newClient(api.URL)
	_, err := client.Chat.Completions.New(context.Background(), openai.ChatCompletionNewParams{Model: "gpt-test",
		Messages: []openai.ChatCompletionMessageParamUnion{openai.ToolMessage("orphan", "call_x")}})
	var apiErr *openai.Error
	require.ErrorAs(t, err, &apiErr, "the check the compacted history passes can fail")
	assert.Equal(t, http.StatusBadRequest, apiErr.StatusCode)
}
