// Package anthropic connects compact to the official Anthropic Go SDK, v2
// (github.com/anthropics/anthropic-sdk-go/v2): it converts a Messages API
// history to compact's messages, compacts it through any
// compact.ContextEngine, and converts the result back. Agents still on SDK
// v1 use the subpackage github.com/contextkit/compact/adapt/anthropic/anthropicv1
// (package anthropicv1), the same adapter kept, frozen, for that SDK while
// it is served.
//
// A History is what a request to the Messages API carries: the top-level
// system prompt and the turns. Most hosts need one call before each request:
//
//	h, res, err := anthropic.Compress(ctx, engine, h)
//
// # What the engine sees
//
// Convert turns each block into the OpenAI-style message compact works on:
// text and images as content, tool_use blocks as tool calls, each
// tool_result block as its own tool message (so one user turn answering
// three parallel calls becomes three tool messages), thinking as reasoning
// content, the system prompt as a system message, and a system turn (SDK
// v2's instructions in the middle of a conversation) as a system message
// where it stands. Blocks with no place in
// those messages (documents, search results, server tool blocks, redacted
// thinking, blocks this package does not know) reach the engine as a short
// text that says what they are, so they are counted and summarised like
// any other content.
//
// # What comes back
//
// Nothing that only the SDK sees (cache_control, citations, signatures,
// is_error, image and document sources, extra fields) is put in the
// messages. A Conversion keeps the history it was made from, and Restore
// lines the engine's output up with the converted input the way diff does:
// every message the engine kept unchanged comes back as the original
// blocks, byte for byte; a tool result or tool call the engine shortened
// keeps its block's other fields (is_error, cache_control, caller), found
// by its id, or by its place when the id was used before; a system prompt
// the engine extended keeps its blocks and gets the addition as one more
// block; a message the engine wrote (a summary) becomes plain text blocks,
// and a summary merged in front of a user message (see
// compact.WithUserFirst) a text block before that turn's own blocks.
// Blocks inside the range the engine summarised are gone from the output
// like any summarised message, and their text is in the summary.
//
// Every output keeps the Messages API's shape (see Validate): turns
// alternate, the first is a user turn (or an assistant turn that opens on
// the provider's compaction block), and the tool results for an
// assistant turn's tool_use blocks open the user turn right after it. Where
// compaction puts two user or two assistant turns side by side they are
// merged into one; turns that were already side by side in the input stay
// as they were.
//
// # Anthropic's own context management
//
// NativeEngine lets the provider manage the context on its side: it gives
// each request the context_management edits (RequestOptions) that make
// Anthropic clear old tool results (clear_tool_uses_20250919) and compact
// the conversation into a summary (compact_20260112) once the input reaches
// the fallback engine's threshold, clear old thinking on request
// (clear_thinking_20251015), and reads back what the provider did (Record):
// the compaction block, the tool results cleared, and usage.iterations,
// where the summarising pass is billed apart. When native compaction fails
// (an error the API gives for it, a compaction block without a summary)
// its fallback, any compact engine, compacts instead for a while, under its
// own failure policy.
//
// A compaction block with a summary reads as a summary (see Convert), and
// the API ignores every turn before the newest one, so Compress and
// ShouldCompress judge a history from it on, whatever the engine: compact
// compacts what the API reads, and when it summarises it folds the
// provider's summary into its own, so a history never holds both.
package anthropic
