package session

import (
	"errors"

	"github.com/contextkit/compact/session/store"
)

// Errors a caller can test with errors.Is.
var (
	// ErrBusy reports that a compaction of the same session is already
	// running (here, or under a lease another holder has on a shared
	// store) and the caller asked not to wait for it. It is
	// store.ErrBusy, which a Leaser's refusal wraps.
	ErrBusy = store.ErrBusy

	// ErrInvalidID reports a session id Open and Manager.Get refuse (see
	// store.CheckID). It is store.ErrInvalidID, which a store's refusal
	// wraps.
	ErrInvalidID = store.ErrInvalidID

	// ErrClosed reports an operation on a Session (or a Manager) that
	// was closed.
	ErrClosed = errors.New("session: session closed")

	// ErrSharedEngine reports an engine factory that returned, for a new
	// session, an engine already serving another one. Engines hold
	// per-conversation state; sharing one would mix two conversations.
	ErrSharedEngine = errors.New("session: engine already serves another session")

	// ErrStale reports a call whose write took effect (the messages were
	// logged, the compaction committed) but which could not bring this
	// process's copy of the live history up to date afterwards (the store
	// failed, or ctx ended): until a later call that takes a ctx succeeds
	// (Sync, say), Messages may lag behind the store. The write must not be
	// repeated.
	ErrStale = errors.New("session: the session's view of its history is stale")

	// ErrMismatch reports a Result given to Session.RecordCompaction that is not a
	// compaction of the session's live history; the error names the
	// message. Nothing is changed.
	ErrMismatch = errors.New("session: the result does not match the live history")
)
