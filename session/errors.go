package session

import "errors"

// Errors a caller can test with errors.Is.
var (
	// ErrBusy reports that a compaction of the same session is already
	// running and the caller asked not to wait for it.
	ErrBusy = errors.New("session: a compaction of this session is running")

	// ErrInvalidID reports a session id a Session cannot take: empty,
	// not valid UTF-8, holding a control character, or holding
	// SnapshotMarker, which only snapshot ids may contain.
	ErrInvalidID = errors.New("session: invalid session id")

	// ErrClosed reports an operation on a Session (or a Manager) that
	// was closed.
	ErrClosed = errors.New("session: session closed")

	// ErrSharedEngine reports an engine factory that returned, for a new
	// session, an engine already serving another one. Engines hold
	// per-conversation state; sharing one would mix two conversations.
	ErrSharedEngine = errors.New("session: engine already serves another session")
)
