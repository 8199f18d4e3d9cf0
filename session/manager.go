package session

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"sort"
	"sync"

	"github.com/contextkit/compact"
	"github.com/contextkit/compact/session/store"
)

// Manager holds the sessions of a host that serves many conversations (a
// gateway, a fleet of agents on one machine): it gets or opens a Session
// by id, each with an engine of its own, so no two conversations share
// history, state or log lines. It is safe for concurrent use; its lock is
// held only to look up and record sessions, never while a session is read
// from its store or compacted. Manager.Delete deletes a session from the
// Manager and from its store alike, whether the Manager holds it or not.
type Manager struct {
	factory func(id string) compact.ContextEngine
	opts    []Option

	mu       sync.Mutex
	sessions map[string]*Session
	opening  map[string]chan struct{}         // closed when the Get opening that id ends
	owners   map[compact.ContextEngine]string // engines held by pointer, by session id
	closed   bool
}

// NewManager returns a Manager that builds each session's engine with
// factory and opens the session with opts (a shared Store and logger,
// say). A nil factory builds compact.New() with its defaults. The factory must
// return a new engine on every call: Get refuses an engine already serving
// another session.
func NewManager(factory func(id string) compact.ContextEngine, opts ...Option) *Manager {
	if factory == nil {
		factory = func(string) compact.ContextEngine { return compact.New() }
	}
	return &Manager{
		factory:  factory,
		opts:     append([]Option(nil), opts...),
		sessions: map[string]*Session{},
		opening:  map[string]chan struct{}{},
		owners:   map[compact.ContextEngine]string{},
	}
}

// Get returns the session named id, opening it (see Open: with a Store, its
// history is read from the store before Get returns) if the Manager does
// not hold it yet. Every caller asking for the same id gets the same
// *Session; callers that ask while it is being opened wait for it (or for
// their ctx). Errors wrap ErrInvalidID, ErrSharedEngine, the store's error,
// ctx's, or ErrClosed once the Manager is closed; a session that failed to
// open is not held, and the next Get tries again.
func (m *Manager) Get(ctx context.Context, id string) (*Session, error) {
	if err := store.CheckID(id); err != nil {
		return nil, fmt.Errorf("session: manager: %w", err)
	}
	for {
		m.mu.Lock()
		if m.closed {
			m.mu.Unlock()
			return nil, fmt.Errorf("session: manager: %w", ErrClosed)
		}
		if s, ok := m.sessions[id]; ok {
			m.mu.Unlock()
			return s, nil
		}
		wait, busy := m.opening[id]
		if !busy {
			done := make(chan struct{})
			m.opening[id] = done
			m.mu.Unlock()
			s, err := m.open(ctx, id)
			m.mu.Lock()
			delete(m.opening, id)
			close(done)
			m.mu.Unlock()
			return s, err
		}
		m.mu.Unlock()
		select {
		case <-wait:
		case <-ctx.Done():
			return nil, fmt.Errorf("session: manager: waiting for session %q to open: %w", id, ctx.Err())
		}
	}
}

// open builds id's engine and opens its session, outside the lock (the
// factory may be slow, compact.New builds a token counter, and the store is read),
// then records it. The caller has marked id as opening.
func (m *Manager) open(ctx context.Context, id string) (*Session, error) {
	engine := m.factory(id)
	key, byPointer := engineKey(engine)
	if byPointer {
		m.mu.Lock()
		other, taken := m.owners[key]
		m.mu.Unlock()
		if taken {
			return nil, fmt.Errorf("session: manager: engine for session %q: %w (%q)", id, ErrSharedEngine, other)
		}
	}
	s, err := Open(ctx, id, engine, m.opts...)
	if err != nil {
		return nil, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return nil, fmt.Errorf("session: manager: %w", ErrClosed)
	}
	if byPointer {
		if other, taken := m.owners[key]; taken {
			return nil, fmt.Errorf("session: manager: engine for session %q: %w (%q)", id, ErrSharedEngine, other)
		}
		m.owners[key] = id
	}
	m.sessions[id] = s
	return s, nil
}

// Lookup returns the session named id if the Manager holds it, without
// opening one.
func (m *Manager) Lookup(id string) (*Session, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return nil, false
	}
	s, ok := m.sessions[id]
	return s, ok
}

// engineKey returns e as a map key when it is a pointer, the only kind of
// engine that can be shared by mistake (a value engine is a copy, and some
// values cannot be map keys at all).
func engineKey(e compact.ContextEngine) (compact.ContextEngine, bool) {
	if e == nil || reflect.ValueOf(e).Kind() != reflect.Pointer {
		return nil, false
	}
	return e, true
}

// Sessions returns the ids of the sessions held, sorted.
func (m *Manager) Sessions() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	ids := make([]string, 0, len(m.sessions))
	for id := range m.sessions {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	return ids
}

// Remove closes the session named id (see Session.Close) and forgets it; a
// later Get creates a fresh one. If Close fails the Manager keeps the
// session and returns the error. Removing an unknown id does nothing.
func (m *Manager) Remove(ctx context.Context, id string) error {
	m.mu.Lock()
	s := m.sessions[id]
	m.mu.Unlock()
	if s == nil {
		return nil
	}
	if err := s.Close(ctx); err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.sessions[id] == s {
		delete(m.sessions, id)
		if key, ok := engineKey(s.engine); ok {
			delete(m.owners, key)
		}
	}
	return nil
}

// Close closes every session (waiting for running compactions) and refuses
// further Gets with ErrClosed. It returns
// the sessions' errors joined; sessions that failed to close stay held and
// Close can be retried.
func (m *Manager) Close(ctx context.Context) error {
	m.mu.Lock()
	m.closed = true
	ids := make([]string, 0, len(m.sessions))
	for id := range m.sessions {
		ids = append(ids, id)
	}
	m.mu.Unlock()
	sort.Strings(ids)
	var errs []error
	for _, id := range ids {
		if err := m.Remove(ctx, id); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}
