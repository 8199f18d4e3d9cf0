package langchaingo

import (
	"github.com/tmc/langchaingo/llms"

	"github.com/contextkit/compact"
)

// FromMessages converts an OpenAI-style history, with no original parts
// behind it, to langchaingo's messages, one for each: system and developer
// messages become system messages, user messages human ones, assistant
// messages AI ones (text parts, then a ToolCall part for each call), tool
// messages tool messages holding one ToolCallResponse each (named after
// the assistant's call it answers, or by the tool message's own name when
// it answers none: a call on another role's message has no part to be
// kept in), as langchaingo's OpenAI provider wants them. Text
// parts with nothing visible are left out, and so is a message left with
// no part. Reasoning content is left out: a MessageContent has no place for
// it. A message with both Content and MultiContent is an error naming it,
// as compact.Validate reports it. msgs is not modified.
func FromMessages(msgs []compact.Message) ([]llms.MessageContent, error) {
	return (&Conversion{}).Restore(msgs)
}
