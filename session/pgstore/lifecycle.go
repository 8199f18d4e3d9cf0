package pgstore

import (
	"context"
	"errors"
	"fmt"

	"github.com/contextkit/compact/session/internal/codec"
	"github.com/contextkit/compact/session/store"
	"github.com/jackc/pgx/v5"
)

// alive returns store.ErrDeleted for a deleted session, nil for any
// other.
func (s *Store) alive(ctx context.Context, q querier, id string) error {
	var deleted bool
	if err := q.QueryRow(ctx, s.q.alive, id).Scan(&deleted); err != nil {
		return err
	}
	if deleted {
		return store.ErrDeleted
	}
	return nil
}

// Delete deletes session id whole in one transaction (its records and
// their rows in the search table, its compactions, its spend and its
// lease), leaving its row as a tombstone, unless another holder's lease on
// it is unexpired by the database's clock. Postgres reuses the space once
// autovacuum has been by; VACUUM FULL gives it back to the file system.
func (s *Store) Delete(ctx context.Context, id string) error {
	if err := begin(ctx, "delete", id); err != nil {
		return err
	}
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		l, err := s.lock(ctx, tx, id)
		if errors.Is(err, store.ErrDeleted) {
			return nil
		}
		if err != nil {
			return err
		}
		if l.held.ID != "" && l.now.Before(l.held.Expires) {
			return &store.LeaseHeldError{Fence: l.held.Fence, Expires: l.held.Expires}
		}
		_, err = tx.Exec(ctx, s.q.deleteSession, id)
		return err
	})
	if err != nil {
		return fail(ctx, "delete", id, err)
	}
	return nil
}

// Expire deletes the folded records older than r.Folded and the sessions
// idle past r.Idle, by the database's clock, a transaction per session.
func (s *Store) Expire(ctx context.Context, r store.Retention) (store.Expired, error) {
	var out store.Expired
	if err := ctx.Err(); err != nil {
		return out, fmt.Errorf("pgstore: expire: %w", err)
	}
	if r.Folded <= 0 && r.Idle <= 0 {
		return out, nil
	}
	rows, err := s.pool.Query(ctx, s.q.liveSessions, r.Prefix)
	if err != nil {
		return out, fail(ctx, "expire", "", err)
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return out, fail(ctx, "expire", "", err)
	}
	for _, id := range ids {
		var (
			records int64
			idle    bool
		)
		err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
			l, err := s.lock(ctx, tx, id)
			if errors.Is(err, store.ErrDeleted) {
				return nil // deleted meanwhile
			}
			if err != nil {
				return err
			}
			if r.Idle > 0 && !(l.held.ID != "" && l.now.Before(l.held.Expires)) {
				var active = l.now
				if err := tx.QueryRow(ctx, s.q.activity, id).Scan(&active); err != nil {
					return err
				}
				if !active.After(l.now.Add(-r.Idle)) {
					idle = true
					_, err := tx.Exec(ctx, s.q.deleteSession, id)
					return err
				}
			}
			if r.Folded <= 0 {
				return nil
			}
			return tx.QueryRow(ctx, s.q.expireFolded, id, l.now.Add(-r.Folded)).Scan(&records)
		})
		if err != nil {
			return out, fail(ctx, "expire", id, err)
		}
		out.Records += records
		if idle {
			out.Sessions++
		}
	}
	return out, nil
}

// Rewrite replaces the messages of folded records of session id, and
// their rows in the search table, in one transaction.
func (s *Store) Rewrite(ctx context.Context, id string, recs []store.Record) error {
	if err := begin(ctx, "rewrite", id); err != nil {
		return err
	}
	seqs := make([]int64, len(recs))
	bodies := make([]string, len(recs))
	var pieces searchRows // the pieces of the records in the search table
	for i, r := range recs {
		b, err := codec.Message(i, r.Message)
		if err != nil {
			return fmt.Errorf("pgstore: rewrite %q: %w", id, err)
		}
		seqs[i], bodies[i] = r.Seq, string(b)
		pieces.add(r.Seq, searchText(r.Message))
	}
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		if _, err := s.lock(ctx, tx, id); err != nil {
			return err
		}
		var unfolded *int64
		if err := tx.QueryRow(ctx, s.q.unfolded, id, seqs).Scan(&unfolded); err != nil {
			return err
		}
		if unfolded != nil {
			return fmt.Errorf("%w: record %d is not folded", store.ErrInvalidRange, *unfolded)
		}
		_, err := tx.Exec(ctx, s.q.rewrite,
			id, seqs, bodies, pieces.seqs, pieces.texts, pieces.parts)
		return err
	})
	if err != nil {
		return fail(ctx, "rewrite", id, err)
	}
	return nil
}

var (
	_ store.Deleter  = (*Store)(nil)
	_ store.Expirer  = (*Store)(nil)
	_ store.Rewriter = (*Store)(nil)
)
