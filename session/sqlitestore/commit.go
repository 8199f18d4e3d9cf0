package sqlitestore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/contextkit/compact/models"
	"github.com/contextkit/compact/session/internal/codec"
	"github.com/contextkit/compact/session/store"
)

// ensure creates session id's row if there is none.
func ensure(ctx context.Context, tx *sql.Tx, id string) error {
	_, err := tx.ExecContext(ctx, `INSERT INTO sessions (id) VALUES (?) ON CONFLICT (id) DO NOTHING`, id)
	return err
}

// readLease reads session id's latest grant (ID "" once released).
func readLease(ctx context.Context, tx *sql.Tx, id string) (store.Lease, error) {
	var (
		leaseID sql.NullString
		l       store.Lease
		expires int64
	)
	err := tx.QueryRowContext(ctx, `SELECT lease_id, lease_fence, lease_expires FROM sessions WHERE id = ?`, id).
		Scan(&leaseID, &l.Fence, &expires)
	if errors.Is(err, sql.ErrNoRows) {
		return store.Lease{}, nil
	}
	l.ID, l.Expires = leaseID.String, time.Unix(0, expires)
	return l, err
}

// Commit records c as session id's next compaction, under lease, and
// returns the number of the log's last record.
func (s *Store) Commit(ctx context.Context, id string, c store.Compaction, lease store.Lease) (int64, error) {
	if err := begin(ctx, "commit", id); err != nil {
		return 0, err
	}
	live, err := codec.Messages(c.Live)
	if err != nil {
		return 0, fmt.Errorf("sqlitestore: commit %q compaction %d: live history: %w", id, c.N, err)
	}
	spend, err := codec.Spend(c.Spend)
	if err != nil {
		return 0, fmt.Errorf("sqlitestore: commit %q compaction %d: spend: %w", id, c.N, err)
	}
	var last int64
	err = s.write(ctx, func(ctx context.Context, tx *sql.Tx) error {
		if err := alive(ctx, tx, id); err != nil {
			return err
		}
		if err := ensure(ctx, tx, id); err != nil {
			return err
		}
		held, err := readLease(ctx, tx, id)
		if err != nil {
			return err
		}
		now := s.now()
		if err := store.CheckLease(held, lease, now); err != nil {
			return err
		}
		h, err := readHead(ctx, tx, id)
		if err != nil {
			return err
		}
		if err := store.CheckCompaction(store.Compaction{N: h.n, Through: h.through}, c, h.last); err != nil {
			return err
		}
		at := c.At
		if at.IsZero() {
			at = now
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO compactions
			(session, n, from_seq, through_seq, live, at, tokens_before, tokens_after, summarizer, fence,
			 folded_from, folded_through, spend)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			id, c.N, h.through+1, c.Through, string(live), at.UnixNano(), c.TokensBefore, c.TokensAfter, c.Summarizer, lease.Fence,
			c.FoldedFrom, c.FoldedThrough, spend); err != nil {
			return err
		}
		last = h.last
		_, err = tx.ExecContext(ctx, `UPDATE sessions SET compactions = ?, live_through = ? WHERE id = ?`, c.N, c.Through, id)
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("sqlitestore: commit %q compaction %d: %w", id, c.N, err)
	}
	return last, nil
}

// Compactions returns session id's compactions, oldest first.
func (s *Store) Compactions(ctx context.Context, id string) ([]store.Compaction, error) {
	if err := begin(ctx, "compactions", id); err != nil {
		return nil, err
	}
	var out []store.Compaction
	err := s.read(ctx, func(tx *sql.Tx) (err error) {
		if err := alive(ctx, tx, id); err != nil {
			return err
		}
		rows, err := tx.QueryContext(ctx, `SELECT n, from_seq, through_seq, live, at, tokens_before, tokens_after, summarizer, fence,
			folded_from, folded_through, spend
			FROM compactions WHERE session = ? ORDER BY n`, id)
		if err != nil {
			return err
		}
		defer closeRows(rows, &err)
		for rows.Next() {
			var (
				c     store.Compaction
				live  []byte
				at    int64
				spend string
			)
			if err := rows.Scan(&c.N, &c.From, &c.Through, &live, &at, &c.TokensBefore, &c.TokensAfter, &c.Summarizer, &c.Fence,
				&c.FoldedFrom, &c.FoldedThrough, &spend); err != nil {
				return fmt.Errorf("session %q compaction %d: %w: %v", id, len(out)+1, store.ErrCorrupt, err)
			}
			if c.Live, err = codec.DecodeMessages(live); err != nil {
				return fmt.Errorf("session %q compaction %d: %w: %v", id, c.N, store.ErrCorrupt, err)
			}
			if c.Spend, err = codec.DecodeSpend(spend); err != nil {
				return fmt.Errorf("session %q compaction %d: spend: %w: %v", id, c.N, store.ErrCorrupt, err)
			}
			c.At = time.Unix(0, at)
			out = append(out, c)
		}
		return rows.Err()
	})
	if err != nil {
		return nil, fmt.Errorf("sqlitestore: compactions %q: %w", id, err)
	}
	return out, nil
}

// Spend returns the Spend of session id's latest compaction, the zero
// Spend when it has none.
func (s *Store) Spend(ctx context.Context, id string) (models.Spend, error) {
	if err := begin(ctx, "spend", id); err != nil {
		return models.Spend{}, err
	}
	var text string
	err := s.read(ctx, func(tx *sql.Tx) error {
		if err := alive(ctx, tx, id); err != nil {
			return err
		}
		err := tx.QueryRowContext(ctx, `SELECT spend FROM compactions WHERE session = ? ORDER BY n DESC LIMIT 1`, id).Scan(&text)
		if errors.Is(err, sql.ErrNoRows) {
			return nil
		}
		return err
	})
	if err != nil {
		return models.Spend{}, fmt.Errorf("sqlitestore: spend %q: %w", id, err)
	}
	spend, err := codec.DecodeSpend(text)
	if err != nil {
		return models.Spend{}, fmt.Errorf("sqlitestore: spend %q: %w: %v", id, store.ErrCorrupt, err)
	}
	return spend, nil
}

// Acquire grants the lease on session id for ttl, unless another holds it.
func (s *Store) Acquire(ctx context.Context, id string, ttl time.Duration) (store.Lease, error) {
	if err := begin(ctx, "acquire", id); err != nil {
		return store.Lease{}, err
	}
	var granted store.Lease
	err := s.write(ctx, func(ctx context.Context, tx *sql.Tx) error {
		if err := alive(ctx, tx, id); err != nil {
			return err
		}
		if err := ensure(ctx, tx, id); err != nil {
			return err
		}
		held, err := readLease(ctx, tx, id)
		if err != nil {
			return err
		}
		now := s.now()
		if held.ID != "" && now.Before(held.Expires) {
			return &store.LeaseHeldError{Fence: held.Fence, Expires: held.Expires}
		}
		granted = store.Lease{ID: store.NewLeaseID(), Fence: held.Fence + 1, Expires: now.Add(ttl)}
		_, err = tx.ExecContext(ctx, `UPDATE sessions SET lease_id = ?, lease_fence = ?, lease_expires = ? WHERE id = ?`,
			granted.ID, granted.Fence, granted.Expires.UnixNano(), id)
		return err
	})
	if err != nil {
		return store.Lease{}, fmt.Errorf("sqlitestore: acquire %q: %w", id, err)
	}
	return granted, nil
}

// Renew extends lease, still held, to ttl from now.
func (s *Store) Renew(ctx context.Context, id string, lease store.Lease, ttl time.Duration) (store.Lease, error) {
	if err := begin(ctx, "renew", id); err != nil {
		return store.Lease{}, err
	}
	err := s.write(ctx, func(ctx context.Context, tx *sql.Tx) error {
		if err := alive(ctx, tx, id); err != nil {
			return err
		}
		held, err := readLease(ctx, tx, id)
		if err != nil {
			return err
		}
		now := s.now()
		if err := store.CheckLease(held, lease, now); err != nil {
			return err
		}
		lease.Expires = now.Add(ttl)
		_, err = tx.ExecContext(ctx, `UPDATE sessions SET lease_expires = ? WHERE id = ?`, lease.Expires.UnixNano(), id)
		return err
	})
	if err != nil {
		return store.Lease{}, fmt.Errorf("sqlitestore: renew %q: %w", id, err)
	}
	return lease, nil
}

// Release gives up lease if it is still held.
func (s *Store) Release(ctx context.Context, id string, lease store.Lease) error {
	if err := begin(ctx, "release", id); err != nil {
		return err
	}
	err := s.write(ctx, func(ctx context.Context, tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `UPDATE sessions SET lease_id = NULL WHERE id = ? AND lease_id = ? AND lease_fence = ?`,
			id, lease.ID, lease.Fence)
		return err
	})
	if err != nil {
		return fmt.Errorf("sqlitestore: release %q: %w", id, err)
	}
	return nil
}
