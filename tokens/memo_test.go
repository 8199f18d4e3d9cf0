package tokens

import (
	"fmt"
	"sync"
	"testing"

	"github.com/contextkit/compact/internal/msgtest"
	"github.com/contextkit/compact/internal/sharedtest"
	openai "github.com/sashabaranov/go-openai"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestMemoDistinguishesEveryCountedField checks that messages that differ in
// any counted field, or only in where the text falls between fields, have
// different memo keys, and that equal messages share one.
func TestMemoDistinguishesEveryCountedField(t *testing.T) {
	c := newCounter(t, EncodingO200KBase)
	text := func(s string) openai.ChatMessagePart {
		return openai.ChatMessagePart{Type: openai.ChatMessagePartTypeText, Text: s}
	}
	img := func(d openai.ImageURLDetail) openai.ChatMessagePart {
		return openai.ChatMessagePart{Type: openai.ChatMessagePartTypeImageURL, ImageURL: &openai.ChatMessageImageURL{Detail: d}}
	}
	call := func(name, args string) []openai.ToolCall {
		return []openai.ToolCall{{Function: openai.FunctionCall{Name: name, Arguments: args}}}
	}
	distinct := []Message{
		{},
		{Role: "user"},
		{Role: "use", Content: "r"},
		{Role: "user", Content: "ab"},
		{Role: "user", Content: "a", Name: "b"},
		{Role: "user", Name: "ab"},
		{Role: "user", Refusal: "ab"},
		{Role: "user", ReasoningContent: "ab"},
		{Role: "user", ToolCallID: "ab"},
		{Role: "user", MultiContent: []openai.ChatMessagePart{text("ab")}},
		{Role: "user", MultiContent: []openai.ChatMessagePart{text("a"), text("b")}},
		{Role: "user", MultiContent: []openai.ChatMessagePart{text("ab"), img("")}},
		{Role: "user", MultiContent: []openai.ChatMessagePart{text("ab"), img(openai.ImageURLDetailLow)}},
		{Role: "user", ToolCalls: call("ab", "")},
		{Role: "user", ToolCalls: call("a", "b")},
		{Role: "user", ToolCalls: call("", "ab")},
		{Role: "user", ToolCalls: append(call("a", ""), call("b", "")...)},
		{Role: "user", FunctionCall: &openai.FunctionCall{Name: "ab"}},
		{Role: "user", FunctionCall: &openai.FunctionCall{}},
	}
	seen := map[uint64]int{}
	for i, m := range distinct {
		k := c.hash(m)
		if j, ok := seen[k]; ok {
			assert.Failf(t, "two messages share a memo key", "messages %d and %d: %+v, %+v", j, i, distinct[j], m)
		}
		seen[k] = i
		assert.Equal(t, k, c.hash(cloneMessage(m)), "a copy of message %d has the same key", i)
	}
}

func TestMemoMatchesUnmemoisedCounts(t *testing.T) {
	type memoCase struct {
		name      string
		msgs      []Message
		opts      []Option
		encodings []string
	}
	synthetic := msgtest.Synthetic(300)
	both := []string{EncodingO200KBase, EncodingCL100KBase}
	tests := []memoCase{
		{"default memo", synthetic, nil, both},
		{"a memo smaller than the history", synthetic, []Option{WithCacheSize(8)}, both},
	}
	if transcripts, err := readTranscriptsIfPresent(); err == nil {
		tests = append(tests, memoCase{"default memo, real transcripts", transcripts, nil, both[:1]})
	} else if sharedtest.Required() {
		sharedtest.Missing(t)
	}
	for _, tt := range tests {
		for _, enc := range tt.encodings {
			plain := newCounter(t, enc, WithCacheSize(0))
			memo := newCounter(t, enc, tt.opts...)
			for i, m := range tt.msgs {
				want := plain.CountMessage(m)
				for pass := 0; pass < 2; pass++ {
					require.Equal(t, want, memo.CountMessage(m), "%s, %s: message %d pass %d", enc, tt.name, i, pass)
				}
			}
		}
	}
}

func memoLen(c *Exact) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.cur) + len(c.old)
}

func TestMemoTokenisesOnlyNewMessages(t *testing.T) {
	c := newCounter(t, EncodingO200KBase)
	history := msgtest.Synthetic(200)
	CountMessages(c, history)
	before := memoLen(c)
	require.Equal(t, 200, before, "one entry per distinct message")
	history = append(history, Message{Role: openai.ChatMessageRoleUser, Content: "one more question"})
	CountMessages(c, history)
	assert.Equal(t, before+1, memoLen(c), "recounting a grown history adds one entry")
}

func TestMemoIsBounded(t *testing.T) {
	for _, size := range []int{1, 2, 7, 64} {
		c := newCounter(t, EncodingO200KBase, WithCacheSize(size))
		for i := 0; i < 500; i++ {
			c.CountMessage(Message{Role: openai.ChatMessageRoleUser, Content: fmt.Sprint("message ", i)})
			require.LessOrEqual(t, memoLen(c), max(size, 2), "WithCacheSize(%d)", size)
		}
	}
	off := newCounter(t, EncodingO200KBase, WithCacheSize(0))
	off.CountMessage(Message{Role: openai.ChatMessageRoleUser, Content: "x"})
	assert.Zero(t, memoLen(off), "zero disables the memo")
	bad := newCounter(t, EncodingO200KBase, WithCacheSize(-1))
	bad.CountMessage(Message{Role: openai.ChatMessageRoleUser, Content: "x"})
	assert.Equal(t, 1, memoLen(bad), "a negative size is invalid: the default memo stays")
}

// TestMemoKeepsARecountedHistory checks the two generations: a history
// smaller than the memo that is recounted again and again stays memoised
// while other messages stream past.
func TestMemoKeepsARecountedHistory(t *testing.T) {
	c := newCounter(t, EncodingO200KBase, WithCacheSize(100))
	history := msgtest.Synthetic(20)
	for round := 0; round < 50; round++ {
		CountMessages(c, history)
		for i := 0; i < 10; i++ {
			c.CountMessage(Message{Role: openai.ChatMessageRoleUser, Content: fmt.Sprint("noise ", round, i)})
		}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for i, m := range history {
		k := c.hash(m)
		_, inCur := c.cur[k]
		_, inOld := c.old[k]
		assert.True(t, inCur || inOld, "history message %d is still memoised", i)
	}
}

func TestCountingIsSafeForConcurrentUse(t *testing.T) {
	msgs := msgtest.Synthetic(200)
	want := make([]int, len(msgs))
	ref := newCounter(t, EncodingO200KBase, WithCacheSize(0))
	for i, m := range msgs {
		want[i] = ref.CountMessage(m)
	}
	c := newCounter(t, EncodingO200KBase, WithCacheSize(32)) // small, so generations turn over
	tally := NewTally(c)
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			for i := range msgs {
				j := (i + g*25) % len(msgs)
				if !assert.Equal(t, want[j], c.CountMessage(msgs[j]), "goroutine %d: message %d", g, j) {
					return
				}
				tally.Add(msgs[j])
			}
		}(g)
	}
	wg.Wait()
	assert.Equal(t, 8*len(msgs), tally.Len())
	sum := 0
	for _, n := range want {
		sum += n
	}
	assert.Equal(t, 8*sum+ReplyPrimingTokens, tally.Total())
}
