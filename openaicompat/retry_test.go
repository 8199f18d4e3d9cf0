package openaicompat

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/contextkit/compact"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// endpointHandler answers the nth request (1-based) to a fake endpoint.
type endpointHandler = func(n int, w http.ResponseWriter, r *http.Request)

// errorReply answers every request with status and an OpenAI error object.
func errorReply(status int, code, typ, msg string) endpointHandler {
	return func(_ int, w http.ResponseWriter, _ *http.Request) { writeAPIError(w, status, code, typ, msg) }
}

// failThenSucceed answers the first len(fails) requests with fails, then "ok".
func failThenSucceed(fails ...endpointHandler) endpointHandler {
	return func(n int, w http.ResponseWriter, r *http.Request) {
		if n <= len(fails) {
			fails[n-1](n, w, r)
			return
		}
		writeCompletion(w, "ok", "stop")
	}
}

// hangUp drops the connection without answering: a transport failure.
func hangUp(_ int, w http.ResponseWriter, _ *http.Request) {
	conn, _, err := w.(http.Hijacker).Hijack()
	if err == nil {
		conn.Close()
	}
}

// rawReply answers with status and body as they are.
func rawReply(status int, contentType, body string) endpointHandler {
	return func(_ int, w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", contentType)
		w.WriteHeader(status)
		_, _ = io.WriteString(w, body)
	}
}

// withReplyHeader sets a response header before h answers.
func withReplyHeader(key, value string, h endpointHandler) endpointHandler {
	return func(n int, w http.ResponseWriter, r *http.Request) {
		w.Header().Set(key, value)
		h(n, w, r)
	}
}

