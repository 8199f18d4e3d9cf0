package store

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
	if err := CheckID(id); err != nil {
		return fmt.Errorf("store: delete: %w", err)
	}
	d, ok := st.(Deleter)
	if !ok {
		return fmt.Errorf("store: delete %q: %w: the store %T cannot delete", id, errors.ErrUnsupported, st)
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
			return fmt.Errorf("store: delete %q: %w (%w)", id, ctx.Err(), err)
		case <-t.C:
		}
	}
}
