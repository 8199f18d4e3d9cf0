package eino

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"go/token"
	"log/slog"
	"reflect"
	"strings"
	"testing"

	"github.com/cloudwego/eino/adk"
	"github.com/cloudwego/eino/schema"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/contextkit/compact"
	"github.com/contextkit/compact/compacttest"
)

// middlewareEngine is a ContextEngine whose Compress goes through a
// Middleware: the history is converted to eino messages, compacted by the
// Middleware as an agent would before a model call, and read back. It lets
// compacttest check every contract on what the Middleware hands the model.
type middlewareEngine struct {
	*compact.Compressor
}

func (e middlewareEngine) Compress(ctx context.Context, msgs []compact.Message, opts ...compact.CompressOption) (*compact.Result, error) {
	in, err := FromMessages(msgs)
	if err != nil {
		return nil, err
	}
	rec := &recorder{ContextEngine: e.Compressor}
	mw := NewMiddleware(rec, WithCompressOptions(opts...), WithErrorHandler(func(_ context.Context, err error) error { return err }))
	_, state, err := mw.BeforeModelRewriteState(ctx, &adk.ChatModelAgentState{Messages: in}, &adk.ModelContext{})
	if err != nil {
		return nil, err
	}
	conv, err := Convert(state.Messages)
	if err != nil {
		return nil, err
	}
	res := *rec.last
	res.Messages = conv.Messages
	if res.Skipped != "" {
		res.Messages = msgs
	}
	return &res, nil
}

func TestMiddlewareKeepsEveryContract(t *testing.T) {
	compacttest.Run(t, func() compact.ContextEngine {
		return middlewareEngine{compact.New(compact.WithContextWindow(4000))}
	})
}

// longHistory is an agent run of n tool rounds, each reading a file of about
// 400 tokens.
func longHistory(n int) []*schema.Message {
	msgs := []*schema.Message{schema.SystemMessage("You are a coding agent."), schema.UserMessage("Find the retry budget.")}
	body := strings.Repeat("// retry helpers: wait, back off, give up after the budget.\n", 30)
	for i := range n {
		id := "call_" + string(rune('a'+i%26)) + strings.Repeat("x", i/26)
		msgs = append(msgs,
			schema.AssistantMessage("", []schema.ToolCall{{ID: id, Type: "function",
				Function: schema.FunctionCall{Name: "read_file", Arguments: `{"path":"retry.go"}`}}}),
			schema.ToolMessage(body, id, schema.WithToolName("read_file")))
	}
	return append(msgs, schema.AssistantMessage("Nothing yet.", nil), schema.UserMessage("Then check config/defaults.go."))
}

func TestMiddlewareUnderTheThresholdHandsTheStateBack(t *testing.T) {
	mw := NewMiddleware(compact.New(compact.WithContextWindow(200_000)))
	state := &adk.ChatModelAgentState{Messages: longHistory(3)}
	_, got, err := mw.BeforeModelRewriteState(context.Background(), state, &adk.ModelContext{})
	require.NoError(t, err)
	assert.Same(t, state, got, "no copy, no conversion back")
}

func TestMiddlewareCompactsIntoANewState(t *testing.T) {
	msgs := longHistory(20)
	before := encode(t, msgs)
	mw := NewMiddleware(compact.New(compact.WithContextWindow(4000)))
	state := &adk.ChatModelAgentState{Messages: msgs, ToolInfos: []*schema.ToolInfo{{Name: "read_file", Desc: "Read a file."}}}
	_, got, err := mw.BeforeModelRewriteState(context.Background(), state, &adk.ModelContext{})
	require.NoError(t, err)
	assert.Less(t, len(got.Messages), len(msgs))
	assert.Equal(t, state.ToolInfos, got.ToolInfos, "the rest of the state is kept")
	assert.Same(t, msgs[0], state.Messages[0], "the old state is not modified")
	assert.Equal(t, before, encode(t, msgs))
	assert.Equal(t, encode(t, msgs[len(msgs)-1:]), encode(t, got.Messages[len(got.Messages)-1:]))
}

// failingEngine fails every compaction.
type failingEngine struct{ *compact.Compressor }

var errEngineDown = errors.New("engine down")

func (failingEngine) Compress(context.Context, []compact.Message, ...compact.CompressOption) (*compact.Result, error) {
	return nil, errEngineDown
}

func TestMiddlewareLetsAFailedCompactionPassByDefault(t *testing.T) {
	mw := NewMiddleware(failingEngine{compact.New()})
	state := &adk.ChatModelAgentState{Messages: longHistory(2)}
	_, got, err := mw.BeforeModelRewriteState(context.Background(), state, &adk.ModelContext{})
	require.NoError(t, err, "the model call goes out with the history as it was")
	assert.Same(t, state, got)
}

// pausedEngine says automatic compaction is paused, a normal state.
type pausedEngine struct{ *compact.Compressor }

func (pausedEngine) Compress(context.Context, []compact.Message, ...compact.CompressOption) (*compact.Result, error) {
	return nil, fmt.Errorf("%w: 2 compactions in a row left the request over the threshold", compact.ErrPaused)
}