func TestSummarizerMapsFailures(t *testing.T) {
	tests := []struct {
		name       string
		handle     endpointHandler
		want       error // the sentinel the error must match besides ErrSummarizer
		status     int
		code       string
		attempts   int // requests made; default retries allow 3
		inMessage  string
		retryAfter time.Duration
	}{
		{name: "401 is an auth failure and is not retried",
			handle: errorReply(401, "invalid_api_key", "invalid_request_error", "Incorrect API key provided: "+testAPIKey+"."),
			want:   compact.ErrSummarizerAuth, status: 401, code: "invalid_api_key", attempts: 1, inMessage: "Incorrect API key provided"},
		{name: "403 is an auth failure", handle: errorReply(403, "", "permission_error", "not allowed"),
			want: compact.ErrSummarizerAuth, status: 403, code: "permission_error", attempts: 1},
		{name: "402 is a quota failure", handle: errorReply(402, "", "billing_error", "add credits"),
			want: compact.ErrSummarizerQuota, status: 402, attempts: 1},
		{name: "429 insufficient_quota is a quota failure, not retried",
			handle: errorReply(429, "insufficient_quota", "insufficient_quota", "You exceeded your current quota"),
			want:   compact.ErrSummarizerQuota, status: 429, code: "insufficient_quota", attempts: 1},
		{name: "429 insufficient_quota as a type only", handle: errorReply(429, "", "insufficient_quota", "quota"),
			want: compact.ErrSummarizerQuota, status: 429, attempts: 1},
		{name: "429 rate limit is retried then given up", handle: errorReply(429, "rate_limit_exceeded", "requests", "slow down"),
			status: 429, code: "rate_limit_exceeded", attempts: 3, inMessage: "slow down (after 3 attempts)"},
		{name: "500 forever is retried then given up", handle: errorReply(500, "", "server_error", "boom"),
			status: 500, attempts: 3},
		{name: "408 is retried", handle: errorReply(408, "", "", "timeout"), status: 408, attempts: 3},
		{name: "400 is not retried", handle: errorReply(400, "context_length_exceeded", "invalid_request_error", "too long"),
			status: 400, code: "context_length_exceeded", attempts: 1},
		{name: "404 is not retried", handle: errorReply(404, "model_not_found", "invalid_request_error", "no such model"),
			status: 404, attempts: 1},
		{name: "a non-JSON error page is retried and its body not quoted",
			handle: func(_ int, w http.ResponseWriter, r *http.Request) {
				w.WriteHeader(http.StatusBadGateway)
				_, _ = io.WriteString(w, "<html>bad gateway for "+secretTurn+"</html>")
			},
			status: 502, attempts: 3, inMessage: "Bad Gateway"},
		{name: "x-should-retry false stops retries", handle: withReplyHeader("x-should-retry", "false", errorReply(500, "", "", "no")),
			status: 500, attempts: 1},
		{name: "x-should-retry true retries a 400", handle: withReplyHeader("x-should-retry", "true", errorReply(400, "", "", "odd")),
			status: 400, attempts: 3},
		{name: "x-should-retry never retries a bad key", handle: withReplyHeader("x-should-retry", "true", errorReply(401, "", "", "bad key")),
			want: compact.ErrSummarizerAuth, status: 401, attempts: 1},
		{name: "a Retry-After past the limit is not waited out",
			handle: withReplyHeader("Retry-After", "120", errorReply(429, "rate_limit_exceeded", "", "later")),
			status: 429, attempts: 1, retryAfter: 2 * time.Minute},
		{name: "malformed JSON is not retried", handle: rawReply(200, "application/json", `{"choices": [}`),
			attempts: 1, inMessage: "not a chat completion"},
		{name: "an HTML page is not a completion", handle: rawReply(200, "text/html", "<html>welcome</html>"),
			attempts: 1, inMessage: "is the base URL right?"},
		{name: "an empty body is not a completion", handle: rawReply(200, "application/json", ""),
			attempts: 1, inMessage: "not a chat completion"},
		{name: "no choices", handle: rawReply(200, "application/json", `{"id":"x","object":"chat.completion","choices":[]}`),
			attempts: 1, inMessage: "the response has no choices"},
		{name: "empty content", handle: replyWith(""), attempts: 1, inMessage: "the summary is empty"},
		{name: "blank content", handle: replyWith(" \n\t "), attempts: 1, inMessage: "the summary is empty"},
		{name: "only a prefix", handle: replyWith(compact.SummaryPrefix), attempts: 1, inMessage: "the summary is empty"},
		{name: "reasoning that never ended", handle: replyWith("<think>hmm, the user"), attempts: 1, inMessage: "the summary is empty"},
		{name: "empty content at the output limit",
			handle:   func(_ int, w http.ResponseWriter, _ *http.Request) { writeCompletion(w, "", "length") },
			attempts: 1, inMessage: "stopped at the output limit"},
		{name: "a refusal", handle: rawReply(200, "application/json",
			`{"choices":[{"index":0,"message":{"role":"assistant","content":"","refusal":"I cannot help"},"finish_reason":"stop"}]}`),
			attempts: 1, inMessage: "the model refused: I cannot help"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			noLeaks(t)
			f := newFakeEndpoint(t, tt.handle)
			var logs bytes.Buffer
			s := f.summarizer(t, WithLogger(slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))))

			got, err := s.Summarize(context.Background(), sampleRequest())
			require.Error(t, err)
			assert.Empty(t, got)
			assert.Len(t, f.requests(), tt.attempts, "requests made")

			var se *Error
			require.ErrorAs(t, err, &se)
			assert.ErrorIs(t, err, compact.ErrSummarizer)
			for _, sentinel := range []error{compact.ErrSummarizerAuth, compact.ErrSummarizerQuota} {
				assert.Equal(t, sentinel == tt.want, errors.Is(err, sentinel), "errors.Is(err, %v)", sentinel)
			}
			assert.Equal(t, tt.status, se.StatusCode)
			if tt.code != "" {
				assert.Equal(t, tt.code, se.Code)
			}
			assert.Equal(t, tt.attempts, se.Attempts)
			assert.Equal(t, tt.retryAfter, se.RetryAfter)
			assert.Equal(t, "openai:test-model", se.Summarizer)
			assert.Contains(t, err.Error(), tt.inMessage)

			for _, text := range []string{err.Error(), logs.String()} {
				assert.NotContains(t, text, testAPIKey, "the key leaked")
				assert.NotContains(t, text, secretTurn, "the request body leaked")
			}
		})
	}
}

func TestSummarizerRecoversFromTransientFailures(t *testing.T) {
	tooMany := errorReply(429, "rate_limit_exceeded", "requests", "slow down")
	boom := errorReply(500, "", "server_error", "boom")
	tests := []struct {
		name     string
		handle   endpointHandler
		attempts int
	}{
		{"429 then success", failThenSucceed(tooMany), 2},
		{"500, 500, then success", failThenSucceed(boom, boom), 3},
		{"503 with a non-JSON body then success", failThenSucceed(rawReply(503, "text/plain", "overloaded")), 2},
		{"a dropped connection then success", failThenSucceed(hangUp), 2},
		{"a truncated body then success", failThenSucceed(func(_ int, w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Length", "500")
			_, _ = io.WriteString(w, `{"choices":[`)
		}), 2},
		{"408 then 409 then success", failThenSucceed(errorReply(408, "", "", "t"), errorReply(409, "", "", "c")), 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			noLeaks(t)
			f := newFakeEndpoint(t, tt.handle)
			got, err := f.summarizer(t).Summarize(context.Background(), sampleRequest())
			require.NoError(t, err)
			assert.Equal(t, "ok", got)
			assert.Len(t, f.requests(), tt.attempts)
		})
	}
}

