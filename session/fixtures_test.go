package session

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/contextkit/compact"
	openai "github.com/sashabaranov/go-openai"
	"go.uber.org/goleak"
)

// Message constructors that keep table tests short.

func sys(text string) compact.Message {
	return compact.Message{Role: compact.RoleSystem, Content: text}
}
func user(text string) compact.Message {
	return compact.Message{Role: compact.RoleUser, Content: text}
}
func asst(text string) compact.Message {
	return compact.Message{Role: compact.RoleAssistant, Content: text}
}

// call is an assistant turn making tool calls, each given as id and name
// pairs: call("", "c1", "bash", "c2", "read").
func call(text string, idName ...string) compact.Message {
	m := compact.Message{Role: compact.RoleAssistant, Content: text}
	for i := 0; i+1 < len(idName); i += 2 {
		m.ToolCalls = append(m.ToolCalls, openai.ToolCall{
			ID: idName[i], Type: openai.ToolTypeFunction,
			Function: openai.FunctionCall{Name: idName[i+1], Arguments: `{"arg":"` + idName[i] + `"}`},
		})
	}
	return m
}

func result(id, text string) compact.Message {
	return compact.Message{Role: compact.RoleTool, ToolCallID: id, Content: text}
}

// partsMsg is a message of text parts, and image parts for texts that start
// with "img:".
func partsMsg(role string, texts ...string) compact.Message {
	m := compact.Message{Role: role}
	for _, t := range texts {
		if strings.HasPrefix(t, "img:") {
			m.MultiContent = append(m.MultiContent, openai.ChatMessagePart{
				Type: openai.ChatMessagePartTypeImageURL, ImageURL: &openai.ChatMessageImageURL{URL: t[4:]}})
			continue
		}
		m.MultiContent = append(m.MultiContent, openai.ChatMessagePart{Type: openai.ChatMessagePartTypeText, Text: t})
	}
	return m
}

// byteCounter counts a token per four bytes plus a fixed overhead, so sizes
// in tests are easy to reason about.
type byteCounter struct{}

func (byteCounter) CountText(s string) int { return (len(s) + 3) / 4 }
func (b byteCounter) CountMessage(m compact.Message) int {
	return 4 + b.CountText(compact.Text(m)) + b.CountText(compact.ToolCallText(m)) + b.CountText(m.ToolCallID)
}

// recorder is a summarizer that remembers its requests and answers with a
// short deterministic summary, or fails as told.
type recorder struct {
	mu   sync.Mutex
	reqs []compact.SummaryRequest
	err  error
	out  string
}

func (r *recorder) Summarize(ctx context.Context, req compact.SummaryRequest) (string, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.reqs = append(r.reqs, req)
	if err := ctx.Err(); err != nil {
		return "", err
	}
	if r.err != nil {
		return "", r.err
	}
	if r.out != "" {
		return r.out, nil
	}
	return fmt.Sprintf("Summary of %d turns (previous: %d bytes, focus %q).", len(req.Turns), len(req.PreviousSummary), req.Focus), nil
}

func (r *recorder) Name() string { return "recorder" }

// newTestCompressor is a Compressor with a 4,000-token window counted by
// byteCounter, pruning off so the summarizer is seen at work.
func newTestCompressor(s compact.Summarizer, opts ...compact.Option) *compact.Compressor {
	base := []compact.Option{compact.WithContextWindow(4000), compact.WithTokenCounter(byteCounter{}),
		compact.WithSummarizer(s), compact.WithThresholdBounds(0, 0), compact.WithoutPruning()}
	return compact.New(append(base, opts...)...)
}

// equalMessage reports whether a and b are the same message.
func equalMessage(a, b compact.Message) bool { return reflect.DeepEqual(a, b) }

// equalHistory reports whether two histories hold the same messages.
func equalHistory(a, b []compact.Message) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !equalMessage(a[i], b[i]) {
			return false
		}
	}
	return true
}

// noLeaks fails t if goroutines started during the test outlive it. Call it
// first, so that its check runs after every other cleanup.
func noLeaks(t *testing.T) {
	t.Helper()
	ignore := goleak.IgnoreCurrent()
	t.Cleanup(func() { goleak.VerifyNone(t, ignore) })
}
