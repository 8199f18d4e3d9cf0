package openaicompat

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/contextkit/compact"
	"github.com/contextkit/compact/redact"
	openai "github.com/sashabaranov/go-openai"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
)

// testAPIKey looks like an OpenAI key so that both the explicit scrub and
// Redact would catch it; tests assert it never reaches an error.
const testAPIKey = "sk-test-0123456789abcdefghijklmn"

// secretTurn is text that is only ever in the request body; tests assert it
// never reaches an error.
const secretTurn = "the launch code is 0000-BODY-ONLY"

// noLeaks fails t if goroutines started during the test outlive it. Call it
// first, so that its check runs after every other cleanup (servers closed,
// idle connections dropped).
func noLeaks(t *testing.T) {
	t.Helper()
	ignore := goleak.IgnoreCurrent()
	t.Cleanup(func() { goleak.VerifyNone(t, ignore) })
}

// seenRequest is what the fake endpoint received.
type seenRequest struct {
	method, path, auth string
	raw                map[string]json.RawMessage
	body               openai.ChatCompletionRequest
	at                 time.Time
}

// fakeEndpoint is an httptest server speaking the Chat Completions wire
// format. handle answers the nth request (1-based).
type fakeEndpoint struct {
	srv  *httptest.Server
	mu   sync.Mutex
	seen []seenRequest
}

func newFakeEndpoint(t *testing.T, handle endpointHandler) *fakeEndpoint {
	t.Helper()
	f := &fakeEndpoint{}
	var count atomic.Int64
	f.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		data, err := io.ReadAll(r.Body)
		if err != nil {
			return
		}
		s := seenRequest{method: r.Method, path: r.URL.Path, auth: r.Header.Get("Authorization"), at: time.Now()}
		if err := json.Unmarshal(data, &s.raw); err != nil {
			t.Errorf("request body is not JSON: %v", err)
		}
		if err := json.Unmarshal(data, &s.body); err != nil {
			t.Errorf("request body is not a chat completion request: %v", err)
		}
		f.mu.Lock()
		f.seen = append(f.seen, s)
		f.mu.Unlock()
		handle(int(count.Add(1)), w, r)
	}))
	t.Cleanup(f.srv.Close)
	return f
}

// requests returns what the endpoint has received so far.
func (f *fakeEndpoint) requests() []seenRequest {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]seenRequest(nil), f.seen...)
}

// summarizer returns an Summarizer pointed at f, with tiny backoff.
func (f *fakeEndpoint) summarizer(t *testing.T, opts ...Option) *Summarizer {
	t.Helper()
	base := []Option{
		WithBaseURL(f.srv.URL + "/v1"),
		WithAPIKey(testAPIKey),
		WithHTTPClient(f.srv.Client()),
		WithRetryBackoff(time.Millisecond, 2*time.Millisecond),
		WithRetrySeed(1),
	}
	s, err := New("test-model", append(base, opts...)...)
	require.NoError(t, err)
	return s
}

// writeCompletion answers with one choice holding content.
func writeCompletion(w http.ResponseWriter, content, finish string) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{
		"id": "chatcmpl-1", "object": "chat.completion", "created": 1, "model": "test-model",
		"choices": []map[string]any{{
			"index":         0,
			"message":       map[string]any{"role": "assistant", "content": content},
			"finish_reason": finish,
		}},
		"usage": map[string]any{"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
	})
}

// replyWith answers with a completion holding content.
func replyWith(content string) func(int, http.ResponseWriter, *http.Request) {
	return func(_ int, w http.ResponseWriter, _ *http.Request) { writeCompletion(w, content, "stop") }
}

// writeAPIError answers with status and an OpenAI error object.
func writeAPIError(w http.ResponseWriter, status int, code, typ, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	e := map[string]any{"message": msg, "type": typ, "param": nil, "code": nil}
	if code != "" {
		e["code"] = code
	}
	_ = json.NewEncoder(w).Encode(map[string]any{"error": e})
}

// sampleRequest is a small request whose turns hold secretTurn.
func sampleRequest() compact.SummaryRequest {
	return compact.SummaryRequest{
		Turns:        []compact.Message{user("deploy the service; " + secretTurn), call("", "c1", "bash"), result("c1", "deployed"), asst("done")},
		TargetTokens: 3000,
	}
}

