// Package eino connects compact to CloudWeGo's eino
// (github.com/cloudwego/eino): it converts a history of *schema.Message to
// compact's messages, compacts it through any compact.ContextEngine, and
// converts the result back; and its Middleware does that before every
// model call of an eino ChatModelAgent, in place of eino's own
// summarization and reduction middlewares:
//
//	agent, err := adk.NewChatModelAgent(ctx, &adk.ChatModelAgentConfig{
//		Model:    chatModel,
//		Handlers: []adk.ChatModelAgentMiddleware{eino.NewMiddleware(compact.New(compact.WithContextWindow(200_000)))},
//	})
//
// A host that runs its own loop needs one call before each request:
//
//	msgs, res, err := eino.Compress(ctx, engine, msgs)
//
// # What the engine sees
//
// An eino message is a Chat Completions message with more ways to hold its
// content, so Convert maps each message to one compact message of the same
// role: Content as content; the parts of MultiContent,
// UserInputMultiContent and AssistantGenMultiContent as parts (Content, when
// a message has both, as a text part before them), text as text, images
// (by URL or inline data) as image parts, and audio, video, files and tool
// search results as a short text that names them, so they are counted and
// summarised like any other content; reasoning parts and ReasoningContent
// as reasoning content; tool calls, call ids and names as themselves. An
// assistant turn with nothing compact can read (reasoning alone) reads as
// "[reasoning]", one with nothing at all as "[empty turn]".
//
// # What comes back
//
// Nothing only eino sees (ResponseMeta, Extra maps, ToolName, a call's
// Extra, part details and signatures, which list a part came from) is put
// in the messages. A Conversion keeps the history it was made from, and
// Restore lines the engine's output up with the converted input the way
// diff does: every message the engine kept unchanged comes back as a copy
// of the original, field for field. A message the engine changed keeps
// what it did not change: a shortened tool result its call id, tool name
// and Extra (and its list form; found by its call id, or by its place when
// an agent used the id before), an assistant turn with shortened arguments
// its content, reasoning, metadata and other calls (each changed call its
// index and Extra), a user turn whose images were pruned its other parts,
// a system prompt with a note added its parts. A message the engine wrote
// (a summary) is converted plainly; a summary merged in front of a user
// message (see compact.WithUserFirst) leads that message's own content, a
// text part or the start of Content, everything else of it kept. Messages inside the range the engine
// summarised are gone from the output like any summarised message, and
// their text is in the summary.
package eino
