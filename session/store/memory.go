package store

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/contextkit/compact"
	"github.com/contextkit/compact/internal/msg"
	"github.com/contextkit/compact/models"
)

// Memory is a Store, a Leaser, a Searcher, a Spender, a Deleter, an
// Expirer and a Rewriter in memory, for tests and for hosts that need no
// persistence across restarts. Every message and compaction is kept until
// the store is dropped, the session deleted or its records expired. It is
// safe for concurrent use.
type Memory struct {
	mu       sync.Mutex
	sessions map[string]*memSession
	// clock is the store's clock: time.Now, or what NewMemoryClock was
	// given.
	clock func() time.Time
}

type memSession struct {
	log   []Record     // log[i].Seq == i+1, or 0 once the record expired
	text  []string     // text[i] is log[i]'s SearchText, lower-cased, for Search
	comps []Compaction // comps[i].N == i+1
	lease Lease        // the latest grant; ID "" once released
	fence int64        // the latest fence granted
	// deleted marks the tombstone Delete leaves: the rest is empty.
	deleted bool
}

// NewMemory returns an empty Memory.
func NewMemory() *Memory { return NewMemoryClock(time.Now) }

// NewMemoryClock returns an empty Memory whose clock is now: it times
// leases and stamps records and compactions by it, for a test that moves
// time itself.
func NewMemoryClock(now func() time.Time) *Memory {
	return &Memory{sessions: map[string]*memSession{}, clock: now}
}

// begin checks ctx and id and returns the session's state (nil when the
// session is unknown and create is false) with the store locked; the caller
// unlocks. A deleted session is an error, with the store unlocked.
func (s *Memory) begin(ctx context.Context, op, id string, create bool) (*memSession, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("session: store: %s %q: %w", op, id, err)
	}
	if err := CheckID(id); err != nil {
		return nil, fmt.Errorf("session: store: %s: %w", op, err)
	}
	s.mu.Lock()
	ms := s.sessions[id]
	if ms != nil && ms.deleted {
		s.mu.Unlock()
		return nil, fmt.Errorf("session: store: %s %q: %w", op, id, ErrDeleted)
	}
	if ms == nil && create {
		ms = &memSession{}
		s.sessions[id] = ms
	}
	return ms, nil
}

// Append adds copies of msgs to the end of session id's log.
func (s *Memory) Append(ctx context.Context, id string, msgs ...compact.Message) (int64, int, error) {
	// Folded once here, outside the lock, so a search only compares.
	texts := make([]string, len(msgs))
	for i, m := range msgs {
		texts[i] = strings.ToLower(SearchText(m))
	}
	ms, err := s.begin(ctx, "append", id, true)
	if err != nil {
		return 0, 0, err
	}
	defer s.mu.Unlock()
	now := s.clock()
	for i, m := range msgs {
		ms.log = append(ms.log, Record{Seq: int64(len(ms.log)) + 1, Message: cloneMessage(m), At: now})
		ms.text = append(ms.text, texts[i])
	}
	return int64(len(ms.log)), len(ms.comps), nil
}

// Read returns copies of the records of session id numbered from through to.
func (s *Memory) Read(ctx context.Context, id string, from, to int64) ([]Record, error) {
	if err := CheckRange(from, to); err != nil {
		return nil, fmt.Errorf("session: store: read %q: %w", id, err)
	}
	ms, err := s.begin(ctx, "read", id, false)
	if err != nil {
		return nil, err
	}
	defer s.mu.Unlock()
	if ms == nil {
		return nil, nil
	}
	return ms.records(from, to), nil
}

// records copies the records numbered from through to (0: the last).
func (ms *memSession) records(from, to int64) []Record {
	last := int64(len(ms.log))
	if to == 0 || to > last {
		to = last
	}
	if from > to {
		return nil
	}
	out := make([]Record, 0, to-from+1)
	for _, r := range ms.log[from-1 : to] {
		if r.Seq == 0 {
			continue // expired
		}
		r.Message = cloneMessage(r.Message)
		out = append(out, r)
	}
	return out
}

