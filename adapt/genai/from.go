package genai

import "github.com/contextkit/compact"

// FromMessages converts an OpenAI-style history, with no original parts
// behind it, to a History with the Gemini API's shape: leading system
// messages become the system instruction (a later one becomes user text);
// text becomes text parts and base64 data: images inline data (any other
// image a text placeholder); tool calls become function calls with their
// ids and arguments (arguments that are not a JSON object are wrapped as
// {"arguments": ...}); tool messages become function responses, their text
// as {"output": ...}, in the user content after the calls; consecutive
// user or model contents merge into one; a history that would open on a
// model content opens on a short user content instead. Reasoning content
// is left out: Gemini takes back only the thoughts it signed. msgs is not
// modified.
func FromMessages(msgs []compact.Message) (History, error) {
	return (&Conversion{}).Restore(msgs)
}