func TestSummarizerSendsSummaryPromptAndReturnsTheSummary(t *testing.T) {
	noLeaks(t)
	f := newFakeEndpoint(t, replyWith("\n  The service was deployed.  \n"))
	s := f.summarizer(t)
	req := sampleRequest()
	before := compact.Clone(req.Turns)

	got, err := s.Summarize(context.Background(), req)
	require.NoError(t, err)
	assert.Equal(t, "The service was deployed.", got)
	assert.True(t, equalHistory(before, req.Turns), "Summarize modified req.Turns")

	seen := f.requests()
	require.Len(t, seen, 1)
	r := seen[0]
	assert.Equal(t, http.MethodPost, r.method)
	assert.Equal(t, "/v1/chat/completions", r.path)
	assert.Equal(t, "Bearer "+testAPIKey, r.auth)
	assert.Equal(t, "test-model", r.body.Model)
	instructions, material := compact.SummaryPrompt(req)
	require.Len(t, r.body.Messages, 2)
	assert.Equal(t, openai.ChatMessageRoleSystem, r.body.Messages[0].Role)
	assert.Equal(t, instructions, r.body.Messages[0].Content)
	assert.Equal(t, openai.ChatMessageRoleUser, r.body.Messages[1].Role)
	assert.Equal(t, material, r.body.Messages[1].Content)
	assert.Equal(t, 2*3000, r.body.MaxCompletionTokens, "the default ceiling is twice the target")
	assert.NotContains(t, r.raw, "max_tokens")
	assert.NotContains(t, r.raw, "temperature", "no temperature is sent by default")
	assert.NotEqual(t, "true", string(r.raw["stream"]))
	assert.Equal(t, "openai:test-model", s.Name())
	assert.Equal(t, "openai:test-model", s.Name())
}

func TestSummarizerRequestOptions(t *testing.T) {
	tests := []struct {
		name   string
		opts   []Option
		target int
		check  func(t *testing.T, r seenRequest)
	}{
		{"a small target gets the floor", nil, 100, func(t *testing.T, r seenRequest) {
			assert.Equal(t, minOutputTokens, r.body.MaxCompletionTokens)
		}},
		{"no target sends no ceiling", nil, 0, func(t *testing.T, r seenRequest) {
			assert.NotContains(t, r.raw, "max_completion_tokens")
			assert.NotContains(t, r.raw, "max_tokens")
		}},
		{"a fixed ceiling wins over the target", []Option{WithMaxOutputTokens(777)}, 3000, func(t *testing.T, r seenRequest) {
			assert.Equal(t, 777, r.body.MaxCompletionTokens)
		}},
		{"legacy servers get max_tokens", []Option{WithLegacyMaxTokens(true)}, 3000, func(t *testing.T, r seenRequest) {
			assert.JSONEq(t, "6000", string(r.raw["max_tokens"]))
			assert.NotContains(t, r.raw, "max_completion_tokens")
		}},
		{"a temperature is sent", []Option{WithTemperature(0.3)}, 0, func(t *testing.T, r seenRequest) {
			assert.InDelta(t, 0.3, r.body.Temperature, 1e-6)
		}},
		{"temperature zero is sent, not omitted", []Option{WithTemperature(0)}, 0, func(t *testing.T, r seenRequest) {
			require.Contains(t, r.raw, "temperature")
			assert.InDelta(t, 0, r.body.Temperature, 1e-30)
		}},
		{"no key sends no Authorization header", []Option{WithAPIKey("")}, 0, func(t *testing.T, r seenRequest) {
			assert.Empty(t, r.auth)
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			noLeaks(t)
			f := newFakeEndpoint(t, replyWith("ok"))
			req := sampleRequest()
			req.TargetTokens = tt.target
			_, err := f.summarizer(t, tt.opts...).Summarize(context.Background(), req)
			require.NoError(t, err)
			require.Len(t, f.requests(), 1)
			tt.check(t, f.requests()[0])
		})
	}
}

func TestSummarizerReusesAClientOrConfig(t *testing.T) {
	noLeaks(t)
	f := newFakeEndpoint(t, replyWith("ok"))

	cfg := openai.DefaultConfig("sk-from-config-0123456789abcdef")
	cfg.BaseURL = f.srv.URL + "/v1"
	cfg.HTTPClient = f.srv.Client()
	viaClient, err := New("m", WithClient(openai.NewClientWithConfig(cfg)))
	require.NoError(t, err)
	_, err = viaClient.Summarize(context.Background(), sampleRequest())
	require.NoError(t, err)

	cfg.BaseURL = "http://unused.invalid/v1"
	viaConfig, err := New("m", WithClientConfig(cfg), WithBaseURL(f.srv.URL+"/v1"))
	require.NoError(t, err)
	_, err = viaConfig.Summarize(context.Background(), sampleRequest())
	require.NoError(t, err)

	seen := f.requests()
	require.Len(t, seen, 2)
	for _, r := range seen {
		assert.Equal(t, "Bearer sk-from-config-0123456789abcdef", r.auth)
	}
}

