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
//	req := s.Messages() // the next request
//
// A session compacts one at a time; messages appended while it does land
// after the compacted history, verbatim and in order. With a [Store], every
// message is kept in an append-only log, the archive, and each compaction
// is committed beside it; the live history is derived from the two, the
// history each compaction read stays addressable under [SnapshotID](id, n),
// and a store that is also a [Leaser] keeps one compaction per session
// across processes and hosts. After every call that succeeds, a Session's
// history is its store's, whatever other processes appended or compacted.
// [MemoryStore] keeps all this in memory; packages session/sqlitestore and
// session/pgstore keep it on disk. A [Manager] gets or opens sessions by id
// for a host serving many at once.
//
// Nothing a summary folds is lost: with [WithRecall], a Session offers the
// model tools that read its archive back ([Session.Tools]:
// context_search, context_expand, context_describe), and each summary ends
// with a line naming the messages it stands for and those tools. The host
// adds the tools to its requests and answers the model's calls with them;
// they read only their own session's log.
//
// A provider may compact on its side (Anthropic inside a request, OpenAI's
// /responses/compact): [Session.Record] makes that compaction the
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
// No request goes over the usable window: when one would, ShouldCompress
// says so and Compress prunes that request if pruning alone fits, else
// waits for the compaction (as long as its ctx allows), else compacts on
// the spot. A failed background compaction loses nothing and is not
// retried in a loop. [Session.CompactIfIdle] compacts a session whose user
// is away, once the provider's prompt cache has gone cold. [Session.Status]
// counts compactions by where they ran, the waits of request paths and
// what they did at the limit, and shows the soft mark and the pace it is
// derived from.
package session