// history returns a copy of the live history just after compaction n (0:
// before the first) followed by the log up to through.
func (ms *memSession) history(n int, through int64) []compact.Message {
	var out []compact.Message
	from := int64(1)
	if n > 0 {
		c := ms.comps[n-1]
		out = compact.Clone(c.Live)
		from = c.Through + 1
	}
	for _, r := range ms.records(from, through) {
		out = append(out, r.Message)
	}
	return out
}

// Live returns a copy of session id's live history, the number of the last
// log record in it, and the number of the latest compaction.
func (s *Memory) Live(ctx context.Context, id string) ([]compact.Message, int64, int, error) {
	ms, err := s.begin(ctx, "live", id, false)
	if err != nil {
		return nil, 0, 0, err
	}
	defer s.mu.Unlock()
	if ms == nil {
		return nil, 0, 0, nil
	}
	last := int64(len(ms.log))
	return ms.history(len(ms.comps), last), last, len(ms.comps), nil
}

// Commit records a copy of c as session id's next compaction, under lease,
// and returns the number of the log's last record.
func (s *Memory) Commit(ctx context.Context, id string, c Compaction, lease Lease) (int64, error) {
	ms, err := s.begin(ctx, "commit", id, true)
	if err != nil {
		return 0, err
	}
	defer s.mu.Unlock()
	now := s.clock()
	if err := CheckLease(ms.lease, lease, now); err != nil {
		return 0, fmt.Errorf("session: store: commit %q compaction %d: %w", id, c.N, err)
	}
	var prev Compaction
	if len(ms.comps) > 0 {
		prev = ms.comps[len(ms.comps)-1]
	}
	if err := CheckCompaction(prev, c, int64(len(ms.log))); err != nil {
		return 0, fmt.Errorf("session: store: commit %q: %w", id, err)
	}
	c.Live, c.Spend = compact.Clone(c.Live), c.Spend.Clone()
	c.From, c.Fence = prev.Through+1, lease.Fence
	if c.At.IsZero() {
		c.At = now
	}
	ms.comps = append(ms.comps, c)
	return int64(len(ms.log)), nil
}

// Compactions returns copies of session id's compactions, oldest first.
func (s *Memory) Compactions(ctx context.Context, id string) ([]Compaction, error) {
	ms, err := s.begin(ctx, "compactions", id, false)
	if err != nil {
		return nil, err
	}
	defer s.mu.Unlock()
	if ms == nil {
		return nil, nil
	}
	out := make([]Compaction, len(ms.comps))
	for i, c := range ms.comps {
		c.Live, c.Spend = compact.Clone(c.Live), c.Spend.Clone()
		out[i] = c
	}
	return out, nil
}

// Spend returns a copy of the Spend of session id's latest compaction.
func (s *Memory) Spend(ctx context.Context, id string) (models.Spend, error) {
	ms, err := s.begin(ctx, "spend", id, false)
	if err != nil {
		return models.Spend{}, err
	}
	defer s.mu.Unlock()
	if ms == nil || len(ms.comps) == 0 {
		return models.Spend{}, nil
	}
	return ms.comps[len(ms.comps)-1].Spend.Clone(), nil
}

// Snapshot returns a copy of the history compaction n of a session read,
// for sid = SnapshotID(id, n).
func (s *Memory) Snapshot(ctx context.Context, sid string) ([]compact.Message, error) {
	id, n, ok := ParseSnapshotID(sid)
	if !ok {
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("session: store: snapshot %q: %w", sid, err)
		}
		return nil, fmt.Errorf("session: store: snapshot: %w: %q is not a snapshot id", ErrInvalidID, sid)
	}
	ms, err := s.begin(ctx, "snapshot", id, false)
	if err != nil {
		return nil, err
	}
	defer s.mu.Unlock()
	if ms == nil || n > len(ms.comps) {
		return nil, fmt.Errorf("session: store: snapshot %q: %w", sid, ErrNotFound)
	}
	from := int64(1)
	if n > 1 {
		from = ms.comps[n-2].Through + 1
	}
	for q := from; q <= ms.comps[n-1].Through; q++ {
		if ms.log[q-1].Seq == 0 {
			return nil, fmt.Errorf("session: store: snapshot %q: %w: record %d", sid, ErrExpired, q)
		}
	}
	return ms.history(n-1, ms.comps[n-1].Through), nil
}