// By default a pause is logged as what it is, a normal state, and a failure
// as a failure.
func TestMiddlewareLogsNormalStatesApartFromFailures(t *testing.T) {
	for _, tt := range []struct {
		engine        compact.ContextEngine
		want, notWant string
	}{
		{pausedEngine{compact.New()}, "level=INFO msg=\"compact: not compacting now", "failed"},
		{failingEngine{compact.New()}, "level=WARN msg=\"compact: compaction failed", "not compacting"},
	} {
		var b bytes.Buffer
		mw := NewMiddleware(tt.engine, WithLogger(slog.New(slog.NewTextHandler(&b, nil))))
		_, _, err := mw.BeforeModelRewriteState(context.Background(), &adk.ChatModelAgentState{Messages: longHistory(2)}, nil)
		require.NoError(t, err)
		assert.Contains(t, b.String(), tt.want)
		assert.NotContains(t, b.String(), tt.notWant)
	}
}

func TestMiddlewareErrorHandlerMayStopTheRun(t *testing.T) {
	var seen error
	mw := NewMiddleware(failingEngine{compact.New()}, WithErrorHandler(func(_ context.Context, err error) error {
		seen = err
		return err
	}))
	_, _, err := mw.BeforeModelRewriteState(context.Background(), &adk.ChatModelAgentState{Messages: longHistory(2)}, nil)
	require.ErrorIs(t, err, errEngineDown)
	assert.ErrorIs(t, seen, errEngineDown)
}

func TestMiddlewareStopsOnACancelledContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	mw := NewMiddleware(compact.New(compact.WithContextWindow(4000)), WithCompressOptions(compact.Force()))
	_, _, err := mw.BeforeModelRewriteState(ctx, &adk.ChatModelAgentState{Messages: longHistory(20)}, nil)
	require.ErrorIs(t, err, context.Canceled)
}

func TestMiddlewareFeedsTheModelsUsageToTheEngine(t *testing.T) {
	engine := compact.New(compact.WithContextWindow(200_000))
	mw := NewMiddleware(engine)
	reply := schema.AssistantMessage("done", nil)
	reply.ResponseMeta = &schema.ResponseMeta{Usage: &schema.TokenUsage{PromptTokens: 150_000, CompletionTokens: 20, TotalTokens: 150_020}}
	_, _, err := mw.AfterModelRewriteState(context.Background(),
		&adk.ChatModelAgentState{Messages: []*schema.Message{schema.UserMessage("hi"), reply}}, nil)
	require.NoError(t, err)
	assert.Equal(t, 150_000, engine.Status().LastPromptTokens)
}

func TestMiddlewareCountsTheToolDefinitions(t *testing.T) {
	msgs := longHistory(4)
	engine := compact.New(compact.WithContextWindow(200_000))
	bare := engine.Preflight(mustConvert(t, msgs)).Tokens
	big := strings.Repeat("Describe the tool at length. ", 400)
	rec := &recorder{ContextEngine: engine}
	mw := NewMiddleware(rec)
	_, _, err := mw.BeforeModelRewriteState(context.Background(),
		&adk.ChatModelAgentState{Messages: msgs, ToolInfos: []*schema.ToolInfo{{Name: "read_file", Desc: big}}}, nil)
	require.NoError(t, err)
	assert.Greater(t, rec.last.TokensBefore, bare+1000, "the tool definitions count toward the prompt")
}

func mustConvert(t *testing.T, msgs []*schema.Message) []compact.Message {
	t.Helper()
	conv, err := Convert(msgs)
	require.NoError(t, err)
	return conv.Messages
}

func TestUsageFromReadsEinosUsageBlock(t *testing.T) {
	var u schema.TokenUsage
	require.NoError(t, json.Unmarshal([]byte(`{"prompt_tokens": 1200, "prompt_token_details": {"cached_tokens": 800,
		"cache_write_tokens": 300}, "completion_tokens": 40, "total_tokens": 1240}`), &u))
	assert.Equal(t, compact.Usage{PromptTokens: 1200, CompletionTokens: 40, TotalTokens: 1240, CachedTokens: 800,
		CacheWriteTokens: 300}, UsageFrom(&u))
	assert.Equal(t, compact.Usage{}, UsageFrom(nil), "no usage reported is no usage")
}

// An Option is opaque, as every other package's: it configures a
// settings struct of the package's own, not the exported Middleware, so a
// host can neither write one by hand nor reach the Middleware through it.
// A nil Option is ignored.
func TestOptionIsOpaque(t *testing.T) {
	arg := reflect.TypeOf(Option(nil)).In(0)
	require.Equal(t, reflect.Pointer, arg.Kind())
	assert.False(t, arg.Elem().Name() == "" || token.IsExported(arg.Elem().Name()), "Option configures %v", arg.Elem())
	assert.NotPanics(t, func() { NewMiddleware(compact.New(), nil, WithLogger(nil)) })
}
