package compact

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The library's own text counts one thing in the singular: the threshold
// a bound moved, a backoff, a boundary out of range and a rendering's gap
// marker.
func TestTheLibrarysTextSaysOneInTheSingular(t *testing.T) {
	adjusted := strings.Join(New(WithContextWindow(16_000), WithThresholdBounds(0, 1)).Status().Adjusted, "\n")
	assert.Contains(t, adjusted, "threshold: 1 token, not ")

	until := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	assert.Contains(t, (&BackoffError{Failures: 1, Until: until}).Error(), "after 1 summarizer failure until")
	assert.Contains(t, (&BackoffError{Failures: 2, Until: until}).Error(), "after 2 summarizer failures until")

	one := []Message{user("hello")}
	_, err := CompressFrom(context.Background(), New(), one, 3)
	require.ErrorIs(t, err, ErrInvalidBoundary)
	assert.Contains(t, err.Error(), "the history has 1 message")
	assert.NotContains(t, err.Error(), "1 messages")
	_, _, err = SplitAt(one, 3)
	require.ErrorIs(t, err, ErrInvalidBoundary)
	assert.Contains(t, err.Error(), "the history has 1 message")
	assert.NotContains(t, err.Error(), "1 messages")
	_, _, err = SplitAt(append(one, asst("hi")), 3)
	assert.Contains(t, err.Error(), "the history has 2 messages")

	assert.Equal(t, "[... 1 message (40 characters) cut to fit ...]", gapMarker(1, 40))
	assert.Equal(t, "[... 3 messages (1 character) cut to fit ...]", gapMarker(3, 1))
}