func TestSummarizerWithoutRetriesMakesOneAttempt(t *testing.T) {
	noLeaks(t)
	f := newFakeEndpoint(t, failThenSucceed(errorReply(500, "", "", "boom")))
	_, err := f.summarizer(t, WithMaxRetries(0)).Summarize(context.Background(), sampleRequest())
	assert.ErrorIs(t, err, compact.ErrSummarizer)
	assert.Len(t, f.requests(), 1)
}

func TestSummarizerHonoursRetryAfter(t *testing.T) {
	noLeaks(t)
	const asked = 60 * time.Millisecond
	f := newFakeEndpoint(t, failThenSucceed(
		withReplyHeader("retry-after-ms", strconv.Itoa(int(asked/time.Millisecond)), errorReply(429, "rate_limit_exceeded", "", "wait"))))
	got, err := f.summarizer(t).Summarize(context.Background(), sampleRequest())
	require.NoError(t, err)
	assert.Equal(t, "ok", got)
	seen := f.requests()
	require.Len(t, seen, 2)
	// A lower bound only: the retry may come later, never sooner.
	assert.GreaterOrEqual(t, seen[1].at.Sub(seen[0].at), asked)
}

func TestSummarizerDoesNotWaitPastTheDeadline(t *testing.T) {
	noLeaks(t)
	f := newFakeEndpoint(t, withReplyHeader("Retry-After", "30", errorReply(429, "rate_limit_exceeded", "", "wait")))
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, err := f.summarizer(t).Summarize(ctx, sampleRequest())
	var se *Error
	require.ErrorAs(t, err, &se, "the endpoint's error, not the deadline's")
	assert.Equal(t, 429, se.StatusCode)
	assert.Equal(t, 30*time.Second, se.RetryAfter)
	assert.NoError(t, ctx.Err(), "it gave up at once instead of sleeping into the deadline")
	assert.Len(t, f.requests(), 1)
}

// blockUntilGone answers nothing until the client goes away, reporting on
// started when each request arrives.
func blockUntilGone(started chan<- int) endpointHandler {
	return func(n int, _ http.ResponseWriter, r *http.Request) {
		if started != nil {
			started <- n
		}
		<-r.Context().Done()
	}
}

func TestSummarizerRetriesAnAttemptThatTimesOut(t *testing.T) {
	noLeaks(t)
	f := newFakeEndpoint(t, func(n int, w http.ResponseWriter, r *http.Request) {
		if n == 1 {
			blockUntilGone(nil)(n, w, r)
			return
		}
		writeCompletion(w, "ok", "stop")
	})
	got, err := f.summarizer(t, WithAttemptTimeout(50*time.Millisecond)).Summarize(context.Background(), sampleRequest())
	require.NoError(t, err)
	assert.Equal(t, "ok", got)
	assert.Len(t, f.requests(), 2)
}

// neverAnswersTimeout bounds each attempt on an endpoint that never
// answers. It is long enough that a loaded machine still sends each request
// before the attempt ends, and short enough that two attempts take under a
// second.
const neverAnswersTimeout = 300 * time.Millisecond

func TestSummarizerGivesUpOnAnEndpointThatNeverAnswers(t *testing.T) {
	noLeaks(t)
	f := newFakeEndpoint(t, blockUntilGone(nil))
	s := f.summarizer(t, WithAttemptTimeout(neverAnswersTimeout), WithMaxRetries(1))
	_, err := s.Summarize(context.Background(), sampleRequest())
	var se *Error
	require.ErrorAs(t, err, &se)
	assert.Zero(t, se.StatusCode)
	assert.Equal(t, 2, se.Attempts, "one attempt and one retry")
	assert.Contains(t, err.Error(), "the attempt timed out after "+neverAnswersTimeout.String())
	assert.False(t, errors.Is(err, context.DeadlineExceeded), "the caller's ctx did not expire; only an attempt did")
	// An attempt may time out before its request reaches the endpoint, so
	// the endpoint sees at most the two; compare counts, not the requests'
	// bytes, so that a failure prints one short line.
	assert.LessOrEqual(t, len(f.requests()), 2, "requests the endpoint saw")
}

// summarizeAsync runs s.Summarize in a goroutine and returns its error on a
// channel.
func summarizeAsync(ctx context.Context, s compact.Summarizer) <-chan error {
	done := make(chan error, 1)
	go func() {
		_, err := s.Summarize(ctx, sampleRequest())
		done <- err
	}()
	return done
}

