package session

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// deleteRetry bounds the wait between two tries of a Delete that finds the
// session's lease held: the holder may release it long before it lapses.
const deleteRetry = 250 * time.Millisecond

// Delete deletes the session named id from st whole, as st's Delete does
// (see Deleter): its log, compactions, snapshots, search index entries,
// spend and lease, in one operation, leaving a tombstone so that every
// later call on the session, from any process, fails with an error
// wrapping ErrDeleted and nothing writes it back. While another holder's
// lease on the session is unexpired (a compaction running somewhere),
// Delete waits for it to be released or to lapse, trying again until ctx
// ends. A store that is no Deleter is refused with an error wrapping
// errors.ErrUnsupported.
func Delete(ctx context.Context, st Store, id string) error {
	if err := checkSessionID(id); err != nil {
		return fmt.Errorf("session: delete: %w", err)
	}
	d, ok := st.(Deleter)
	if !ok {
		return fmt.Errorf("session: delete %q: %w: the store %T cannot delete", id, errors.ErrUnsupported, st)
	}
	for {
		err := d.Delete(ctx, id)
		var held *LeaseHeldError
		if !errors.As(err, &held) {
			return err
		}
		wait := min(max(time.Until(held.Expires), time.Millisecond), deleteRetry)
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return fmt.Errorf("session: delete %q: %w (%w)", id, ctx.Err(), err)
		case <-t.C:
		}
	}
}

// Delete closes the session (see Close) and deletes it from its store
// (see the package's Delete): a user who asks that the conversation be
// forgotten. A process elsewhere still holding the session gets errors
// wrapping ErrDeleted from its next call that reaches the store. Without
// a store there is nothing to delete but the history held in memory,
// which Close lets go.
func (s *Session) Delete(ctx context.Context) error {
	if err := s.Close(ctx); err != nil {
		return err
	}
	if s.store == nil {
		return nil
	}
	return Delete(ctx, s.store, s.id)
}

// Delete removes the session named id from the Manager (see Remove) and
// deletes it from the Manager's store (see the package's Delete), whether
// the Manager held it or not: a later Get of id fails with an error
// wrapping ErrDeleted. Without a store, Delete is Remove.
func (m *Manager) Delete(ctx context.Context, id string) error {
	if err := checkSessionID(id); err != nil {
		return fmt.Errorf("session: manager: delete: %w", err)
	}
	if err := m.Remove(ctx, id); err != nil {
		return err
	}
	var cfg config
	for _, opt := range m.opts {
		if opt != nil {
			opt(&cfg)
		}
	}
	if cfg.store == nil {
		return nil
	}
	return Delete(ctx, cfg.store, id)
}
