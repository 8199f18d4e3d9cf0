// Package session keeps an agent conversation's identity and every message
// it receives while the conversation is compacted.
//
// A host that runs agents side by side keeps each conversation in a
// [Session]: an id that compaction never changes, the live history, and an
// engine of its own. [Open] reads the history from the store (a restarted
// process carries on where it left off), [Session.Append] records each
// message as it comes (a running token count makes every turn cost the
// same however long the session), [Session.ShouldCompress] asks the
// engine, [Session.Compress] compacts:
//
//	s, err := session.Open(ctx, "agent-7", compact.New(), session.WithStore(store))
//	if err != nil { ... } // the store could not be read
//	if err := s.Append(ctx, userMsg); err != nil { ... } // logged in the store
//	if s.ShouldCompress() {
//		_, err := s.Compress(ctx) // on error the history is untouched
//	}
//	req := s.Messages() // the next request: call it once per request sent
//
// A session compacts one at a time; messages appended while it does land
// after the compacted history, verbatim and in order. With a [store.Store]
// ([WithStore]), every message is kept in an append-only log, the archive,
// and each compaction is committed beside it; the live history is derived
// from the two, the history each compaction read stays addressable under
// [store.SnapshotID](id, n), and a store that is also a [store.Leaser]
// keeps one compaction per session across processes and hosts. After every
// call that succeeds, a Session's history is its store's, whatever other
// processes appended or compacted. [store.Memory] keeps all this in memory;
// packages session/sqlitestore and session/pgstore keep it on disk. A
// [Manager] gets or opens sessions by id for a host serving many at once.
//
// A host uses this package and picks a store; package session/store is
// for those who write one, as database/sql/driver is beside database/sql:
// the contract a store keeps, the types it keeps, and the checks every
// store makes alike.
//
// Nothing a summary folds is lost: with [WithRecall], a Session offers the
// model tools that read its archive back ([Session.Tools]:
// context_search, context_expand, context_describe), and each summary ends
// with a line naming the messages it stands for and those tools. The host
// adds the tools to its requests and answers the model's calls with them;
// they read only their own session's log.
//
// A provider may compact on its side (Anthropic inside a request, OpenAI's
// /responses/compact): [Session.RecordCompaction] makes that compaction the
// session's, and recall works over it as over the session's own, the line
// going into the system prompt since the provider's summary is not ours.
//
// # Background compaction
//
// A model summary takes seconds to a minute; with [WithBackground] no
// request waits for one. The loop above does not change:
//
//	s, err := session.Open(ctx, "agent-7", compact.New(compact.WithSummarizer(model)),
//		session.WithStore(store), session.WithBackground(true))
//
// Once the next request passes a soft mark below the engine's threshold,
// Append (or ShouldCompress) starts the compaction on the session's own
// goroutine and returns; requests go out with the live history meanwhile,
// and the one after the commit is the compacted history and everything
// appended since, in order. The soft mark adapts to how fast the history
// grows and how long compactions take ([WithSoftMark] fixes it), so that
// the compaction usually commits before the history reaches the threshold.
// A request's size is the session's count and what the provider's usage
// reports ([Session.UpdateUsage]) showed that count misses (tool
// definitions the host did not name, images, the provider's framing), as
// the Compressor judges it, so the soft mark, the hard limit and the idle
// mark hold by the provider's measure.
// No request goes over the usable window: when one would, ShouldCompress
// says so and Compress prunes that request if pruning alone fits (old tool
// output, then the largest earlier messages cut to their start and end,
// for that request only), else waits for the compaction (as long as its
// ctx allows), else compacts on the spot. A failed background compaction
// loses nothing and is not retried in a loop. [Session.CompressIfIdle] compacts a session whose user
// is away, once the provider's prompt cache has gone cold. [Session.Status]
// counts compactions by where they ran, the waits of request paths and
// what they did at the limit, and shows the soft mark and the pace it is
// derived from.
//
// # The log and its compactions
//
// Each session is an append-only log of [store.Record] values (Seq dense
// from 1) and a list of [store.Compaction] values. A compaction's FoldedFrom and
// FoldedThrough name the records its summary stands for, so every record up
// to its Through is in that range or carried in its Live, checkable from the
// store alone (storetest.Audit). The live history is the latest compaction's
// Live followed by every record after its Through, so messages appended
// anywhere while a compaction runs land after the compacted history, in log
// order. The store's Read gives the archive back verbatim, and the history
// compaction n read is the snapshot [store.SnapshotID](id, n).
//
// # One compaction per session, everywhere
//
// A store that is a [store.Leaser] grants a per-session lease with a fencing token
// that only grows. [Session.Compress] takes it (waiting, or returning
// [ErrBusy] with WithWait(false)), renews it every third of its TTL
// ([WithLeaseTTL], default [DefaultLeaseTTL]) while the engine runs, and
// commits under it. A holder that paused past its lease cannot save: the
// commit is refused ([store.ErrLeaseLost], [store.ErrStaleFence]) and
// nothing is lost. A
// process killed mid-compaction leaves the log intact; another takes over
// when the TTL runs out.
//
// Every Append is one store write that also reports where the log and its
// compactions stand: a session that finds others appended reads only their
// messages, one that finds another process compacted reads the live history
// again, and [Session.Sync] does so on demand. A committed compaction is
// installed from what was committed, reading only what others appended
// meanwhile; a call whose write took effect but whose view could not catch
// up says so with [ErrStale].
//
// # The stores
//
// [store.Memory] is for tests and single processes. Package
// session/sqlitestore (modernc.org/sqlite, pure Go) keeps sessions in a file
// shared by the processes of one machine: an owner-only file, WAL,
// synchronous=NORMAL (its WithSynchronousFull trades an fsync per turn for
// surviving power loss), writes in short IMMEDIATE transactions (those that
// arrive together batched into one) retried while the file is busy,
// versioned migrations, and an FTS5 trigram index for searches. Package
// session/pgstore (pgx/v5) serves hosts sharing one database: tables in their
// own schema, migrated under an advisory lock, one statement per append, the
// lease timed by the database's clock, a pg_trgm index for searches; add
// synchronous_commit=off to the DSN for lower turn latency at the cost of
// the last few milliseconds on a crash. Both index a session's texts when it
// is searched, not when it is appended to. Errors of either never print the
// DSN or a password. docs/sizing.md says which to choose for a fleet.
//
// A store of your own proves itself with storetest.Run (the contract's rules
// as named subtests: ordering, no overwrite, ctx honoured, bad ids refused,
// concurrent appends, live derivation, snapshots, stale fence refused...), or
// storetest.Check outside a test; package session/store says what it must
// keep and has the checks the built-in stores make.
//
// Two gateways can serve the same agents from one Postgres database; every
// message of both lands in one log per agent, and each agent compacts in one
// place at a time:
//
//	eval "$(.ci/postgres.sh start)"   # a throwaway cluster
//	go run ./examples/gateway -store "$COMPACT_PG_DSN" -name a -turns 60 &
//	go run ./examples/gateway -store "$COMPACT_PG_DSN" -name b -turns 60
//
// # What the archive keeps, and for how long
//
// By default a store keeps every message a session was given, verbatim
// (credentials a tool printed included), and every compaction, for as long
// as the store exists: nothing expires on its own. Three things remove
// what it keeps, each on a store that offers it (store.Memory, sqlitestore
// and pgstore offer all three):
//
//   - [Session.Delete] (or [Manager.Delete], or store.Delete given the
//     store and the id) removes a session
//     whole (store.Deleter): its log, compactions and snapshots, search index
//     entries, spend and lease, in one transaction. It waits for a
//     compaction in flight (the lease decides); a process still holding the
//     session gets store.ErrDeleted from its next call that reaches the store,
//     and nothing writes the session back. The id stays taken.
//   - Retention (store.Expirer): Expire deletes the records a compaction folded
//     that are older than store.Retention.Folded, and the sessions idle longer
//     than store.Retention.Idle. The live history is never touched. A host
//     schedules it, or runs "compact store expire -folded 30d -idle 90d
//     STORE" (cmd/compact). Recall then answers, for a record that expired,
//     "expired" with a note, never an error; a snapshot that needs one fails
//     with store.ErrExpired.
//   - Redaction at rest ([WithRedactAtRest], store.Rewriter): once a compaction
//     commits, the records it folded are rewritten through store.RedactMessage
//     (package redact: String for text, JSON for tool arguments), so the
//     disk keeps no credential the model no longer reads verbatim; recall
//     searches and expands the redacted text. The live history stays
//     verbatim. store.RedactFolded redacts an archive written before.
//
// Deleted and rewritten rows leave their old bytes behind until the store
// reclaims the space: in SQLite's free pages until sqlitestore's Vacuum
// (or "compact store expire -vacuum") rebuilds the file, in Postgres's old
// row versions until a VACUUM (autovacuum makes the space reusable; VACUUM
// FULL gives it back to the file system). A host that must erase bytes,
// not rows, vacuums after deleting or redacting.
//
// # Recall tools
//
// With [WithRecall], every summary the session writes ends with a line
// naming the range it stands for and the tools:
//
//	[Recall: messages 5 to 212 of this conversation are archived verbatim. Find text in them with context_search, read them by seq with context_expand, list compactions with context_describe.]
//
// The host adds [Session.Tools] to its requests and answers the model's calls
// with each [compact.Tool]'s Handle, whose answer is always JSON for the model
// (its error is only for the host's log):
//
//   - context_search (query; regex, RE2 with (?i) for case and ^ and $ per
//     line; role; tool; limit, 1 to 100, default 20; cursor) answers each
//     matching message's seq, role, tool (or the tools an assistant turn
//     calls) and up to three matching lines with the line before and after.
//     A plain query matches ignoring case, over the text, the tool calls as
//     the model wrote them, and the argument values with JSON escapes
//     decoded.
//   - context_expand (from and to, or seq: up to 100 seqs; line or offset to
//     start around a search hit; cursor) answers the messages verbatim: the
//     content, then each tool call as name(arguments); a message longer than
//     the budget comes in parts. Seqs whose messages retention deleted
//     are listed under "expired", with a note saying so.
//   - context_describe (cursor) answers every compaction: n, at, the range it
//     folded, the new messages it read, tokens before and after, the
//     summarizer.
//
// Every answer, errors included, fits a token budget ([WithToolBudget],
// default [DefaultToolBudget], by the session's counter); one that was cut
// says "truncated" and carries "next", the arguments of the call that
// continues it. Bad arguments (malformed JSON, an unknown field, an inverted
// range, an empty or oversized query, a regular expression RE2 refuses or
// one that compiles to more than 10,000 instructions) are answered with
// {"error": "context_search: ..."}, never a panic. A search gives up after
// [SearchTimeout] with what it found, "stopped" and a cursor. Queries and
// regular expressions holding a literal of three bytes or more (in every
// branch of an alternation) go through the store's index
// ([store.Searcher]); the rest read the log, only its lines holding a
// literal when nothing in the expression can match a line break. The tools read only their session's
// log: no argument names a session, a snapshot or a store. The Session takes
// the recall line off every summary before the engine reads the history, so
// lines never stack. A session given recall but no store keeps its log in a
// [store.Memory] of its own.
package session
