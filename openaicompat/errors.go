package openaicompat

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/contextkit/compact"
	"github.com/contextkit/compact/internal/msg"
	"github.com/contextkit/compact/redact"
	openai "github.com/sashabaranov/go-openai"
)

// Error is a failed call to a model-backed summarizer, with what
// the endpoint said about it. It unwraps to ErrSummarizer and, when retrying
// cannot fix it, also to ErrSummarizerAuth or ErrSummarizerQuota. Its text
// never holds the API key or the request body.
type Error struct {
	// Summarizer is the failing summarizer's name, "openai:gpt-4o-mini".
	Summarizer string
	// StatusCode is the HTTP status of the last attempt, 0 when no response
	// arrived (a transport failure or a timeout).
	StatusCode int
	// Code is the endpoint's error code, or its error type when it gave no
	// code: "rate_limit_exceeded", "insufficient_quota",
	// "context_length_exceeded". It is "" when the endpoint gave neither.
	Code string
	// Message says what went wrong, shortened and redacted.
	Message string
	// Attempts is how many requests were made.
	Attempts int
	// RetryAfter is the wait the endpoint asked for (Retry-After or
	// retry-after-ms), 0 when it asked for none.
	RetryAfter time.Duration

	kind error // ErrSummarizer, ErrSummarizerAuth or ErrSummarizerQuota
}

// Error reports the failure in one line.
func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(e.kind.Error())
	b.WriteString(": ")
	b.WriteString(e.Summarizer)
	if e.StatusCode != 0 {
		fmt.Fprintf(&b, ": HTTP %d", e.StatusCode)
	}
	if e.Code != "" {
		b.WriteString(" (" + e.Code + ")")
	}
	if e.Message != "" {
		b.WriteString(": " + e.Message)
	}
	if e.Attempts > 1 {
		fmt.Fprintf(&b, " (after %d attempts)", e.Attempts)
	}
	return b.String()
}

// Unwrap returns the sentinels the error matches.
func (e *Error) Unwrap() []error {
	if e.kind == compact.ErrSummarizer {
		return []error{compact.ErrSummarizer}
	}
	return []error{e.kind, compact.ErrSummarizer}
}

// maxRetryAfter is the longest wait an endpoint may ask for and still be
// waited out. Past it the call fails at once and the caller's own backoff
// takes over, rather than stalling a compaction; OpenAI's SDKs draw the line
// at the same 60 seconds.
const maxRetryAfter = 60 * time.Second

// maxErrorText caps the endpoint's message quoted in an error, in runes.
const maxErrorText = 300

// quotaCode is the code (or type) OpenAI gives a 429 that no wait will fix:
// the account is out of credit.
const quotaCode = "insufficient_quota"

// failure is one failed attempt and whether another may succeed.
type failure struct {
	err   *Error
	retry bool
}

// permanent is a failure no retry will fix.
func (s *Summarizer) permanent(msg string) *failure {
	return &failure{err: &Error{Summarizer: s.Name(), Message: msg, kind: compact.ErrSummarizer}}
}

// classify turns an error from CreateChatCompletion into a failure. header
// holds the response headers when a response arrived; timedOut says the
// attempt's own timeout ended it.
//
// go-openai reports a status >= 400 as *openai.APIError when the body is an
// OpenAI error object and as *openai.RequestError otherwise (an HTML page
// from a proxy); either way the response headers are still set on the
// returned response. Anything else is a transport failure, a body that did
// not decode, or a request go-openai refused to send.
func (s *Summarizer) classify(err error, header http.Header, timedOut bool) *failure {
	f := s.permanent("")
	e := f.err
	var reqErr *openai.RequestError
	var apiErr *openai.APIError
	errType := ""
	switch {
	case timedOut:
		e.Message = fmt.Sprintf("the attempt timed out after %v", s.attemptTimeout)
		f.retry = true
		return f
	case errors.As(err, &reqErr):
		e.StatusCode = reqErr.HTTPStatusCode
		if errors.As(reqErr.Err, &apiErr) {
			e.Code, errType, e.Message = apiCode(apiErr), apiErr.Type, apiErr.Message
		}
	case errors.As(err, &apiErr):
		e.StatusCode = apiErr.HTTPStatusCode
		e.Code, errType, e.Message = apiCode(apiErr), apiErr.Type, apiErr.Message
	case transport(err):
		var uerr *url.Error
		if errors.As(err, &uerr) {
			err = uerr.Err // the URL adds nothing and may carry credentials
		}
		e.Message = shortText(err.Error(), s.apiKey)
		if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
			e.Message = "the connection closed before the whole response arrived"
		}
		f.retry = true
		return f
	case malformed(err):
		e.Message = "the response is not a chat completion (is the base URL right?)"
		return f
	default:
		e.Message = shortText(err.Error(), s.apiKey)
		return f
	}

	e.Message = shortText(e.Message, s.apiKey)
	if e.Message == "" {
		e.Message = http.StatusText(e.StatusCode)
	}
	e.RetryAfter = retryAfter(header, time.Now())
	e.kind, f.retry = statusKind(e.StatusCode, e.Code, errType)
	if e.kind == compact.ErrSummarizer {
		// OpenAI says outright when a retry would help; trust it over the status.
		switch header.Get("x-should-retry") {
		case "true":
			f.retry = true
		case "false":
			f.retry = false
		}
	}
	return f
}