func TestNewRejectsBadOptions(t *testing.T) {
	client := openai.NewClient("k")
	tests := []struct {
		name  string
		model string
		opts  []Option
		want  string
	}{
		{"no model", " ", nil, "a model name is required"},
		{"negative retries", "m", []Option{WithMaxRetries(-1)}, "max retries -1 is negative"},
		{"negative attempt timeout", "m", []Option{WithAttemptTimeout(-time.Second)}, "attempt timeout -1s is negative"},
		{"backoff max below base", "m", []Option{WithRetryBackoff(time.Second, time.Millisecond)}, "want 0 <= base <= max"},
		{"temperature above 2", "m", []Option{WithTemperature(2.5)}, "temperature 2.5 is outside [0, 2]"},
		{"temperature NaN", "m", []Option{WithTemperature(float32(math.NaN()))}, "outside [0, 2]"},
		{"negative output ceiling", "m", []Option{WithMaxOutputTokens(-5)}, "max output tokens -5 is negative"},
		{"base URL without scheme", "m", []Option{WithBaseURL("localhost:8080/v1")}, "is not an http or https URL"},
		{"base URL with another scheme", "m", []Option{WithBaseURL("ftp://host/v1")}, "is not an http or https URL"},
		{"client and base URL", "m", []Option{WithClient(client), WithBaseURL("http://h/v1")}, "WithClient cannot be combined"},
		{"client and key", "m", []Option{WithClient(client), WithAPIKey("k")}, "WithClient cannot be combined"},
		{"config and key", "m", []Option{WithClientConfig(openai.DefaultConfig("a")), WithAPIKey("b")}, "WithAPIKey cannot be combined with WithClientConfig"},
		{"config without HTTP client", "m", []Option{WithClientConfig(openai.ClientConfig{BaseURL: "http://h/v1"})}, "no HTTP client"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := New(tt.model, tt.opts...)
			require.Error(t, err)
			assert.Nil(t, s)
			assert.Contains(t, err.Error(), tt.want)
		})
	}
}

func TestNewRedactsAPasswordInABadBaseURL(t *testing.T) {
	_, err := New("m", WithBaseURL("ftp://user:hunter2hunter2@host/v1"))
	require.Error(t, err)
	assert.NotContains(t, err.Error(), "hunter2hunter2")
}

func TestNewMakesNoRequest(t *testing.T) {
	noLeaks(t)
	f := newFakeEndpoint(t, replyWith("ok"))
	f.summarizer(t)
	assert.Empty(t, f.requests())
}

func TestSummarizerSkipsTheCallWhenThereIsNothingToSummarise(t *testing.T) {
	noLeaks(t)
	f := newFakeEndpoint(t, replyWith("ok"))
	_, err := f.summarizer(t).Summarize(context.Background(), compact.SummaryRequest{TargetTokens: 100})
	assert.ErrorIs(t, err, compact.ErrNothingToCompress)
	assert.Empty(t, f.requests())
}

