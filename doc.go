// Package compact keeps a long LLM agent conversation inside its model's
// context window without losing what matters, and without ever breaking the
// conversation it hands back.
//
// # Compacting before each request
//
// A host keeps its history as go-openai messages and asks a Compressor,
// before every model request, whether the history must shrink:
//
//	c := compact.New(compact.WithContextWindow(200_000), compact.WithSummarizer(s))
//	if c.ShouldCompressMessages(msgs) {
//		res, err := c.Compress(ctx, msgs)
//		if err == nil {
//			msgs = res.Messages
//		} // on error msgs are untouched and the host carries on
//	}
//
// After each response the host reports the provider's usage with
// UpdateUsage, which keeps the Compressor's view of the window exact: the
// provider counts what the Compressor cannot see (tool definitions it was
// not given, images, the provider's framing), and a report over the
// threshold makes the next check compact.
//
// The question has one name wherever it is asked, and takes what the
// asker does not already hold: an engine's ShouldCompress takes the
// request's token count; [Compressor.ShouldCompressMessages] and each
// adapter's ShouldCompress(engine, history) take the history; a type that
// owns the history drops the msgs argument (session.Session's
// ShouldCompress takes only per-call options). Compress follows the same
// rule.
//
// # What a compaction keeps
//
// The system prompt comes back byte-identical (plus, once, CompactionNote).
// On a first compaction the first few messages stay too; later the head
// decays to the system prompt. A recent tail, chosen by a token budget and
// never separating a tool call from its result, comes back verbatim, and so
// does the latest real user message: when it is too far back for the tail
// (an agent's single task message, say), it is placed verbatim right after
// the summary, never before it. The turns between are
// folded into one summary message that starts with SummaryPrefix; recent
// user messages from those turns ride along inside it verbatim. The first
// turn after the system prompt is a user turn: a summary that would open
// the history as an assistant turn is merged in front of the user turn
// after it (see WithUserFirst). Compacting again updates that summary
// rather than stacking a second one.
//
// The result always passes Validate. Result reports the range that was
// summarised, so every input message is either in the output or accounted
// for.
//
// # Boundaries a person chooses
//
// "/compress here N" keeps the last N exchanges verbatim and summarises
// what came before: ParseCompressArgs reads the command, CompressHere runs
// it (SplitExchanges shows the split without running it). A host with a
// message list a person can point at offers "summarize up to here"
// (CompressBefore, SplitAt) and "summarize from here" (CompressFrom), which
// keeps the messages before the chosen one and brings the latest user
// message back after the summary. These compactions are forced, and their
// Result describes the whole history. An engine folds exactly the chosen
// range when it implements RangeCompressor, as the Compressor does.
//
// # The cheap tier
//
// Most of a coding agent's context is tool output. Package prune shrinks it
// without a model: old tool results become one-line stand-ins (which tool
// ran, on what, how it ended, how big it was), duplicates become
// back-references, long tool arguments and old images shrink. The
// Compressor prunes before it summarises and skips the summarizer when that
// is enough (WithPruning, WithPruneOptions).
//
// # Summarizers
//
// A Summarizer turns the summarised turns (and the previous summary) into
// a new summary. The default is the extractive summarizer, which is
// deterministic and makes no network calls; package openaicompat calls any
// OpenAI-compatible endpoint. When a summarizer fails, the Compressor
// either falls back to the extractive summary or returns the error with the
// caller's messages untouched (see FailurePolicy); repeated failures back
// off, and compactions that do not bring usage under the threshold pause
// automatic compaction (see Status).
//
// # What it costs
//
// Providers read a request's leading messages that match what they cached
// a moment ago at about a tenth of the input price; the rest is written to
// the cache, at a premium at Anthropic. So the bill is mostly the average
// request's size, and an edit to early messages re-bills everything after
// it. Status.Cost keeps the conversation's bill from the usage reports
// (UpdateUsage), and Result.Cost says what each compaction rewrites, clears
// and pays its summarizer. With the prices known (the model table's for
// WithModel, or WithPricing) both are priced, and the Compressor compacts
// for the bill at no loss of what it keeps: the system prompt stays
// byte-identical (the note goes into the summary), pruning alone stands in
// for a summary only when it costs less per request, a compaction may come
// early once the cache has gone cold anyway, and a summarizer on the
// agent's own model is offered the agent's cached history (package
// openaicompat sends it). WithEconomy goes further: it compacts when the
// cost per request is least and as deep as the last 8,000 tokens verbatim
// allow. The compact command's replay shows what a transcript costs under
// each setting.
//
// # The guards
//
// Validate says what is wrong with a history and where. RepairToolPairs
// fixes broken tool-call pairing. Join concatenates slices without creating
// two user or two assistant turns in a row. They are used on every output
// and are exported for hosts that edit histories themselves.
//
// # Counting tokens
//
// Package tokens counts exactly as tiktoken does with the model's encoding
// (o200k_base or cl100k_base), with its own encoder over rank tables
// embedded in the binary (no network, ever), and memoises per message, so
// counting a history that grew by one message costs one message. A
// Compressor builds the counter for its model unless WithTokenCounter sets
// one; tokens.Estimator is the zero-cost approximation, and package
// tiktokengo offers pkoukk/tiktoken-go's counts as another tokens.Counter.
//
// # Handoffs
//
// Each compaction loses a little, and after a few a fresh context often
// does better than another summary of a summary. WithHandoff (off by
// default) writes a redacted, size-bounded Markdown packet (package
// handoff) once a conversation has been compacted a given number of times,
// a bounded number of times per conversation: beside the ordinary
// compaction for the host to offer the user, or as the whole context of a
// continuation. Packets are never written outside the root the host names
// and never overwrite; a failed handoff leaves the ordinary compaction.
// ManualHandoffPacket serves a host's "/handoff-packet [note]".
//
// # Sessions
//
// Package session keeps a conversation's identity while it is compacted: a
// stable id, one compaction at a time, and messages that arrive meanwhile
// kept in order. Package redact removes secrets from what leaves the process.
//
// # Other engines
//
// [ContextEngine] is the interface a host programs against; the
// [Compressor] is one implementation. Package compacttest checks any engine
// or summarizer against the contracts every implementation must keep.
//
// # Options
//
// Each constructor has its own option type: [Option] for [New],
// tokens.Option and prune.Option for those packages, so an option handed
// to the wrong constructor does not compile; [NewExtractiveSummarizer]
// takes its one setting as an [ExtractiveOptions] struct whose zero value
// means the defaults. A Compressor takes the options of the
// parts it runs through [WithPruneOptions] and [WithCounterOptions].
// Per-call settings of a compaction ([Force], [WithFocus], [WithIncoming]...)
// are a [CompressOption], read by any engine through [ApplyCompressOptions].
// An option given an invalid value keeps its default, and [Status].Adjusted
// says so: New never fails, and nothing is silently different from what the
// documentation promises.
//
// # Layout
//
// ARCHITECTURE.md in the repository maps the packages, their layers and
// the tests that keep them.
package compact