// Acquire grants the lease on session id for ttl, unless another holds it.
func (s *Memory) Acquire(ctx context.Context, id string, ttl time.Duration) (Lease, error) {
	ms, err := s.begin(ctx, "acquire", id, true)
	if err != nil {
		return Lease{}, err
	}
	defer s.mu.Unlock()
	now := s.clock()
	if ms.lease.ID != "" && now.Before(ms.lease.Expires) {
		return Lease{}, fmt.Errorf("session: store: acquire %q: %w", id, &LeaseHeldError{Fence: ms.lease.Fence, Expires: ms.lease.Expires})
	}
	ms.fence++
	ms.lease = Lease{ID: NewLeaseID(), Fence: ms.fence, Expires: now.Add(ttl)}
	return ms.lease, nil
}

// Renew extends lease, still held, to ttl from now.
func (s *Memory) Renew(ctx context.Context, id string, lease Lease, ttl time.Duration) (Lease, error) {
	ms, err := s.begin(ctx, "renew", id, true)
	if err != nil {
		return Lease{}, err
	}
	defer s.mu.Unlock()
	now := s.clock()
	if err := CheckLease(ms.lease, lease, now); err != nil {
		return Lease{}, fmt.Errorf("session: store: renew %q: %w", id, err)
	}
	ms.lease.Expires = now.Add(ttl)
	return ms.lease, nil
}

// Release gives up lease if it is still held.
func (s *Memory) Release(ctx context.Context, id string, lease Lease) error {
	ms, err := s.begin(ctx, "release", id, true)
	if errors.Is(err, ErrDeleted) {
		return nil
	}
	if err != nil {
		return err
	}
	defer s.mu.Unlock()
	if ms.lease.ID != "" && ms.lease.ID == lease.ID && ms.lease.Fence == lease.Fence {
		ms.lease.ID = ""
	}
	return nil
}

// SearchText is the text a Searcher matches for m: its content as Text
// reads it, then each tool call as name(arguments) on a line of its own,
// then the string values of those arguments that JSON shows escaped (see
// EscapedArguments), so that a command is found as it ran.
func SearchText(m compact.Message) string {
	text, calls := compact.Text(m), msg.ToolCallText(m)
	if esc := msg.EscapedArguments(m); esc != "" {
		calls += "\n" + esc
	}
	switch {
	case calls == "":
		return text
	case text == "":
		return calls
	}
	return text + "\n" + calls
}

// Search returns the records of session id after after whose SearchText
// contains text, ignoring case, by reading them all (their text folded
// when they were appended).
func (s *Memory) Search(ctx context.Context, id, text string, after int64, limit int) ([]Record, error) {
	ms, err := s.begin(ctx, "search", id, false)
	if err != nil {
		return nil, err
	}
	defer s.mu.Unlock()
	if ms == nil {
		return nil, nil
	}
	want := strings.ToLower(text)
	var out []Record
	for i := min(max(after, 0), int64(len(ms.log))); i < int64(len(ms.log)); i++ {
		if limit > 0 && len(out) == limit {
			break
		}
		if ms.log[i].Seq != 0 && strings.Contains(ms.text[i], want) {
			r := ms.log[i]
			r.Message = cloneMessage(r.Message)
			out = append(out, r)
		}
	}
	return out, nil
}

var (
	_ Store    = (*Memory)(nil)
	_ Leaser   = (*Memory)(nil)
	_ Searcher = (*Memory)(nil)
	_ Spender  = (*Memory)(nil)
	_ Deleter  = (*Memory)(nil)
	_ Expirer  = (*Memory)(nil)
	_ Rewriter = (*Memory)(nil)
)

// cloneMessage returns a copy of m that shares nothing mutable with it.
func cloneMessage(m compact.Message) compact.Message {
	return compact.Clone([]compact.Message{m})[0]
}