func TestSummarizerCleansTheModelsAnswer(t *testing.T) {
	tests := []struct{ name, content, want string }{
		{"plain", "Deployed v2.", "Deployed v2."},
		{"echoed prefix", compact.SummaryPrefix + "\n\nDeployed v2.", "Deployed v2."},
		{"echoed prefix twice", compact.SummaryPrefix + "\n\n" + compact.SummaryPrefix + "\n\nDeployed v2.", "Deployed v2."},
		{"reasoning block first", "<think>\nthe user wants...\n</think>\n\nDeployed v2.", "Deployed v2."},
		{"summary tags", "<summary>\nDeployed v2.\n</summary>", "Deployed v2."},
		{"prefix inside summary tags", "<summary>" + compact.SummaryPrefix + "\nDeployed v2.</summary>", "Deployed v2."},
		{"a fence around everything", "```markdown\n## Done\nDeployed v2.\n```", "## Done\nDeployed v2."},
		{"a fence inside the text is kept", "Ran:\n```\nmake\n```\nthen deployed.", "Ran:\n```\nmake\n```\nthen deployed."},
		{"two fenced blocks are kept", "```\na\n```\nand\n```\nb\n```", "```\na\n```\nand\n```\nb\n```"},
		{"tags that do not wrap everything are kept", "<summary>a</summary> and more", "<summary>a</summary> and more"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			noLeaks(t)
			f := newFakeEndpoint(t, replyWith(tt.content))
			got, err := f.summarizer(t).Summarize(context.Background(), sampleRequest())
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestSummarizerIsSafeForConcurrentUse(t *testing.T) {
	noLeaks(t)
	// Every other request fails, so concurrent calls retry and share the
	// jitter source.
	f := newFakeEndpoint(t, func(n int, w http.ResponseWriter, _ *http.Request) {
		if n%2 == 1 {
			writeAPIError(w, http.StatusServiceUnavailable, "", "server_error", "busy")
			return
		}
		writeCompletion(w, "ok", "stop")
	})
	s := f.summarizer(t, WithMaxRetries(20))
	const callers = 8
	errs := make(chan error, callers)
	for i := 0; i < callers; i++ {
		go func() {
			_, err := s.Summarize(context.Background(), sampleRequest())
			errs <- err
		}()
	}
	for i := 0; i < callers; i++ {
		assert.NoError(t, <-errs)
	}
}

func TestSummarizerBackoffIsJitteredCappedAndSeeded(t *testing.T) {
	mk := func(seed int64) *Summarizer {
		s, err := New("m", WithRetryBackoff(100*time.Millisecond, time.Second), WithRetrySeed(seed))
		require.NoError(t, err)
		return s
	}
	a, b := mk(7), mk(7)
	for n := 1; n <= 8; n++ {
		full := min(100*time.Millisecond<<(n-1), time.Second)
		wa, wb := a.backoff(n), b.backoff(n)
		assert.Equal(t, wa, wb, "retry %d: the same seed gives the same wait", n)
		assert.GreaterOrEqual(t, wa, full/2, "retry %d", n)
		assert.LessOrEqual(t, wa, full, "retry %d", n)
	}
	zero, err := New("m", WithRetryBackoff(0, 0))
	require.NoError(t, err)
	assert.Zero(t, zero.backoff(3))
}

func TestRetryAfter(t *testing.T) {
	now := time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
	tests := []struct {
		name   string
		header http.Header
		want   time.Duration
	}{
		{"none", http.Header{}, 0},
		{"seconds", http.Header{"Retry-After": {"3"}}, 3 * time.Second},
		{"fractional seconds", http.Header{"Retry-After": {"0.25"}}, 250 * time.Millisecond},
		{"milliseconds win", http.Header{"Retry-After": {"3"}, "Retry-After-Ms": {"40"}}, 40 * time.Millisecond},
		{"an HTTP date", http.Header{"Retry-After": {now.Add(7 * time.Second).Format(http.TimeFormat)}}, 7 * time.Second},
		{"a date in the past", http.Header{"Retry-After": {now.Add(-time.Minute).Format(http.TimeFormat)}}, 0},
		{"negative", http.Header{"Retry-After": {"-4"}}, 0},
		{"garbage", http.Header{"Retry-After": {"soon"}}, 0},
		{"huge is a day", http.Header{"Retry-After": {"1e30"}}, 24 * time.Hour},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, retryAfter(tt.header, now))
		})
	}
}

func TestErrorUnwrapsToItsSentinels(t *testing.T) {
	auth := &Error{Summarizer: "openai:m", StatusCode: 401, Message: "bad key", Attempts: 1, kind: compact.ErrSummarizerAuth}
	assert.True(t, errors.Is(auth, compact.ErrSummarizerAuth))
	assert.True(t, errors.Is(auth, compact.ErrSummarizer), "every summarizer failure is an ErrSummarizer")
	assert.False(t, errors.Is(auth, compact.ErrSummarizerQuota))
	assert.Equal(t, "compact: summarizer rejected the credentials: openai:m: HTTP 401: bad key", auth.Error())

	plain := &Error{Summarizer: "openai:m", StatusCode: 500, Code: "server_error", Message: "boom", Attempts: 3, kind: compact.ErrSummarizer}
	assert.Equal(t, "compact: summarizer failed: openai:m: HTTP 500 (server_error): boom (after 3 attempts)", plain.Error())
	assert.False(t, errors.Is(plain, compact.ErrSummarizerAuth))
}

func TestShortTextScrubsAndShortens(t *testing.T) {
	got := shortText("key "+testAPIKey+" and\n\n   "+strings.Repeat("x", 2*maxErrorText), testAPIKey)
	assert.NotContains(t, got, testAPIKey)
	assert.True(t, strings.HasPrefix(got, "key "+redact.Marker+" and x"), got)
	assert.Equal(t, maxErrorText+1, len([]rune(got)))
	assert.Equal(t, "custom "+redact.Marker, shortText("custom opaque-token-1", "opaque-token-1"), "a key without a known shape is still scrubbed")
}
