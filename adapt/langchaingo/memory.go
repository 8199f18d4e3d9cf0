package langchaingo

import (
	"context"
	"fmt"
	"sync"

	openai "github.com/sashabaranov/go-openai"
	"github.com/tmc/langchaingo/llms"
	"github.com/tmc/langchaingo/memory"
	"github.com/tmc/langchaingo/schema"

	"github.com/contextkit/compact"
	"github.com/contextkit/compact/session"
)

// Memory is a langchaingo schema.Memory backed by a session.Session: a
// chain that swaps its memory for one gets compaction (the session's
// engine compacts the history before the chain reads it, once it nears
// the window), durability (a session with a store logs every turn there
// and survives a restart), and recall (a session made WithRecall offers
// tools that read back what a summary folded; see RecallTools).
//
// It reads and writes like langchaingo's ConversationBuffer: SaveContext
// appends the chain's input as a user message and its output as an
// assistant message, and LoadMemoryVariables returns the history under the
// memory key, as one string or, WithReturnMessages, as llms.ChatMessage
// values. It is safe for concurrent use, as the Session is.
type Memory struct {
	s   *session.Session
	cfg memoryConfig

	mu     sync.Mutex
	synced bool // the live history was read from the session's store
}

var _ schema.Memory = (*Memory)(nil)

// Option configures a Memory.
type Option func(*memoryConfig)

type memoryConfig struct {
	memoryKey, inputKey, outputKey string
	humanPrefix, aiPrefix          string
	returnMessages                 bool
}

// The defaults are langchaingo's own, so a chain's prompt reads the same.
const (
	defaultMemoryKey   = "history"
	defaultHumanPrefix = "Human"
	defaultAIPrefix    = "AI"
)

// WithMemoryKey sets the key the history is loaded under; the default is
// "history". An empty key keeps the default.
func WithMemoryKey(key string) Option {
	return func(c *memoryConfig) {
		if key != "" {
			c.memoryKey = key
		}
	}
}

// WithInputKey names the chain input saved as the user's message; the
// default, "", takes the input when there is only one.
func WithInputKey(key string) Option { return func(c *memoryConfig) { c.inputKey = key } }

// WithOutputKey names the chain output saved as the assistant's message;
// the default, "", takes the output when there is only one.
func WithOutputKey(key string) Option { return func(c *memoryConfig) { c.outputKey = key } }

// WithReturnMessages makes LoadMemoryVariables return []llms.ChatMessage
// (for a chat prompt's messages placeholder) instead of one string.
func WithReturnMessages(on bool) Option { return func(c *memoryConfig) { c.returnMessages = on } }

// WithPrefixes sets the speaker names of the history as one string; the
// defaults are "Human" and "AI". An empty prefix keeps its default.
func WithPrefixes(human, ai string) Option {
	return func(c *memoryConfig) {
		if human != "" {
			c.humanPrefix = human
		}
		if ai != "" {
			c.aiPrefix = ai
		}
	}
}

// NewMemory returns a Memory over s.
func NewMemory(s *session.Session, opts ...Option) *Memory {
	cfg := memoryConfig{memoryKey: defaultMemoryKey, humanPrefix: defaultHumanPrefix, aiPrefix: defaultAIPrefix}
	for _, o := range opts {
		o(&cfg)
	}
	return &Memory{s: s, cfg: cfg}
}

// Session returns the session behind m.
func (m *Memory) Session() *session.Session { return m.s }

// GetMemoryKey returns the key the history is loaded under.
func (m *Memory) GetMemoryKey(context.Context) string { return m.cfg.memoryKey }

// MemoryVariables returns the one key LoadMemoryVariables fills.
func (m *Memory) MemoryVariables(context.Context) []string { return []string{m.cfg.memoryKey} }

// LoadMemoryVariables compacts the session when its engine wants it
// compacted, then returns its history under the memory key. The first load
// reads the history from the session's store, so a chain restarted on a
// session id the store knows carries on where it left off. A compaction
// that fails leaves the history as it was (the session logs why) and the
// chain carries on with it; only a ctx that ended, or a store that cannot
// be read, stops the load.
func (m *Memory) LoadMemoryVariables(ctx context.Context, _ map[string]any) (map[string]any, error) {
	if err := m.sync(ctx); err != nil {
		return nil, err
	}
	if m.s.ShouldCompress() {
		if _, err := m.s.Compress(ctx); err != nil && ctx.Err() != nil {
			return nil, ctx.Err()
		}
	}
	msgs := ChatMessages(m.s.Messages())
	if m.cfg.returnMessages {
		return map[string]any{m.cfg.memoryKey: msgs}, nil
	}
	text, err := llms.GetBufferString(msgs, m.cfg.humanPrefix, m.cfg.aiPrefix)
	if err != nil {
		return nil, err
	}
	return map[string]any{m.cfg.memoryKey: text}, nil
}

// sync reads the live history from the session's store once.
func (m *Memory) sync(ctx context.Context) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.synced {
		return nil
	}
	if err := m.s.Sync(ctx); err != nil {
		return fmt.Errorf("langchaingo: memory: %w", err)
	}
	m.synced = true
	return nil
}

// SaveContext appends the chain's input as a user message and its output
// as an assistant message, in one Append (so they are logged together).
// The values are found as langchaingo's buffers find them: by the input
// and output keys, or as the only value.
func (m *Memory) SaveContext(ctx context.Context, inputs, outputs map[string]any) error {
	in, err := memory.GetInputValue(inputs, m.cfg.inputKey)
	if err != nil {
		return fmt.Errorf("langchaingo: memory input: %w", err)
	}
	out, err := memory.GetInputValue(outputs, m.cfg.outputKey)
	if err != nil {
		return fmt.Errorf("langchaingo: memory output: %w", err)
	}
	return m.s.Append(ctx, compact.Message{Role: compact.RoleUser, Content: in},
		compact.Message{Role: compact.RoleAssistant, Content: out})
}

// Clear starts the conversation over under the same session id (see
// session.Session.Reset: with a store, the log keeps every message).
func (m *Memory) Clear(ctx context.Context) error {
	if err := m.s.Reset(ctx); err != nil {
		return fmt.Errorf("langchaingo: memory: %w", err)
	}
	return nil
}

// ChatMessages converts compact's messages to langchaingo's chat messages:
// system, human, AI (with its tool calls and reasoning) and tool messages;
// a developer message reads as a system message, a function result as a
// function message. Content parts read as their text, images as
// placeholders.
func ChatMessages(msgs []compact.Message) []llms.ChatMessage {
	out := make([]llms.ChatMessage, 0, len(msgs))
	for _, m := range msgs {
		text := compact.Text(m)
		switch m.Role {
		case compact.RoleSystem, roleDeveloper:
			out = append(out, llms.SystemChatMessage{Content: text})
		case compact.RoleAssistant:
			ai := llms.AIChatMessage{Content: text, ReasoningContent: m.ReasoningContent}
			for _, c := range m.ToolCalls {
				ai.ToolCalls = append(ai.ToolCalls, callPart(c))
			}
			if fc := m.FunctionCall; fc != nil {
				ai.FunctionCall = &llms.FunctionCall{Name: fc.Name, Arguments: fc.Arguments}
			}
			out = append(out, ai)
		case compact.RoleTool:
			out = append(out, llms.ToolChatMessage{ID: m.ToolCallID, Content: text})
		case openai.ChatMessageRoleFunction:
			out = append(out, llms.FunctionChatMessage{Name: m.Name, Content: text})
		default:
			out = append(out, llms.HumanChatMessage{Content: text})
		}
	}
	return out
}
