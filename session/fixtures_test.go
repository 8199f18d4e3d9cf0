package session

import (
	"context"
	"fmt"
	"reflect"
	"sync"
	"testing"

	"github.com/contextkit/compact"
	"github.com/contextkit/compact/internal/msgtest"
	"go.uber.org/goleak"
)

var (
	sys          = msgtest.Sys
	user         = msgtest.User
	asst         = msgtest.Asst
	call         = msgtest.Call
	result       = msgtest.Result
	partsMsg     = msgtest.Parts
	equalHistory = msgtest.Equal
)

// byteCounter counts a token per four bytes; see msgtest.ByteCounter.
type byteCounter = msgtest.ByteCounter

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
		compact.WithSummarizer(s), compact.WithThresholdBounds(0, 0), compact.WithPruning(false)}
	return compact.New(append(base, opts...)...)
}

// equalMessage reports whether a and b are the same message.
func equalMessage(a, b compact.Message) bool { return reflect.DeepEqual(a, b) }

// noLeaks fails t if goroutines started during the test outlive it. Call it
// first, so that its check runs after every other cleanup.
func noLeaks(t *testing.T) {
	t.Helper()
	ignore := goleak.IgnoreCurrent()
	t.Cleanup(func() { goleak.VerifyNone(t, ignore) })
}
