package main

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/contextkit/compact"
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
// builds, sent as a system and a user message) and its reply.
type meteredSummarizer struct {
	inner compact.Summarizer
	tc    tokens.Counter

	mu           sync.Mutex
	calls        int
	input, reply int
}

func (m *meteredSummarizer) Name() string {
	if n, ok := m.inner.(interface{ Name() string }); ok {
		return n.Name()
	}
	return "custom"
}

func (m *meteredSummarizer) Summarize(ctx context.Context, req compact.SummaryRequest) (string, error) {
	instructions, material := compact.SummaryPrompt(req)
	in := tokens.CountMessages(m.tc, []compact.Message{
		{Role: compact.RoleSystem, Content: instructions}, {Role: compact.RoleUser, Content: material}})
	out, err := m.inner.Summarize(ctx, req)
	m.mu.Lock()
	defer m.mu.Unlock()
	m.calls++
	m.input += in
	if err == nil {
		m.reply += m.tc.CountText(out)
	}
	return out, err
}

// totals returns the calls so far and the tokens they were billed.
func (m *meteredSummarizer) totals() (calls, input, reply int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.calls, m.input, m.reply
}
