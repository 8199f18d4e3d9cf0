package genai

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
	sdk "google.golang.org/genai"

	"github.com/contextkit/compact"
)

// testModel is the model the tests ask the fake API for.
const testModel = "gemini-test"

// fakeAPI is a local server speaking the Gemini API's generateContent: it
// keeps every request body, refuses (400 INVALID_ARGUMENT, as the API
// does) a history without the API's shape, and answers anything else with
// a short text.
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
		if r.Method != http.MethodPost || r.URL.Path != "/v1beta/models/"+testModel+":generateContent" {
			apiError(w, http.StatusNotFound, "NOT_FOUND", r.Method+" "+r.URL.Path)
			return
		}
		var req wire
		err := json.Unmarshal(body, &req)
		if err == nil {
			err = Validate(fromWire(req))
		}
		if err != nil {
			apiError(w, http.StatusBadRequest, "INVALID_ARGUMENT", err.Error())
			return
		}
		fmt.Fprintf(w, `{"candidates":[{"content":{"role":"model","parts":[{"text":"Done."}]},"finishReason":"STOP"}],
			"usageMetadata":{"promptTokenCount":%d,"candidatesTokenCount":2,"totalTokenCount":%d}}`, len(body)/4, len(body)/4+2)
	}))
	t.Cleanup(f.Close)
	return f
}

// apiError writes an error the way Google APIs do.
func apiError(w http.ResponseWriter, code int, status, msg string) {
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(map[string]any{"error": map[string]any{"code": code, "message": msg, "status": status}})
}

func (f *fakeAPI) lastBody(t *testing.T) []byte {
	f.mu.Lock()
	defer f.mu.Unlock()
	require.NotEmpty(t, f.bodies, "the server got a request")
	return f.bodies[len(f.bodies)-1]
}

// newClient is an SDK client for the fake server that reads no key or
// backend from the environment.
func newClient(t *testing.T, url string) *sdk.Client {
	client, err := sdk.NewClient(context.Background(), &sdk.ClientConfig{APIKey: "test-key", Backend: sdk.BackendGeminiAPI,
		HTTPOptions: sdk.HTTPOptions{BaseURL: url}})
	require.NoError(t, err)
	return client
}

// longHistory is everyPartJSON's conversation followed by rounds of
// parallel file reads without ids (answered by name, the first call
// signed), ending on a user question: long enough to compact in a small
// window.
func longHistory(t testing.TB, rounds int) History {
	h := decode(t, everyPartJSON)
	for i := 0; i < rounds; i++ {
		a := sdk.NewPartFromFunctionCall("read_file", map[string]any{"path": fmt.Sprintf("part%d_a.go", i)})
		a.ThoughtSignature = []byte(fmt.Sprintf("sig-%d", i))
		h.Contents = append(h.Contents,
			user(text(fmt.Sprintf("Now read part %d.", i))),
			model(&sdk.Part{Text: "Read both halves.", Thought: true}, a,
				sdk.NewPartFromFunctionCall("read_file", map[string]any{"path": fmt.Sprintf("part%d_b.go", i)})),
			user(sdk.NewPartFromFunctionResponse("read_file", map[string]any{"output": strings.Repeat(fmt.Sprintf("func a%d() {}\n", i), 60)}),
				sdk.NewPartFromFunctionResponse("read_file", map[string]any{"error": "open: permission denied"})),
			model(text(fmt.Sprintf("Part %d read.", i))))
	}
	h.Contents = append(h.Contents, user(text("Which flags did v2 remove?")))
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

	client := newClient(t, api.URL)
	resp, err := client.Models.GenerateContent(context.Background(), testModel, out.Contents,
		&sdk.GenerateContentConfig{SystemInstruction: out.System})
	require.NoError(t, err, "the fake API accepts the compacted history")
	assert.Equal(t, "Done.", resp.Text())
	assert.Equal(t, len(api.lastBody(t))/4, UsageFrom(resp.UsageMetadata).PromptTokens)

	body := api.lastBody(t)
	var req wire
	require.NoError(t, json.Unmarshal(body, &req))
	assert.JSONEq(t, jsonOf(t, out.Contents), jsonOf(t, req.Contents), "the SDK sends the restored contents")
	assert.JSONEq(t, jsonOf(t, out.System), jsonOf(t, req.SystemInstruction), "and the restored system instruction")
	require.NoError(t, Validate(fromWire(req)), "the body has the API's shape")
	assert.Less(t, len(req.Contents), len(h.Contents), "the body is shorter than the history")
	assert.Equal(t, compact.CompactionNote, req.SystemInstruction.Parts[len(req.SystemInstruction.Parts)-1].Text,
		"the note is a part of its own")
	assert.JSONEq(t, jsonOf(t, h.Contents[len(h.Contents)-1]), jsonOf(t, req.Contents[len(req.Contents)-1]),
		"the latest user content is sent as it was")
	assert.Contains(t, string(body), jsonString(t, res.Summary), "the summary is sent")

	// Every kept content with calls still carries the signature on its
	// first call, as Gemini 3 wants it.
	calls := 0
	for _, c := range req.Contents {
		for _, p := range c.Parts {
			if p.FunctionCall != nil && strings.HasPrefix(p.FunctionCall.Args["path"].(string), "part") {
				if strings.HasSuffix(p.FunctionCall.Args["path"].(string), "_a.go") {
					assert.True(t, strings.HasPrefix(string(p.ThoughtSignature), "sig-"), "a kept first call keeps its signature")
				}
				calls++
			}
		}
	}
	assert.Positive(t, calls, "some calls were kept")
}

