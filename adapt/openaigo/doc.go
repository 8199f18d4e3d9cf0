// Package openaigo connects compact to the official OpenAI Go SDK
// (github.com/openai/openai-go/v3): it converts a Chat Completions history
// (the Messages of openai.ChatCompletionNewParams) to compact's messages,
// compacts it through any compact.ContextEngine, and converts the result
// back. Most hosts need one call before each request:
//
//	msgs, res, err := openaigo.Compress(ctx, engine, msgs)
//
// # What the engine sees
//
// compact's messages are the same Chat Completions messages in go-openai's
// types, so Convert maps each message to one message of the same role:
// content strings and text parts, image parts (URL and detail), the
// assistant's refusal, name, tool calls and deprecated function call, the
// tool message's call id. A custom tool call is a tool call of type
// "custom" whose arguments are its input. Parts with no place in go-openai
// (input audio, files) reach the engine as a short text that says what
// they are, and an assistant turn holding only an audio reference reads as
// "[audio response]", so they are counted and summarised like any other
// content.
//
// # What comes back
//
// A Conversion keeps the history it was made from, and Restore lines the
// engine's output up with the converted input the way diff does: every
// message the engine kept unchanged comes back as the original value, with
// everything only the SDK sees (prompt cache breakpoints, audio ids, file
// and audio parts, null-versus-omitted fields, extra fields). A message the
// engine changed keeps what it did not change: a shortened tool result its
// call id and fields, an assistant turn with shortened arguments its
// content, audio, name and other calls, a user turn with pruned images its
// other parts, a system prompt with a note added its parts. A message the
// engine wrote (a summary) is converted plainly. Messages inside the range
// the engine summarised are gone from the output like any summarised
// message, and their text is in the summary.
package openaigo
