package compacttest_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/contextkit/compact"
	"github.com/contextkit/compact/compacttest"
	"github.com/contextkit/compact/tokens"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// short is a deterministic summarizer that keeps the previous summary.
var short = compact.SummarizerFunc(func(ctx context.Context, req compact.SummaryRequest) (string, error) {
	if err := ctx.Err(); err != nil {
		return "", err
	}
	return fmt.Sprintf("%d turns folded. %s", len(req.Turns), req.PreviousSummary), nil
})

// newCompressor is the Compressor with a deterministic summarizer and the
// byte estimate for counting (the exact counter is checked below; tiktoken
// is slow under the race detector and these tests compact many times).
func newCompressor() compact.ContextEngine {
	return compact.New(compact.WithContextWindow(4000), compact.WithSummarizer(short),
		compact.WithTokenCounter(tokens.Estimator{}))
}

func TestCompressorKeepsEveryContract(t *testing.T) {
	compacttest.Run(t, newCompressor)
}

func TestDefaultCompressorKeepsEveryContract(t *testing.T) {
	compacttest.Run(t, func() compact.ContextEngine { return compact.New(compact.WithContextWindow(4000)) })
}

// tamper wraps the Compressor and spoils its results in one way.
type tamper struct {
	compact.ContextEngine
	spoil func(in []compact.Message, res *compact.Result)
}

func (e tamper) Compress(ctx context.Context, msgs []compact.Message, opts ...compact.CompressOption) (*compact.Result, error) {
	res, err := e.ContextEngine.Compress(ctx, msgs, opts...)
	if err == nil {
		e.spoil(msgs, res)
	}
	return res, err
}

// Every contract catches an engine that breaks it.
func TestCheckEngineCatchesBrokenEngines(t *testing.T) {
	tests := []struct {
		contract string
		spoil    func(in []compact.Message, res *compact.Result)
	}{
		{"output-validates", func(_ []compact.Message, r *compact.Result) {
			r.Messages = append(r.Messages[:len(r.Messages):len(r.Messages)], compact.Message{Role: compact.RoleTool, ToolCallID: "ghost", Content: "x"})
		}},
		{"system-prompt-kept", func(_ []compact.Message, r *compact.Result) {
			if r.Messages[0].Role == compact.RoleSystem {
				r.Messages[0].Content = "You are someone else."
			}
		}},
		{"tail-verbatim", func(_ []compact.Message, r *compact.Result) {
			r.Messages[len(r.Messages)-1].Content += " (edited)"
		}},
		{"user-first", func(_ []compact.Message, r *compact.Result) {
			// The shape of earlier versions: the summary an assistant turn
			// before the user turn it precedes.
			if i := r.SummaryIndex; i >= 0 && compact.IsRealUser(r.Messages[i]) {
				r.Messages = append(r.Messages[:i:i], append([]compact.Message{{Role: compact.RoleAssistant, Content: "earlier turns, summarised"}}, r.Messages[i:]...)...)
			}
		}},
		{"nothing-disappears", func(_ []compact.Message, r *compact.Result) {
			r.SummarizedTo = r.SummarizedFrom // claims a shorter range than it folded
		}},
		{"one-summary", func(_ []compact.Message, r *compact.Result) {
			extra := compact.Message{Role: compact.RoleUser, Content: compact.PrefixSummary("a stale summary")}
			ack := compact.Message{Role: compact.RoleAssistant, Content: "noted"}
			r.Messages = append([]compact.Message{r.Messages[0], extra, ack}, r.Messages[1:]...)
		}},
		{"input-unchanged", func(in []compact.Message, _ *compact.Result) {
			in[len(in)-1].Content += "!"
		}},
	}
	for _, tt := range tests {
		t.Run(tt.contract, func(t *testing.T) {
			err := compacttest.CheckEngine(func() compact.ContextEngine {
				return tamper{newCompressor(), tt.spoil}
			})
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.contract+"/")
		})
	}
	assert.NoError(t, compacttest.CheckEngine(newCompressor))
}

func TestSummarizersKeepTheContract(t *testing.T) {
	t.Run("a deterministic func", func(t *testing.T) { compacttest.RunSummarizer(t, short) })
}

func TestCheckSummarizerCatchesBrokenSummarizers(t *testing.T) {
	tests := []struct {
		rule string
		s    compact.SummarizerFunc
	}{
		{"summarizes", func(context.Context, compact.SummaryRequest) (string, error) { return "  ", nil }},
		{"body-only", func(ctx context.Context, req compact.SummaryRequest) (string, error) {
			return compact.PrefixSummary("notes " + req.PreviousSummary), ctx.Err()
		}},
		{"input-unchanged", func(ctx context.Context, req compact.SummaryRequest) (string, error) {
			req.Turns[0].Content = strings.ToUpper(req.Turns[0].Content)
			return "notes " + req.PreviousSummary, ctx.Err()
		}},
		{"previous-summary-carried", func(ctx context.Context, req compact.SummaryRequest) (string, error) {
			return "only new notes", ctx.Err()
		}},
		{"honours-cancellation", func(ctx context.Context, req compact.SummaryRequest) (string, error) {
			return "notes " + req.PreviousSummary, nil
		}},
		{"concurrent-use", racy()},
	}
	for _, tt := range tests {
		t.Run(tt.rule, func(t *testing.T) {
			err := compacttest.CheckSummarizer(tt.s)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.rule+":")
		})
	}
}

// racy fails when two calls overlap. A call holds its slot for a while so
// that concurrent callers do meet.
func racy() compact.SummarizerFunc {
	busy := make(chan struct{}, 1)
	return func(ctx context.Context, req compact.SummaryRequest) (string, error) {
		select {
		case busy <- struct{}{}:
		default:
			return "", errors.New("called concurrently")
		}
		defer func() { <-busy }()
		time.Sleep(50 * time.Millisecond)
		return "notes " + req.PreviousSummary, ctx.Err()
	}
}

func ExampleCheckEngine() {
	err := compacttest.CheckEngine(func() compact.ContextEngine {
		return compact.New(compact.WithContextWindow(4000))
	})
	fmt.Println("contracts broken:", err)
	// Output: contracts broken: <nil>
}

func ExampleCheckSummarizer() {
	echo := compact.SummarizerFunc(func(ctx context.Context, req compact.SummaryRequest) (string, error) {
		return "Folded " + fmt.Sprint(len(req.Turns)) + " turns. " + req.PreviousSummary, ctx.Err()
	})
	fmt.Println("rules broken:", compacttest.CheckSummarizer(echo))
	// Output: rules broken: <nil>
}

func ExampleHistories() {
	for _, h := range compacttest.Histories() {
		fmt.Println(h.Name, len(h.Messages) > 20)
	}
	// Output:
	// coding-session true
	// single-task-agent true
	// plain-chat true
	// reused-call-ids true
	// pending-calls-at-end true
	// images-and-parts true
}
