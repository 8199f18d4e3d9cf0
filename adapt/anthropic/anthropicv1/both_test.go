package anthropicv1

import (
	"testing"

	"github.com/contextkit/compact"
	"github.com/contextkit/compact/internal/msgtest"
)

// Issue 35.3: a message with both Content and MultiContent, which go-openai
// refuses to send and compact.Validate refuses, converted with one of its
// texts dropped without a word.
func TestFromMessagesRefusesAMessageWithBothContents(t *testing.T) {
	_, err := FromMessages(msgtest.BothContentsHistory())
	msgtest.CheckBothContentsRefused(t, err, "anthropic", compact.ErrInvalidHistory)
}
