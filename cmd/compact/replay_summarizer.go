package main

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/contextkit/compact"
	"github.com/contextkit/compact/openaicompat"
	"github.com/contextkit/compact/tokens"
)

// stubSummarizer is -summary-tokens N: a summary of exactly N tokens (as
// the replay counts them) that keeps no facts, different on every call so
// no two summaries are byte-identical. It stands in for a model whose
// output length is known, offline and deterministic.
type stubSummarizer struct {
	tokens int
	tc     tokens.Counter

	mu    sync.Mutex
	calls int
}

// stubFiller is the word the stub repeats: one token in the OpenAI
// encodings, and no fact the probe looks for.
const stubFiller = " summary"

func (s *stubSummarizer) Name() string { return "stub" }

// Summarize returns the shortest text of at least s.tokens tokens made of
// a numbered first line and the filler word.
func (s *stubSummarizer) Summarize(ctx context.Context, _ compact.SummaryRequest) (string, error) {
	if err := ctx.Err(); err != nil {
		return "", err
	}
	s.mu.Lock()
	s.calls++
	head := fmt.Sprintf("Stub summary %d of the earlier conversation.", s.calls)
	s.mu.Unlock()
	text := func(n int) string { return head + strings.Repeat(stubFiller, n) }
	// The count grows with n; find the least n that reaches s.tokens.
	n := sort.Search(s.tokens+1, func(n int) bool { return s.tc.CountText(text(n)) >= s.tokens })
	return text(n), nil
}

// meteredSummarizer counts what a model-backed summarizer is billed: each
// call's prompt (the instructions and material compact.SummaryPrompt
// builds, sent as a system and a user message) and its reply. A call that
// sends the agent's own history (SummaryRequest.History) is kept apart,
// as the messages it sends, for the replay to bill through its cache.
type meteredSummarizer struct {
	inner  compact.Summarizer
	tc     tokens.Counter
	shares bool // the stub shares the agent's history (not -rendered)

	mu           sync.Mutex
	calls        int
	input, reply int          // rendered prompts, and every reply
	shared       []sharedCall // calls that sent the agent's history, not yet billed
}

// sharedCall is the request of a summarizer call that sent the agent's
// history: its messages' keys and token counts.
type sharedCall struct {
	keys   []msgKey
	tokens []int
}

func (m *meteredSummarizer) Name() string {
	if n, ok := m.inner.(compact.Namer); ok {
		return n.Name()
	}
	return "custom"
}

// SharesPrefix is the inner summarizer's answer, or for the stub whether
// the setting lets it share.
func (m *meteredSummarizer) SharesPrefix(model string) bool {
	if s, ok := m.inner.(compact.PrefixSharer); ok {
		return s.SharesPrefix(model)
	}
	return m.shares
}

func (m *meteredSummarizer) Summarize(ctx context.Context, req compact.SummaryRequest) (string, error) {
	var call sharedCall
	in := 0
	if req.History != nil && m.SharesPrefix(req.Model) {
		sent := append(append([]compact.Message(nil), req.History...),
			compact.Message{Role: compact.RoleUser, Content: openaicompat.SharedInstruction(req)})
		for _, msg := range sent {
			call.keys = append(call.keys, keyOf(msg))
			call.tokens = append(call.tokens, m.tc.CountMessage(msg))
		}
	} else {
		instructions, material := compact.SummaryPrompt(req)
		in = tokens.CountMessages(m.tc, []compact.Message{
			{Role: compact.RoleSystem, Content: instructions}, {Role: compact.RoleUser, Content: material}})
	}
	out, err := m.inner.Summarize(ctx, req)
	m.mu.Lock()
	defer m.mu.Unlock()
	m.calls++
	m.input += in
	if call.keys != nil {
		m.shared = append(m.shared, call)
	}
	if err == nil {
		m.reply += m.tc.CountText(out)
	}
	return out, err
}

// takeShared returns the shared calls not yet billed, and forgets them.
func (m *meteredSummarizer) takeShared() []sharedCall {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := m.shared
	m.shared = nil
	return out
}

// totals returns the calls so far and the tokens they were billed:
// rendered prompts, and every reply.
func (m *meteredSummarizer) totals() (calls, input, reply int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.calls, m.input, m.reply
}