func TestPrunedResponsesKeepTheirFields(t *testing.T) {
	h := longHistory(t, 12)
	out, res, err := Compress(context.Background(), compact.New(compact.WithContextWindow(6000)), h)
	require.NoError(t, err)
	require.Equal(t, -1, res.SummaryIndex, "pruning alone was enough")
	require.NotEmpty(t, res.Pruned)
	changed := 0
	for k, c := range out.Contents {
		if c == h.Contents[k] {
			continue
		}
		for i, p := range c.Parts {
			fr := p.FunctionResponse
			if fr == nil || p == h.Contents[k].Parts[i] {
				continue
			}
			changed++
			orig := h.Contents[k].Parts[i].FunctionResponse
			assert.Equal(t, orig.Name, fr.Name)
			for key := range orig.Response {
				assert.Contains(t, fr.Response[key], "[pruned", "response %d/%d keeps its key %q and was pruned", k, i, key)
			}
		}
	}
	results := 0
	for _, p := range res.Pruned {
		if p.ToolCallID != "" {
			results++
		}
	}
	assert.Equal(t, results, changed, "every pruned response is changed, and only those")

	// The first content lost its image to a note and kept every other part.
	first, orig := out.Contents[0].Parts, h.Contents[0].Parts
	require.Len(t, first, len(orig))
	for i, p := range orig {
		if p.InlineData != nil && strings.HasPrefix(p.InlineData.MIMEType, "image/") {
			assert.Contains(t, first[i].Text, "[pruned", "image %d is a note now", i)
			continue
		}
		assert.Same(t, p, first[i], "part %d is kept: text, audio, files with their metadata", i)
	}
	require.NoError(t, Validate(out))
}

func TestTheFakeAPIRefusesABrokenHistory(t *testing.T) {
	api := newFakeAPI(t)
	client := newClient(t, api.URL)
	_, err := client.Models.GenerateContent(context.Background(), testModel,
		[]*sdk.Content{user(text("q")), model(fcall("", "f")), user(text("no answer"))}, nil)
	var apiErr sdk.APIError
	require.ErrorAs(t, err, &apiErr, "the check the compacted history passes can fail")
	assert.Equal(t, http.StatusBadRequest, apiErr.Code)
	assert.Contains(t, apiErr.Message, "is not answered here")
}