// awaitResult returns the error from done, failing t if it takes unreasonably
// long: a failsafe against a hang, not a timing assertion.
func awaitResult(t *testing.T, done <-chan error) error {
	t.Helper()
	select {
	case err := <-done:
		return err
	case <-time.After(10 * time.Second):
		t.Fatal("Summarize did not return after its context was cancelled")
		return nil
	}
}

func TestSummarizerReturnsWhenCancelledMidRequest(t *testing.T) {
	noLeaks(t)
	started := make(chan int, 1)
	f := newFakeEndpoint(t, blockUntilGone(started))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := summarizeAsync(ctx, f.summarizer(t, WithAttemptTimeout(0)))
	<-started
	cancel()
	err := awaitResult(t, done)
	assert.ErrorIs(t, err, context.Canceled)
	assert.ErrorIs(t, err, compact.ErrSummarizer)
	assert.Len(t, f.requests(), 1, "no retry after the caller cancelled")
}

// retryHook is a slog handler that reports when the summarizer starts
// waiting to retry.
type retryHook struct{ waiting chan<- struct{} }

func (h retryHook) Enabled(context.Context, slog.Level) bool { return true }
func (h retryHook) WithAttrs([]slog.Attr) slog.Handler       { return h }
func (h retryHook) WithGroup(string) slog.Handler            { return h }
func (h retryHook) Handle(_ context.Context, r slog.Record) error {
	if r.Message == "retrying summarizer" {
		h.waiting <- struct{}{}
	}
	return nil
}

func TestSummarizerReturnsWhenCancelledDuringBackoff(t *testing.T) {
	noLeaks(t)
	f := newFakeEndpoint(t, errorReply(500, "", "", "boom"))
	waiting := make(chan struct{}, 1)
	s := f.summarizer(t, WithRetryBackoff(time.Hour, time.Hour), WithLogger(slog.New(retryHook{waiting})))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := summarizeAsync(ctx, s)
	<-waiting
	cancel()
	err := awaitResult(t, done)
	assert.ErrorIs(t, err, context.Canceled)
	assert.Len(t, f.requests(), 1)
}

func TestSummarizerSendsNothingWithADoneContext(t *testing.T) {
	noLeaks(t)
	f := newFakeEndpoint(t, replyWith("ok"))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := f.summarizer(t).Summarize(ctx, sampleRequest())
	assert.ErrorIs(t, err, context.Canceled)
	assert.ErrorIs(t, err, compact.ErrSummarizer)
	assert.Empty(t, f.requests())
}

func TestSummarizerReportsAnUnreachableEndpoint(t *testing.T) {
	noLeaks(t)
	f := newFakeEndpoint(t, replyWith("ok"))
	url := f.srv.URL
	f.srv.Close() // nothing listens there any more
	s, err := New("m", WithBaseURL(url+"/v1"), WithAPIKey(testAPIKey),
		WithHTTPClient(&http.Client{Transport: &http.Transport{}}), WithRetryBackoff(time.Millisecond, time.Millisecond))
	require.NoError(t, err)
	_, err = s.Summarize(context.Background(), sampleRequest())
	var se *Error
	require.ErrorAs(t, err, &se)
	assert.Equal(t, 3, se.Attempts, "a transport failure is retried")
	assert.Zero(t, se.StatusCode)
	assert.NotContains(t, err.Error(), testAPIKey)
	assert.NotContains(t, err.Error(), "/chat/completions", "the request URL is left out")
}

func TestSummarizerLogsNoSecrets(t *testing.T) {
	noLeaks(t)
	var mu sync.Mutex
	var logs bytes.Buffer
	f := newFakeEndpoint(t, failThenSucceed(errorReply(500, "", "", "boom "+testAPIKey)))
	s := f.summarizer(t, WithLogger(slog.New(slog.NewJSONHandler(lockedWriter{&mu, &logs}, &slog.HandlerOptions{Level: slog.LevelDebug}))))
	_, err := s.Summarize(context.Background(), sampleRequest())
	require.NoError(t, err)
	mu.Lock()
	defer mu.Unlock()
	assert.Contains(t, logs.String(), "retrying summarizer")
	assert.Contains(t, logs.String(), "summary received")
	assert.False(t, strings.Contains(logs.String(), testAPIKey) || strings.Contains(logs.String(), secretTurn))
}

// lockedWriter serialises writes to w.
type lockedWriter struct {
	mu *sync.Mutex
	w  io.Writer
}

func (l lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}
