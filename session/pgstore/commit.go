package pgstore

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/contextkit/compact/models"
	"github.com/contextkit/compact/session/internal/codec"
	"github.com/contextkit/compact/session/store"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// uniqueViolation is Postgres's SQLSTATE for a duplicate key: a compaction
// number committed twice.
const uniqueViolation = "23505"

// locked is a session row read under FOR UPDATE: its lease, the database's
// clock, and its counters.
type locked struct {
	held store.Lease
	now  time.Time
	head head
}

// lock creates session id's row if need be and locks it for the rest of tx;
// a deleted session is store.ErrDeleted.
func (s *Store) lock(ctx context.Context, tx pgx.Tx, id string) (locked, error) {
	if _, err := tx.Exec(ctx, s.q.ensure, id); err != nil {
		return locked{}, err
	}
	var (
		l       locked
		leaseID *string
	)
	var deleted bool
	err := tx.QueryRow(ctx, s.q.lockLease, id).Scan(&leaseID, &l.held.Fence, &l.held.Expires, &l.now,
		&l.head.last, &l.head.n, &l.head.through, &deleted)
	if leaseID != nil {
		l.held.ID = *leaseID
	}
	if err == nil && deleted {
		err = store.ErrDeleted
	}
	return l, err
}

// Commit records c as session id's next compaction, under lease, by the
// database's clock, and returns the number of the log's last record.
func (s *Store) Commit(ctx context.Context, id string, c store.Compaction, lease store.Lease) (int64, error) {
	if err := begin(ctx, "commit", id); err != nil {
		return 0, err
	}
	live, err := codec.Messages(c.Live)
	if err != nil {
		return 0, fmt.Errorf("pgstore: commit %q compaction %d: live history: %w", id, c.N, err)
	}
	spend, err := codec.Spend(c.Spend)
	if err != nil {
		return 0, fmt.Errorf("pgstore: commit %q compaction %d: spend: %w", id, c.N, err)
	}
	var last int64
	err = pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		l, err := s.lock(ctx, tx, id)
		if err != nil {
			return err
		}
		if err := store.CheckLease(l.held, lease, l.now); err != nil {
			return err
		}
		if err := store.CheckCompaction(store.Compaction{N: l.head.n, Through: l.head.through}, c, l.head.last); err != nil {
			return err
		}
		at := c.At
		if at.IsZero() {
			at = l.now
		}
		if _, err := tx.Exec(ctx, s.q.insertCompaction, id, c.N, l.head.through+1, c.Through, string(live), at,
			c.TokensBefore, c.TokensAfter, c.Summarizer, lease.Fence, c.FoldedFrom, c.FoldedThrough, spend); err != nil {
			var pgErr *pgconn.PgError
			if errors.As(err, &pgErr) && pgErr.Code == uniqueViolation {
				return fmt.Errorf("%w: compaction %d exists: %w", store.ErrConflict, c.N, err)
			}
			return err
		}
		last = l.head.last
		_, err = tx.Exec(ctx, s.q.setHead, id, c.N, c.Through)
		return err
	})
	if err != nil {
		return 0, fail(ctx, fmt.Sprintf("commit compaction %d of", c.N), id, err)
	}
	return last, nil
}

