package session

import (
	"reflect"
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
// short deterministic summary, or fails as told (see msgtest.Recorder).
type recorder = msgtest.Recorder[compact.SummaryRequest, describeRequest]

// describeRequest is the summary a recorder writes: what it was given.
type describeRequest struct{}

func (describeRequest) Describe(req compact.SummaryRequest) string {
	return msgtest.Summary(len(req.Turns), len(req.PreviousSummary), req.Focus)
}

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
