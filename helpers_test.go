package compact

import (
	"testing"

	"github.com/contextkit/compact/internal/msgtest"
	"github.com/contextkit/compact/tokens"
	"github.com/stretchr/testify/require"
)

// The builders and transcripts every package's tests share (see msgtest).
var (
	sys      = msgtest.Sys
	user     = msgtest.User
	asst     = msgtest.Asst
	call     = msgtest.Call
	result   = msgtest.Result
	partsMsg = msgtest.Parts
	roles    = msgtest.Roles

	randomHistory     = msgtest.Random
	syntheticHistory  = msgtest.Synthetic
	chainedHistory    = msgtest.Chained
	sharedTranscripts = msgtest.Shared
	allTranscripts    = msgtest.All
	sortedNames       = msgtest.Names
	equalHistory      = msgtest.Equal
)

// byteCounter counts a token per four bytes plus a fixed overhead, so
// sizes in tests are easy to reason about (see msgtest.ByteCounter).
type byteCounter = msgtest.ByteCounter

// recorder is a summarizer that remembers its requests and answers with a
// short deterministic summary, or fails as told (see msgtest.Recorder).
type recorder = msgtest.Recorder[SummaryRequest, describeRequest]

// describeRequest is the summary a recorder writes: what it was given.
type describeRequest struct{}

func (describeRequest) Describe(req SummaryRequest) string {
	return msgtest.Summary(len(req.Turns), len(req.PreviousSummary), req.Focus)
}

// maxFuzzMessages bounds the histories fuzz targets build (see msgtest).
const maxFuzzMessages = msgtest.MaxFuzzMessages

// newCounter returns the exact counter of encoding.
func newCounter(tb testing.TB, encoding string) *tokens.Exact {
	tb.Helper()
	c, err := tokens.ForEncoding(encoding)
	require.NoError(tb, err)
	return c
}
