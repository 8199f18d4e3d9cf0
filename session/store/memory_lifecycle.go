package store

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"
)

// Delete deletes session id whole, leaving a tombstone, unless another
// holder's lease on it is unexpired.
func (s *Memory) Delete(ctx context.Context, id string) error {
	ms, err := s.begin(ctx, "delete", id, true)
	if errors.Is(err, ErrDeleted) {
		return nil
	}
	if err != nil {
		return err
	}
	defer s.mu.Unlock()
	if ms.lease.ID != "" && s.clock().Before(ms.lease.Expires) {
		return fmt.Errorf("session: store: delete %q: %w", id, &LeaseHeldError{Fence: ms.lease.Fence, Expires: ms.lease.Expires})
	}
	*ms = memSession{deleted: true}
	return nil
}

// Expire deletes the folded records older than r.Folded and the sessions
// idle past r.Idle.
func (s *Memory) Expire(ctx context.Context, r Retention) (Expired, error) {
	if err := ctx.Err(); err != nil {
		return Expired{}, fmt.Errorf("session: store: expire: %w", err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.clock()
	ids := make([]string, 0, len(s.sessions))
	for id := range s.sessions {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	var out Expired
	for _, id := range ids {
		ms := s.sessions[id]
		if ms.deleted || !strings.HasPrefix(id, r.Prefix) {
			continue
		}
		if r.Idle > 0 && !ms.activeAt().After(now.Add(-r.Idle)) && !(ms.lease.ID != "" && now.Before(ms.lease.Expires)) {
			*ms = memSession{deleted: true}
			out.Sessions++
			continue
		}
		if r.Folded <= 0 {
			continue
		}
		cutoff := now.Add(-r.Folded)
		for i, rec := range ms.log {
			if rec.Seq != 0 && rec.At.Before(cutoff) && ms.folded(rec.Seq) {
				ms.log[i], ms.text[i] = Record{}, ""
				out.Records++
			}
		}
	}
	return out, nil
}

// activeAt is when the session last logged a record or a compaction.
func (ms *memSession) activeAt() (at time.Time) {
	for i := len(ms.log) - 1; i >= 0; i-- {
		if ms.log[i].Seq != 0 {
			at = ms.log[i].At
			break
		}
	}
	if n := len(ms.comps); n > 0 && ms.comps[n-1].At.After(at) {
		at = ms.comps[n-1].At
	}
	return at
}

// folded reports whether a compaction of the session folded record seq.
func (ms *memSession) folded(seq int64) bool {
	for _, c := range ms.comps {
		if c.FoldedFrom > 0 && c.FoldedFrom <= seq && seq <= c.FoldedThrough {
			return true
		}
	}
	return false
}

// Rewrite replaces the messages of folded records of session id.
func (s *Memory) Rewrite(ctx context.Context, id string, recs []Record) error {
	texts := make([]string, len(recs))
	for i, r := range recs {
		texts[i] = strings.ToLower(SearchText(r.Message))
	}
	ms, err := s.begin(ctx, "rewrite", id, false)
	if err != nil {
		return err
	}
	defer s.mu.Unlock()
	for _, r := range recs {
		if ms == nil || r.Seq < 1 || r.Seq > int64(len(ms.log)) || !ms.folded(r.Seq) {
			return fmt.Errorf("session: store: rewrite %q: %w: record %d is not folded", id, ErrInvalidRange, r.Seq)
		}
	}
	for i, r := range recs {
		if ms.log[r.Seq-1].Seq == 0 {
			continue // expired
		}
		ms.log[r.Seq-1].Message = cloneMessage(r.Message)
		ms.text[r.Seq-1] = texts[i]
	}
	return nil
}
