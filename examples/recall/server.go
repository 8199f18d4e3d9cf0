package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"

	openai "github.com/sashabaranov/go-openai"

	"github.com/contextkit/compact"
	"github.com/contextkit/compact/session"
)

// modelName is what the local server calls its model.
const modelName = "local-test-model"

// packages are the packages the scripted model tests, in order; the second
// one fails.
var packages = []string{"api", "store", "auth", "billing", "catalog", "checkout", "email", "search", "shipping", "users", "web", "worker"}

// newModelServer starts a scripted OpenAI-compatible model on a local port.
// It checks every request the way a provider would (an orphan tool result
// or an unanswered call is a 400), answers summary requests (those without
// tools) with a summary that keeps no detail of the failure, and plays the
// agent: it tests one package a turn; once it sees a compacted history
// whose summary points at the archive, it searches the archive for the
// panic, expands the message it found, and answers from the original.
func newModelServer() *httptest.Server {
	var mu sync.Mutex
	next := 0
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req openai.ChatCompletionRequest
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		if err := compact.Validate(req.Messages); err != nil {
			w.WriteHeader(http.StatusBadRequest)
			_ = json.NewEncoder(w).Encode(map[string]any{"error": map[string]any{"message": err.Error(), "type": "invalid_request_error"}})
			return
		}
		var reply openai.ChatCompletionMessage
		if len(req.Tools) == 0 {
			reply = openai.ChatCompletionMessage{Role: "assistant", Content: "The user asked for every package's tests " +
				"to be run and for the first failure to be reported exactly. The agent has been running run_tests " +
				"one package at a time; one of the early runs failed."}
		} else {
			mu.Lock()
			reply = agentTurn(req.Messages, &next)
			mu.Unlock()
		}
		prompt := 0
		for _, m := range req.Messages {
			prompt += len(m.Content)/4 + 4
		}
		_ = json.NewEncoder(w).Encode(openai.ChatCompletionResponse{
			ID: "chatcmpl-local", Object: "chat.completion", Model: req.Model,
			Choices: []openai.ChatCompletionChoice{{Message: reply, FinishReason: openai.FinishReasonStop}},
			Usage:   openai.Usage{PromptTokens: prompt, CompletionTokens: 20, TotalTokens: prompt + 20},
		})
	}))
}

// agentTurn is the scripted agent's next move.
func agentTurn(msgs []compact.Message, next *int) openai.ChatCompletionMessage {
	last := msgs[len(msgs)-1]
	if last.Role == compact.RoleTool {
		switch calledTool(msgs, last.ToolCallID) {
		case session.ToolSearch:
			var found struct{ Matches []struct{ Seq int } }
			if json.Unmarshal([]byte(last.Content), &found) == nil && len(found.Matches) > 0 {
				return toolCall("recall_2", session.ToolExpand, fmt.Sprintf(`{"seq":[%d]}`, found.Matches[0].Seq))
			}
		case session.ToolExpand:
			var got struct{ Messages []struct{ Text string } }
			if json.Unmarshal([]byte(last.Content), &got) == nil && len(got.Messages) > 0 {
				return openai.ChatCompletionMessage{Role: "assistant", Content: answerFrom(got.Messages[0].Text)}
			}
		}
	}
	if *next < len(packages) {
		*next++
		return toolCall(fmt.Sprintf("call_%d", *next), "run_tests", fmt.Sprintf(`{"package":%q}`, packages[*next-1]))
	}
	for _, m := range msgs {
		if compact.IsSummary(m) && strings.Contains(compact.Text(m), session.ToolSearch) {
			// The details are gone from the window; the summary says where
			// they are.
			return toolCall("recall_1", session.ToolSearch, `{"query":"panic:","role":"tool"}`)
		}
	}
	return openai.ChatCompletionMessage{Role: "assistant", Content: "I ran every package; see the failure above."}
}

// answerFrom quotes the lines of a test output that say how it failed.
func answerFrom(output string) string {
	var b strings.Builder
	b.WriteString("The first failure, from the original output:")
	for _, line := range strings.Split(output, "\n") {
		if strings.HasPrefix(line, "--- FAIL") || strings.HasPrefix(line, "panic:") || strings.Contains(line, ".go:") {
			b.WriteString("\n" + line)
		}
	}
	return b.String()
}

// calledTool returns the name of the tool the call id invoked.
func calledTool(msgs []compact.Message, id string) string {
	for i := len(msgs) - 1; i >= 0; i-- {
		for _, c := range msgs[i].ToolCalls {
			if c.ID == id {
				return c.Function.Name
			}
		}
	}
	return ""
}

func toolCall(id, name, args string) openai.ChatCompletionMessage {
	return openai.ChatCompletionMessage{Role: "assistant", ToolCalls: []openai.ToolCall{{
		ID: id, Type: openai.ToolTypeFunction, Function: openai.FunctionCall{Name: name, Arguments: args},
	}}}
}

// panicOutput is how the store package's tests fail.
const panicOutput = `=== RUN   TestCacheEvict
--- FAIL: TestCacheEvict (0.00s)
panic: assignment to entry in nil map [recovered]
	panic: assignment to entry in nil map

goroutine 7 [running]:
example.com/shop/store.(*Cache).Put(0xc000010030, {0x5e2a10, 0x3})
	/src/store/cache.go:88 +0x1c4
example.com/shop/store.TestCacheEvict(0xc000007380)
	/src/store/cache_test.go:31 +0x6d
FAIL	example.com/shop/store	0.014s`

// runTests answers a run_tests call: a passing package's verbose output
// (about 450 tokens), or the store package's panic.
func runTests(call openai.ToolCall) string {
	var args struct{ Package string }
	if err := json.Unmarshal([]byte(call.Function.Arguments), &args); err != nil {
		return "error: " + err.Error()
	}
	if args.Package == "store" {
		return panicOutput
	}
	var b strings.Builder
	for i := 0; i < 24; i++ {
		fmt.Fprintf(&b, "=== RUN   Test%sCase%d\n--- PASS: Test%sCase%d (0.00s)\n", args.Package, i, args.Package, i)
	}
	fmt.Fprintf(&b, "PASS\nok  \texample.com/shop/%s\t0.%03ds", args.Package, len(args.Package)*7)
	return b.String()
}
