package store

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// SnapshotMarker separates a session id from a snapshot's sequence number in
// a snapshot id: the first snapshot of session "agent-7" is
// "agent-7~snapshot-1". A session id may not contain the marker, so a
// snapshot id can never be taken for, or promoted to, a live session id, and
// two different (id, seq) pairs never make the same snapshot id.
const SnapshotMarker = "~snapshot-"

// SnapshotID returns the id of the seq-th snapshot (counting from 1) of
// session id, the history as it stood just before its seq-th compaction:
// id, SnapshotMarker, then seq in decimal.
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
	if CheckID(id) != nil || digits == "" || digits[0] == '0' {
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

// CheckID reports why id cannot name a live session (an error wrapping
// ErrInvalidID), or nil: the rule session.Open applies, for a Store to
// apply to every id it is given. Control characters are refused because
// ids go into log lines and store keys.
func CheckID(id string) error {
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
