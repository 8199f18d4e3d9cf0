// Package langchaingo connects compact to langchaingo
// (github.com/tmc/langchaingo) two ways.
//
// An agent that calls a model's GenerateContent itself holds its history
// as []llms.MessageContent; one call before each request compacts it
// through any compact.ContextEngine:
//
//	msgs, res, err := langchaingo.Compress(ctx, engine, msgs)
//
// A chain reads its history from a schema.Memory; NewMemory is one backed
// by a session.Session, so swapping a chain's memory for it gives the
// chain compaction (before the chain reads its history), durability (a
// session with a store, SQLite or Postgres, logs every turn) and recall
// (RecallTools reads back what a summary folded):
//
//	s, err := session.Open(ctx, "chat-42", compact.New(compact.WithContextWindow(128_000)),
//		session.WithStore(store), session.WithRecall(true))
//	chain := chains.NewConversation(llm, langchaingo.NewMemory(s))
//
// # What the engine sees
//
// Convert turns each message into the OpenAI-style message compact works
// on, with the same role (human and generic messages are user messages,
// AI messages assistant ones): text parts as text, image URLs and binary
// images as images (other binary data as a text naming it), tool calls as
// tool calls. A tool message is a tool message for each tool call
// response it holds (langchaingo lets one message hold several), with its
// call id, name and content. A
// deprecated function message reads as a user message naming the
// function, since compact has no role for it. A part in a cache wrapper
// (llms.WithCacheControl) reads as the part it wraps, and a part of a type
// of the host's own as its type and JSON, so the engine counts what every
// part says; a nil part or nil pointer part is an error naming it.
//
// # What comes back
//
// A Conversion keeps the history it was made from, and Restore lines the
// engine's output up with it the way diff does: every message the engine
// kept comes back as the original message; a tool response the engine
// shortened keeps its name, its form (a pointer, a cache wrapper) and its
// place in its message (found by its call id, or by its place when an
// agent used the id before); a call whose arguments it shortened keeps the
// rest of its message; a system prompt the engine extended keeps its parts
// and gets the addition as one more text part; a message the engine wrote
// (a summary) becomes text parts, and a summary merged in front of a user
// message (see compact.WithUserFirst) a text part before its own parts. Every output passes Validate whenever
// the input did: tool responses follow their calls, each call answered
// before the next message that is not a tool message.
package langchaingo