// statusKind maps an HTTP status (with the endpoint's error code and type)
// to the sentinel a failure wraps and whether retrying may help. Retried:
// 408 and 409 (OpenAI's SDKs retry both), 429 unless the quota is spent,
// and every 5xx.
func statusKind(status int, code, errType string) (kind error, retry bool) {
	switch {
	case status == http.StatusUnauthorized || status == http.StatusForbidden:
		return compact.ErrSummarizerAuth, false
	case status == http.StatusPaymentRequired:
		return compact.ErrSummarizerQuota, false
	case status == http.StatusTooManyRequests:
		if code == quotaCode || errType == quotaCode {
			return compact.ErrSummarizerQuota, false
		}
		return compact.ErrSummarizer, true
	case status == http.StatusRequestTimeout || status == http.StatusConflict:
		return compact.ErrSummarizer, true
	case status >= 500:
		return compact.ErrSummarizer, true
	}
	return compact.ErrSummarizer, false
}

// apiCode returns an API error's code, or its type when it has no code.
func apiCode(e *openai.APIError) string {
	switch c := e.Code.(type) {
	case string:
		if c != "" {
			return c
		}
	case int:
		if c != 0 { // go-openai reads a null code as 0
			return strconv.Itoa(c)
		}
	}
	return e.Type
}

// malformed reports a body that is not the JSON a chat completion is; an
// empty one reads as io.EOF. Checked after transport, whose errors may wrap
// io.EOF too.
func malformed(err error) bool {
	var syntax *json.SyntaxError
	var typ *json.UnmarshalTypeError
	return errors.As(err, &syntax) || errors.As(err, &typ) || errors.Is(err, io.EOF)
}

// transport reports a failure to reach the endpoint or to read its whole
// answer: worth another attempt. A body cut short reads as
// io.ErrUnexpectedEOF, whether the connection dropped or the server sent
// truncated JSON; the two cannot be told apart, so both are retried.
func transport(err error) bool {
	var uerr *url.Error
	var nerr net.Error
	return errors.As(err, &uerr) || errors.As(err, &nerr) || errors.Is(err, io.ErrUnexpectedEOF)
}

// retryAfter returns the wait the endpoint asked for in header, read from
// retry-after-ms (OpenAI's, in milliseconds) or Retry-After (seconds or an
// HTTP date), or 0. A wait longer than a day reads as a day.
func retryAfter(header http.Header, now time.Time) time.Duration {
	if v := header.Get("retry-after-ms"); v != "" {
		if ms, err := strconv.ParseFloat(v, 64); err == nil && ms > 0 {
			return clampWait(ms / 1000)
		}
	}
	v := header.Get("Retry-After")
	if v == "" {
		return 0
	}
	if secs, err := strconv.ParseFloat(v, 64); err == nil {
		if secs > 0 {
			return clampWait(secs)
		}
		return 0
	}
	if t, err := http.ParseTime(v); err == nil && t.After(now) {
		return clampWait(t.Sub(now).Seconds())
	}
	return 0
}

// clampWait converts seconds to a duration of at most a day, so no header
// can overflow one.
func clampWait(secs float64) time.Duration {
	const day = 24 * time.Hour
	if secs >= day.Seconds() || math.IsNaN(secs) {
		return day
	}
	return time.Duration(secs * float64(time.Second))
}

// shortText makes an endpoint's message fit an error: the key and other
// secrets replaced, whitespace collapsed, at most maxErrorText runes.
func shortText(s, key string) string {
	if key != "" {
		s = strings.ReplaceAll(s, key, redact.Marker)
	}
	s = strings.Join(strings.Fields(redact.String(s)), " ")
	if utf8.RuneCountInString(s) > maxErrorText {
		r := []rune(s)
		s = string(r[:maxErrorText]) + "…"
	}
	return s
}

// cleanSummary returns a model's answer as a summary body: without a leading
// reasoning block (<think>…</think>, which some local servers leave in the
// content), a summary prefix the model echoed, or <summary> tags or a code
// fence wrapping the whole answer.
func cleanSummary(s string) string {
	s = strings.TrimSpace(s)
	for _, tag := range [...]string{"think", "thinking"} {
		if strings.HasPrefix(s, "<"+tag+">") {
			end := strings.Index(s, "</"+tag+">")
			if end < 0 {
				return "" // the answer never got past its reasoning
			}
			s = strings.TrimSpace(s[end+len(tag)+3:])
		}
	}
	s = strings.TrimSpace(msg.StripSummaryPrefix(s))
	if inner, ok := strings.CutPrefix(s, "<summary>"); ok {
		if inner, ok := strings.CutSuffix(inner, "</summary>"); ok && !strings.Contains(inner, "<summary>") {
			s = strings.TrimSpace(inner)
		}
	}
	if strings.HasPrefix(s, "```") && strings.HasSuffix(s, "```") && len(s) >= 6 {
		inner := s[3 : len(s)-3]
		if nl := strings.IndexByte(inner, '\n'); nl >= 0 && !strings.Contains(inner, "```") {
			s = strings.TrimSpace(inner[nl+1:]) // the first line is the fence's language tag
		}
	}
	return strings.TrimSpace(msg.StripSummaryPrefix(s))
}
