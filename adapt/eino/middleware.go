package eino

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"

	"github.com/cloudwego/eino/adk"
	"github.com/cloudwego/eino/schema"
	openai "github.com/sashabaranov/go-openai"

	"github.com/contextkit/compact"
)

// Middleware compacts an eino ChatModelAgent's history through a
// compact.ContextEngine before each model call. It is a drop-in for eino's
// summarization and reduction middlewares:
//
//	agent, err := adk.NewChatModelAgent(ctx, &adk.ChatModelAgentConfig{
//		Model:    chatModel,
//		Handlers: []adk.ChatModelAgentMiddleware{eino.NewMiddleware(engine)},
//	})
//
// Before each model call it hands the agent's messages (and its tool
// definitions, so they are counted) to the engine; when the engine
// compacts, the agent's state takes the compacted history, which every
// later call builds on. It keeps the engine's contracts: the system prompt,
// the tail, the latest user message and a pending tool-call group come back
// as the very messages the agent had. After each model call it feeds the
// usage the model reported (ResponseMeta.Usage) to the engine.
//
// An engine holds one conversation's state: use a Middleware, and so an
// agent, per conversation. A failed compaction never stops the agent: the
// model call goes out with the history as it was, and the error is logged
// (see WithErrorHandler to stop the run instead). Its methods are safe to
// call from several goroutines when the engine's are.
type Middleware struct {
	*adk.BaseChatModelAgentMiddleware
	engine  compact.ContextEngine
	logger  *slog.Logger
	onError func(context.Context, error) error
	opts    []compact.CompressOption
}

// Option configures a Middleware (see NewMiddleware).
type Option func(*config)

// config is every setting an Option can make; nil fields keep the
// defaults NewMiddleware sets.
type config struct {
	logger  *slog.Logger
	onError func(context.Context, error) error
	opts    []compact.CompressOption
}

// WithLogger sets where the Middleware logs its compactions and the errors
// it lets pass. The default (and nil) discards.
func WithLogger(l *slog.Logger) Option {
	return func(c *config) {
		if l != nil {
			c.logger = l
		}
	}
}

// WithErrorHandler sets what happens when a compaction fails: handle gets
// the error, and a non-nil return stops the agent's run with it, while nil
// sends the model call with the history as it was. The default (and nil)
// logs the error and carries on: at Info a normal state (compact.ErrPaused,
// ErrBackoff, ErrNoSavings, ErrNothingToCompress), at Warn a failure. A
// cancelled ctx always stops the run.
func WithErrorHandler(handle func(ctx context.Context, err error) error) Option {
	return func(c *config) {
		if handle != nil {
			c.onError = handle
		}
	}
}

// WithCompressOptions sets options passed to every compaction, such as
// compact.WithFocus. None by default.
func WithCompressOptions(opts ...compact.CompressOption) Option {
	return func(c *config) { c.opts = append(c.opts, opts...) }
}

// NewMiddleware returns a Middleware that compacts through engine.
func NewMiddleware(engine compact.ContextEngine, opts ...Option) *Middleware {
	cfg := config{logger: slog.New(slog.DiscardHandler)}
	for _, o := range opts {
		if o != nil {
			o(&cfg)
		}
	}
	m := &Middleware{BaseChatModelAgentMiddleware: &adk.BaseChatModelAgentMiddleware{}, engine: engine,
		logger: cfg.logger, onError: cfg.onError, opts: cfg.opts}
	if m.onError != nil {
		return m
	}
	m.onError = func(ctx context.Context, err error) error {
		if normalState(err) {
			m.logger.InfoContext(ctx, "compact: not compacting now, sending the history as it is",
				"engine", engine.Name(), "reason", err)
			return nil
		}
		m.logger.WarnContext(ctx, "compact: compaction failed, sending the history as it is",
			"engine", engine.Name(), "err", err)
		return nil
	}
	return m
}

// normalState reports an error that is no failure: automatic compaction
// paused or backing off, or nothing worth folding.
func normalState(err error) bool {
	return errors.Is(err, compact.ErrPaused) || errors.Is(err, compact.ErrBackoff) ||
		errors.Is(err, compact.ErrNoSavings) || errors.Is(err, compact.ErrNothingToCompress)
}

// BeforeModelRewriteState compacts state's messages when the engine wants
// to, and returns the state the model call gets. State is not modified: a
// compaction returns a copy with the new messages.
func (m *Middleware) BeforeModelRewriteState(ctx context.Context, state *adk.ChatModelAgentState,
	_ *adk.ModelContext) (context.Context, *adk.ChatModelAgentState, error) {
	if state == nil {
		return ctx, state, nil
	}
	opts := m.opts
	if len(state.ToolInfos) > 0 {
		opts = append(opts[:len(opts):len(opts)], compact.WithTools(toolsOf(state.ToolInfos)))
	}
	out, res, err := Compress(ctx, m.engine, state.Messages, opts...)
	if err != nil {
		if ctx.Err() != nil {
			return ctx, nil, err
		}
		if err := m.onError(ctx, err); err != nil {
			return ctx, nil, err
		}
		return ctx, state, nil
	}
	if res.Skipped != "" {
		return ctx, state, nil
	}
	m.logger.InfoContext(ctx, "compact: compacted the agent's history", "engine", m.engine.Name(),
		"messages_before", res.MessagesBefore, "messages_after", res.MessagesAfter,
		"tokens_before", res.TokensBefore, "tokens_after", res.TokensAfter)
	next := *state
	next.Messages = out
	return ctx, &next, nil
}

// AfterModelRewriteState feeds the usage of the model's response, the last
// message of state, to the engine, and returns state as it is.
func (m *Middleware) AfterModelRewriteState(ctx context.Context, state *adk.ChatModelAgentState,
	_ *adk.ModelContext) (context.Context, *adk.ChatModelAgentState, error) {
	if state == nil || len(state.Messages) == 0 {
		return ctx, state, nil
	}
	last := state.Messages[len(state.Messages)-1]
	if last != nil && last.Role == schema.Assistant && last.ResponseMeta != nil && last.ResponseMeta.Usage != nil {
		m.engine.UpdateUsage(UsageFrom(last.ResponseMeta.Usage))
	}
	return ctx, state, nil
}

// toolsOf is the agent's tool definitions as the engine counts them: name,
// description and parameter schema.
func toolsOf(infos []*schema.ToolInfo) []openai.Tool {
	out := make([]openai.Tool, 0, len(infos))
	for _, info := range infos {
		if info == nil {
			continue
		}
		def := &openai.FunctionDefinition{Name: info.Name, Description: info.Desc}
		if info.ParamsOneOf != nil {
			if s, err := info.ToJSONSchema(); err == nil && s != nil {
				if data, err := json.Marshal(s); err == nil {
					def.Parameters = json.RawMessage(data)
				}
			}
		}
		out = append(out, openai.Tool{Type: openai.ToolTypeFunction, Function: def})
	}
	return out
}

// Middleware is an eino ChatModelAgentMiddleware.
var _ adk.ChatModelAgentMiddleware = (*Middleware)(nil)