// Compactions returns session id's compactions, oldest first.
func (s *Store) Compactions(ctx context.Context, id string) ([]store.Compaction, error) {
	if err := begin(ctx, "compactions", id); err != nil {
		return nil, err
	}
	if err := s.alive(ctx, s.pool, id); err != nil {
		return nil, fail(ctx, "compactions", id, err)
	}
	rows, err := s.pool.Query(ctx, s.q.compactions, id)
	if err != nil {
		return nil, fail(ctx, "compactions", id, err)
	}
	defer rows.Close()
	var out []store.Compaction
	for rows.Next() {
		var (
			c           store.Compaction
			live, spend string
		)
		if err := rows.Scan(&c.N, &c.From, &c.Through, &live, &c.At, &c.TokensBefore, &c.TokensAfter, &c.Summarizer, &c.Fence,
			&c.FoldedFrom, &c.FoldedThrough, &spend); err != nil {
			return nil, fmt.Errorf("pgstore: compactions: session %q compaction %d: %w: %v", id, len(out)+1, store.ErrCorrupt, err)
		}
		if c.Live, err = codec.DecodeMessages([]byte(live)); err != nil {
			return nil, fmt.Errorf("pgstore: compactions: session %q compaction %d: %w: %v", id, c.N, store.ErrCorrupt, err)
		}
		if c.Spend, err = codec.DecodeSpend(spend); err != nil {
			return nil, fmt.Errorf("pgstore: compactions: session %q compaction %d: spend: %w: %v", id, c.N, store.ErrCorrupt, err)
		}
		out = append(out, c)
	}
	if err := rows.Err(); err != nil {
		return nil, fail(ctx, "compactions", id, err)
	}
	return out, nil
}

// Spend returns the Spend of session id's latest compaction, the zero
// Spend when it has none.
func (s *Store) Spend(ctx context.Context, id string) (models.Spend, error) {
	if err := begin(ctx, "spend", id); err != nil {
		return models.Spend{}, err
	}
	if err := s.alive(ctx, s.pool, id); err != nil {
		return models.Spend{}, fail(ctx, "spend", id, err)
	}
	var text string
	err := s.pool.QueryRow(ctx, s.q.spend, id).Scan(&text)
	if err != nil && !errors.Is(err, pgx.ErrNoRows) {
		return models.Spend{}, fail(ctx, "spend", id, err)
	}
	spend, err := codec.DecodeSpend(text)
	if err != nil {
		return models.Spend{}, fmt.Errorf("pgstore: spend: session %q: %w: %v", id, store.ErrCorrupt, err)
	}
	return spend, nil
}

// Acquire grants the lease on session id for ttl, by the database's clock,
// unless another holds it.
func (s *Store) Acquire(ctx context.Context, id string, ttl time.Duration) (store.Lease, error) {
	if err := begin(ctx, "acquire", id); err != nil {
		return store.Lease{}, err
	}
	var granted store.Lease
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		l, err := s.lock(ctx, tx, id)
		if err != nil {
			return err
		}
		if l.held.ID != "" && l.now.Before(l.held.Expires) {
			return &store.LeaseHeldError{Fence: l.held.Fence, Expires: l.held.Expires}
		}
		granted.ID = store.NewLeaseID()
		return tx.QueryRow(ctx, s.q.grant, id, granted.ID, ttl.Microseconds()).Scan(&granted.Fence, &granted.Expires)
	})
	if err != nil {
		return store.Lease{}, fail(ctx, "acquire", id, err)
	}
	return granted, nil
}

// Renew extends lease, still held, to ttl from now by the database's clock.
func (s *Store) Renew(ctx context.Context, id string, lease store.Lease, ttl time.Duration) (store.Lease, error) {
	if err := begin(ctx, "renew", id); err != nil {
		return store.Lease{}, err
	}
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		l, err := s.lock(ctx, tx, id)
		if err != nil {
			return err
		}
		if err := store.CheckLease(l.held, lease, l.now); err != nil {
			return err
		}
		return tx.QueryRow(ctx, s.q.renew, id, ttl.Microseconds()).Scan(&lease.Expires)
	})
	if err != nil {
		return store.Lease{}, fail(ctx, "renew", id, err)
	}
	return lease, nil
}

// Release gives up lease if it is still held.
func (s *Store) Release(ctx context.Context, id string, lease store.Lease) error {
	if err := begin(ctx, "release", id); err != nil {
		return err
	}
	if _, err := s.pool.Exec(ctx, s.q.release, id, lease.ID, lease.Fence); err != nil {
		return fail(ctx, "release", id, err)
	}
	return nil
}
