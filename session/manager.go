package session

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"sort"
	"sync"

	"github.com/contextkit/compact"
)

// Manager holds the sessions of a host that serves many conversations (a
// gateway, a fleet of agents on one machine): it gets or creates a Session
// by id, each with an engine of its own, so no two conversations share
// history, state or log lines. It is safe for concurrent use; its lock is
// held only to look up and record sessions, never during a compaction.
type Manager struct {
	factory func(id string) compact.ContextEngine
	opts    []Option

	mu       sync.Mutex
	sessions map[string]*Session
	owners   map[compact.ContextEngine]string // engines held by pointer, by session id
	closed   bool
}

// NewManager returns a Manager that builds each session's engine with
// factory and the session with opts (a shared Store and logger, say). A nil
// factory builds New() with its defaults. The factory must return a new
// engine on every call: Get refuses an engine already serving another
// session.
func NewManager(factory func(id string) compact.ContextEngine, opts ...Option) *Manager {
	if factory == nil {
		factory = func(string) compact.ContextEngine { return compact.New() }
	}
	return &Manager{
		factory:  factory,
		opts:     append([]Option(nil), opts...),
		sessions: map[string]*Session{},
		owners:   map[compact.ContextEngine]string{},
	}
}

// Get returns the session named id, creating it (and its engine) if there
// is none. Every caller asking for the same id gets the same *Session.
// Errors wrap ErrInvalidID, ErrSharedEngine, or ErrClosed once the
// Manager is closed. With a Store, a new Session reads its history from the
// store on its first call that takes a ctx (see WithStore).
func (m *Manager) Get(id string) (*Session, error) {
	if s, ok, err := m.lookup(id); ok || err != nil {
		return s, err
	}
	if err := checkSessionID(id); err != nil {
		return nil, err
	}
	// The factory may be slow (New builds a token counter); it runs outside
	// the lock so that it never holds up other sessions.
	engine := m.factory(id)

	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return nil, fmt.Errorf("compact: manager: %w", ErrClosed)
	}
	if s, ok := m.sessions[id]; ok {
		return s, nil // created meanwhile; the engine just built is unused
	}
	key, byPointer := engineKey(engine)
	if byPointer {
		if other, taken := m.owners[key]; taken {
			return nil, fmt.Errorf("compact: manager: engine for session %q: %w (%q)", id, ErrSharedEngine, other)
		}
	}
	s, err := New(id, engine, m.opts...)
	if err != nil {
		return nil, err
	}
	m.sessions[id] = s
	if key, ok := engineKey(s.engine); ok {
		m.owners[key] = id
	}
	return s, nil
}

// Lookup returns the session named id if the Manager holds it, without
// creating one.
func (m *Manager) Lookup(id string) (*Session, bool) {
	s, ok, _ := m.lookup(id)
	return s, ok
}

func (m *Manager) lookup(id string) (*Session, bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return nil, false, fmt.Errorf("compact: manager: %w", ErrClosed)
	}
	s, ok := m.sessions[id]
	return s, ok, nil
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
