package openaigo

import (
	"fmt"
	"slices"

	"github.com/openai/openai-go/v3"

	"github.com/contextkit/compact"
)

// Conversion is a Chat Completions history converted to compact's
// messages, with what Restore needs to give back the original of every
// message an engine keeps.
type Conversion struct {
	// Messages is the history as compact reads it, one message for each
	// message of the input, in order. The caller may modify or hand over
	// this slice; Restore does not read it.
	Messages []compact.Message

	hist  []openai.ChatCompletionMessageParamUnion // the input, slice copied
	views []compact.Message                        // a private copy of Messages
}

// Convert converts msgs to compact's messages. It does not modify msgs,
// and keeps a copy of the slice (not of the messages) for Restore.
//
// It fails only on a message with no role (one the SDK holds as raw JSON
// without a "role") and on a content part or tool call with no variant,
// which the SDK encodes as null; the error names the message and wraps
// compact.ErrInvalidHistory. A message compact does not accept (a
// deprecated function result, a tool result with no call) converts; the
// engine reports it.
func Convert(msgs []openai.ChatCompletionMessageParamUnion) (*Conversion, error) {
	c := &Conversion{hist: slices.Clone(msgs), views: make([]compact.Message, 0, len(msgs))}
	for i, u := range msgs {
		v, err := view(u)
		if err != nil {
			return nil, fmt.Errorf("openaigo: message %d: %w: %w", i, compact.ErrInvalidHistory, err)
		}
		c.views = append(c.views, v)
	}
	c.Messages = compact.Clone(c.views)
	return c, nil
}

// Validate reports whether msgs is a valid Chat Completions request by
// compact's rules (see compact.Validate): every tool result answers a call
// of the assistant turn before it, every call is answered except those of
// the last turn, no assistant turn is empty, no role is unknown. It returns
// nil, Convert's error, or the first problem as a *compact.ValidationError
// whose Index is the message's index in msgs.
func Validate(msgs []openai.ChatCompletionMessageParamUnion) error {
	c, err := Convert(msgs)
	if err != nil {
		return err
	}
	return compact.Validate(c.views)
}
