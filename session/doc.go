// Package session keeps an agent conversation's identity and every message
// it receives while the conversation is compacted.
//
// A host that runs agents side by side keeps each conversation in a
// [Session]: an id that compaction never changes, the live history, and an
// engine of its own. [Session.Append] records each message as it comes (a
// running token count makes every turn cost the same however long the
// session), [Session.ShouldCompress] asks the engine, [Session.Compress]
// compacts:
//
//	s, _ := session.New("agent-7", compact.New(), session.WithStore(store))
//	s.Append(userMsg)
//	if s.ShouldCompress() {
//		_, err := s.Compress(ctx) // on error the history is untouched
//	}
//	req := s.Messages() // the next request
//
// A session compacts one at a time; messages appended while it does land
// after the compacted history, verbatim and in order. With a [Store], the
// full history is saved as a snapshot under [SnapshotID](id, seq) before it
// is replaced. A [Manager] gets or creates sessions by id for a host serving
// many at once.
package session
