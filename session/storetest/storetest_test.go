package storetest

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/contextkit/compact"
	"github.com/contextkit/compact/session/store"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The suite must catch a broken store: each store below breaks one rule.

type reversedReads struct{ *store.Memory }

func (s reversedReads) Read(ctx context.Context, id string, from, to int64) ([]store.Record, error) {
	recs, err := s.Memory.Read(ctx, id, from, to)
	slices.Reverse(recs)
	return recs, err
}

type fenceBlind struct{ *store.Memory }

func (s fenceBlind) Commit(ctx context.Context, id string, c store.Compaction, _ store.Lease) (int64, error) {
	return s.Memory.Commit(ctx, id, c, store.Lease{})
}

type anyID struct{ *store.Memory }

func (s anyID) Append(ctx context.Context, id string, msgs ...compact.Message) (int64, int, error) {
	if id == "" {
		return 1, 0, nil
	}
	return s.Memory.Append(ctx, id, msgs...)
}

type lossy struct{ *store.Memory }

func (s lossy) Append(ctx context.Context, id string, msgs ...compact.Message) (int64, int, error) {
	if len(msgs) > 1 {
		msgs = msgs[:len(msgs)-1]
	}
	return s.Memory.Append(ctx, id, msgs...)
}

// headBlind never says a compaction happened.
type headBlind struct{ *store.Memory }

func (s headBlind) Append(ctx context.Context, id string, msgs ...compact.Message) (int64, int, error) {
	last, _, err := s.Memory.Append(ctx, id, msgs...)
	return last, 0, err
}

// foldForgetful drops the range a compaction folded.
type foldForgetful struct{ *store.Memory }

func (s foldForgetful) Commit(ctx context.Context, id string, c store.Compaction, l store.Lease) (int64, error) {
	c.FoldedFrom, c.FoldedThrough = 0, 0
	return s.Memory.Commit(ctx, id, c, l)
}

// endBlind says the log ends where the compaction does.
type endBlind struct{ *store.Memory }

func (s endBlind) Commit(ctx context.Context, id string, c store.Compaction, l store.Lease) (int64, error) {
	_, err := s.Memory.Commit(ctx, id, c, l)
	return c.Through, err
}

// overflowing wraps when asked for seqs past the end of int64.
type overflowing struct{ *store.Memory }

func (s overflowing) Read(ctx context.Context, id string, from, to int64) ([]store.Record, error) {
	if to == 0 {
		to = from + 100 // wraps near the top
	}
	return s.Memory.Read(ctx, id, from, to)
}

// forgetful deletes nothing.
type forgetful struct{ *store.Memory }

func (forgetful) Delete(context.Context, string) error { return nil }

// hasty says a delete under another's lease went through.
type hasty struct{ *store.Memory }

func (s hasty) Delete(ctx context.Context, id string) error {
	if err := s.Memory.Delete(ctx, id); !errors.Is(err, store.ErrBusy) {
		return err
	}
	return nil
}

// overzealous expires every record, folded or not.
type overzealous struct{ *store.Memory }

func (s overzealous) Expire(ctx context.Context, r store.Retention) (store.Expired, error) {
	got, err := s.Memory.Expire(ctx, r)
	got.Records++
	return got, err
}

// hoarding never expires an idle session.
type hoarding struct{ *store.Memory }

func (s hoarding) Expire(ctx context.Context, r store.Retention) (store.Expired, error) {
	r.Idle = 0
	return s.Memory.Expire(ctx, r)
}

// careless rewrites nothing, and says it did.
type careless struct{ *store.Memory }

func (careless) Rewrite(context.Context, string, []store.Record) error { return nil }

func TestRulesCatchBrokenStores(t *testing.T) {
	for _, tt := range []struct {
		rule  string
		store store.Store
	}{
		{"append-numbers-densely", reversedReads{store.NewMemory()}},
		{"stale-fence-refused", fenceBlind{store.NewMemory()}},
		{"bad-ids-refused", anyID{store.NewMemory()}},
		{"concurrent-appends", lossy{store.NewMemory()}},
		{"append-reports-the-head", headBlind{store.NewMemory()}},
		{"folded-range-kept", foldForgetful{store.NewMemory()}},
		{"commit-reports-the-log-end", endBlind{store.NewMemory()}},
		{"read-near-the-top", overflowing{store.NewMemory()}},
		{"a-session-notices-another-compaction", headBlind{store.NewMemory()}},
		{"delete-is-whole-and-final", forgetful{store.NewMemory()}},
		{"delete-of-an-unknown-id-is-final", forgetful{store.NewMemory()}},
		{"delete-waits-for-the-lease", hasty{store.NewMemory()}},
		{"expire-drops-only-old-folded-records", overzealous{store.NewMemory()}},
		{"expire-drops-idle-sessions", hoarding{store.NewMemory()}},
		{"rewrite-only-folded-records", careless{store.NewMemory()}},
	} {
		t.Run(tt.rule, func(t *testing.T) {
			for _, r := range rules() {
				if r.name == tt.rule {
					err := r.check(context.Background(), tt.store, "broken")
					assert.Error(t, err, "the rule passed a store that breaks it")
					return
				}
			}
			require.Failf(t, "no such rule", "%q", tt.rule)
		})
	}
}

func TestAuditFindsARecordACompactionLost(t *testing.T) {
	ctx := context.Background()
	st := store.NewMemory()
	_, err := appendAll(ctx, st, "lossy", text("m", 6)...)
	assert.NoError(t, err)
	// The summary stands for records 1-3; record 4 is neither folded nor
	// carried.
	live := append(text("summary", 1), text("m", 6)[4:]...)
	_, err = commitFolded(ctx, st, "lossy", store.Compaction{N: 1, Through: 6, Live: live, FoldedFrom: 1, FoldedThrough: 3}, store.Lease{})
	assert.NoError(t, err)
	err = Audit(ctx, st, "lossy")
	assert.ErrorContains(t, err, "compaction 1")
	assert.ErrorContains(t, err, "[4]")

	_, err = commitFolded(ctx, st, "lossy", store.Compaction{N: 2, Through: 6, Live: live, FoldedFrom: 1, FoldedThrough: 4}, store.Lease{})
	assert.NoError(t, err)
	err = Audit(ctx, st, "lossy")
	assert.ErrorContains(t, err, "compaction 1", "the first compaction's loss is still reported")
	assert.NotContains(t, err.Error(), "compaction 2", "the second accounts for every record")
}
