// Package openaigo connects compact to the official OpenAI Go SDK
// (github.com/openai/openai-go/v3), for both of its APIs: Chat Completions
// (the Messages of openai.ChatCompletionNewParams) and the Responses API
// (the input items of responses.ResponseNewParams). It converts a history
// to compact's messages, compacts it through any compact.ContextEngine, and
// converts the result back. Most hosts need one call before each request:
//
//	msgs, res, err := openaigo.Compress(ctx, engine, msgs)        // Chat Completions
//	items, res, err := openaigo.CompressItems(ctx, engine, items) // Responses
//
// # What the engine sees: Chat Completions
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
// # What the engine sees: the Responses API
//
// ConvertItems reads every item as the API reads it (its JSON), so an item
// the SDK holds typed, or as raw JSON (param.Override, ToParam), reads the
// same. A system, developer or user message is one message of that role
// (additional tools and a configuration update read as developer
// messages). What one response of the model wrote (its messages, reasoning
// items, calls, and the calls of hosted tools such as web search) is one
// assistant message, as one Chat Completions turn holds parallel calls: its
// text, its calls as tool calls (a function call of type "function", a
// custom tool call of type "custom" whose arguments are its input, a
// computer, shell, local shell or patch call named for its tool with its
// action as arguments), a hosted call as a line of text, and its reasoning
// (summary, text and encrypted content) as reasoning content, which the
// engine counts: replayed reasoning takes real tokens. Each call's output
// is a tool message answering it. An MCP approval request, a tool search
// and a program pair with their outputs only where the output is there. A
// provider's compaction item is a summary, and an item reference or a
// compaction trigger travels with the message before it.
//
// So the engine keeps or folds a turn whole: a reasoning item stays with
// its turn, before the item it preceded, and is dropped only inside a
// folded range; a call and its output are a pair. ValidateItems checks the
// rules the API adds (every output follows its call, every call but a
// pending last group is answered, every reasoning item is followed by what
// it led to).
//
// A provider's compaction item stands for everything before it but the
// instructions and the user messages (the provider keeps those beside it).
// When a compaction is due, CompressItems folds the rest of what came
// before the newest compaction item, which the provider's own guide allows,
// and keeps that item and everything after it. The engine compacts further
// only if it must, and then folds the compaction item into its one summary:
// a history never holds two summaries, ours on top of the provider's.
//
// # What comes back
//
// A Conversion (and an ItemConversion) keeps the history it was made from,
// and Restore lines the engine's output up with the converted input the way
// diff does: every message the engine kept unchanged comes back as the
// original value (as the original items, for the Responses API), with
// everything only the SDK sees (prompt cache breakpoints, audio ids,
// encrypted reasoning, item ids and statuses, file and audio parts,
// null-versus-omitted fields, extra fields). A message the engine changed
// keeps what it did not change: a shortened tool result its call id and
// fields (and its form, a string or a list of parts; found by its call id,
// or by its place when an agent used the id before), an assistant turn
// with shortened arguments its content, audio, name, reasoning and other
// calls, a user turn with pruned images its other parts, a system prompt
// with a note added its parts. A message the engine wrote (a summary) is
// converted plainly; a summary merged in front of a user message (see
// compact.WithUserFirst) leads that message's own content as a text part
// (or the start of its string), everything else of it kept. Messages inside the range the engine summarised are
// gone from the output like any summarised message, and their text is in
// the summary.
//
// # OpenAI's own compaction
//
// NativeEngine compacts a Responses history with the provider's compaction
// endpoint (POST /responses/compact), and with a compact engine of the
// host's choice when that fails: an error status, a timeout, a reply that
// is not a compaction. Server-side compaction (the request's
// context_management) is the host's other choice; its compaction items
// read as summaries like any other.
package openaigo
