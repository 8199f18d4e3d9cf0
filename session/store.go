package session

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/contextkit/compact"
)

// SnapshotMarker separates a session id from a snapshot's sequence number in
// a snapshot id: the first snapshot of session "agent-7" is
// "agent-7~snapshot-1". A session id may not contain the marker, so a
// snapshot id can never be taken for, or promoted to, a live session id, and
// two different (id, seq) pairs never make the same snapshot id.
const SnapshotMarker = "~snapshot-"

// SnapshotID returns the id under which the seq-th snapshot (counting from
// 1) of session id is kept: id, SnapshotMarker, then seq in decimal.
func SnapshotID(id string, seq int) string {
	return id + SnapshotMarker + strconv.Itoa(seq)
}

// ParseSnapshotID splits a snapshot id made by SnapshotID into the session
// id and the sequence number. ok is false for anything else, including
// every valid session id.
func ParseSnapshotID(sid string) (id string, seq int, ok bool) {
	i := strings.LastIndex(sid, SnapshotMarker)
	if i < 0 {
		return "", 0, false
	}
	id, digits := sid[:i], sid[i+len(SnapshotMarker):]
	if checkSessionID(id) != nil || digits == "" || digits[0] == '0' {
		return "", 0, false
	}
	for _, r := range digits {
		if r < '0' || r > '9' {
			return "", 0, false
		}
	}
	seq, err := strconv.Atoi(digits)
	if err != nil {
		return "", 0, false
	}
	return id, seq, true
}

// checkSessionID reports why id cannot name a live session, or nil. Control
// characters are refused because ids go into log lines and store keys.
func checkSessionID(id string) error {
	switch {
	case id == "":
		return fmt.Errorf("%w: empty", ErrInvalidID)
	case !utf8.ValidString(id):
		return fmt.Errorf("%w: %q is not valid UTF-8", ErrInvalidID, id)
	case strings.Contains(id, SnapshotMarker):
		return fmt.Errorf("%w: %q contains %q, which is reserved for snapshot ids",
			ErrInvalidID, id, SnapshotMarker)
	}
	for i, r := range id {
		if unicode.IsControl(r) {
			return fmt.Errorf("%w: %q has a control character at byte %d", ErrInvalidID, id, i)
		}
	}
	return nil
}

// Store keeps the live histories of sessions and the snapshots taken before
// each compaction. A Session writes to it; a host reads from it to restore a
// conversation or to recover what a compaction folded away.
//
// An implementation must keep these rules:
//   - It is safe for concurrent use by many sessions.
//   - It never keeps or modifies a slice it is given, nor hands out one it
//     keeps: what goes in and what comes out are copies (see Clone).
//   - Load returns the live history saved under a session id, or the
//     snapshot saved under a snapshot id; nil and no error when nothing is.
//   - Save replaces the live history of a session id. It refuses a snapshot
//     id (or any id New refuses) with an error wrapping
//     ErrInvalidID: a snapshot is never promoted to a live history.
//   - SaveSnapshot keeps msgs as the next snapshot of session id and returns
//     its id, SnapshotID(id, seq) with seq one more than the last snapshot
//     of id. It never overwrites a snapshot and never touches the live
//     history.
//   - Snapshots lists the snapshot ids of a session, oldest first.
//   - Every method honours ctx, returning an error wrapping ctx.Err() when
//     it gives up.
type Store interface {
	Load(ctx context.Context, id string) ([]compact.Message, error)
	Save(ctx context.Context, id string, msgs []compact.Message) error
	SaveSnapshot(ctx context.Context, id string, msgs []compact.Message) (snapshotID string, err error)
	Snapshots(ctx context.Context, id string) ([]string, error)
}

// MemoryStore is a Store in memory, for tests and for hosts that need no
// persistence across restarts. Snapshots are kept until the store is
// dropped: a long-running host that compacts often should use a store that
// ages them out. It is safe for concurrent use.
type MemoryStore struct {
	mu    sync.Mutex
	live  map[string][]compact.Message
	snaps map[string][][]compact.Message
}

// NewMemoryStore returns an empty MemoryStore.
func NewMemoryStore() *MemoryStore {
	return &MemoryStore{live: map[string][]compact.Message{}, snaps: map[string][][]compact.Message{}}
}

// Load returns a copy of the live history of a session id, or of the
// snapshot a snapshot id names; nil when nothing is stored under id.
func (s *MemoryStore) Load(ctx context.Context, id string) ([]compact.Message, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("compact: store: %w", err)
	}
	s.mu.Lock()
	var msgs []compact.Message
	if sid, seq, ok := ParseSnapshotID(id); ok {
		if snaps := s.snaps[sid]; seq <= len(snaps) {
			msgs = snaps[seq-1]
		}
	} else {
		msgs = s.live[id]
	}
	s.mu.Unlock()
	// The stored slices are never modified after they are stored, so the
	// copy can be made outside the lock.
	return compact.Clone(msgs), nil
}

// Save replaces the live history of session id with a copy of msgs.
func (s *MemoryStore) Save(ctx context.Context, id string, msgs []compact.Message) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("compact: store: %w", err)
	}
	if err := checkSessionID(id); err != nil {
		return fmt.Errorf("compact: store: save: %w", err)
	}
	c := compact.Clone(msgs)
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(c) == 0 {
		delete(s.live, id)
		return nil
	}
	s.live[id] = c
	return nil
}

// SaveSnapshot keeps a copy of msgs as the next snapshot of session id and
// returns the snapshot's id.
func (s *MemoryStore) SaveSnapshot(ctx context.Context, id string, msgs []compact.Message) (string, error) {
	if err := ctx.Err(); err != nil {
		return "", fmt.Errorf("compact: store: %w", err)
	}
	if err := checkSessionID(id); err != nil {
		return "", fmt.Errorf("compact: store: snapshot: %w", err)
	}
	c := compact.Clone(msgs)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.snaps[id] = append(s.snaps[id], c)
	return SnapshotID(id, len(s.snaps[id])), nil
}

// Snapshots lists the snapshot ids of session id, oldest first.
func (s *MemoryStore) Snapshots(ctx context.Context, id string) ([]string, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("compact: store: %w", err)
	}
	s.mu.Lock()
	n := len(s.snaps[id])
	s.mu.Unlock()
	ids := make([]string, n)
	for i := range ids {
		ids[i] = SnapshotID(id, i+1)
	}
	return ids, nil
}

var _ Store = (*MemoryStore)(nil)
