package session

import (
	"context"
	"fmt"

	"github.com/contextkit/compact/session/store"
)

// Delete closes the session (see Close) and deletes it from its store
// (see store.Delete): a user who asks that the conversation be
// forgotten. A process elsewhere still holding the session gets errors
// wrapping store.ErrDeleted from its next call that reaches the store. Without
// a store there is nothing to delete but the history held in memory,
// which Close lets go.
func (s *Session) Delete(ctx context.Context) error {
	if err := s.Close(ctx); err != nil {
		return err
	}
	if s.store == nil {
		return nil
	}
	return store.Delete(ctx, s.store, s.id)
}

// Delete removes the session named id from the Manager (see Remove) and
// deletes it from the Manager's store (see store.Delete), whether
// the Manager held it or not: a later Get of id fails with an error
// wrapping store.ErrDeleted. Without a store, Delete is Remove.
func (m *Manager) Delete(ctx context.Context, id string) error {
	if err := store.CheckID(id); err != nil {
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
	return store.Delete(ctx, cfg.store, id)
}
