package storetest

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/contextkit/compact"
	"github.com/contextkit/compact/session"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The suite must catch a broken store: each store below breaks one rule.

type reversedReads struct{ *session.MemoryStore }

func (s reversedReads) Read(ctx context.Context, id string, from, to int64) ([]session.Record, error) {
	recs, err := s.MemoryStore.Read(ctx, id, from, to)
	slices.Reverse(recs)
	return recs, err
}

type fenceBlind struct{ *session.MemoryStore }

func (s fenceBlind) Commit(ctx context.Context, id string, c session.Compaction, _ session.Lease) (int64, error) {
	return s.MemoryStore.Commit(ctx, id, c, session.Lease{})
}

type anyID struct{ *session.MemoryStore }

func (s anyID) Append(ctx context.Context, id string, msgs ...compact.Message) (int64, int, error) {
	if id == "" {
		return 1, 0, nil
	}
	return s.MemoryStore.Append(ctx, id, msgs...)
}

type lossy struct{ *session.MemoryStore }

func (s lossy) Append(ctx context.Context, id string, msgs ...compact.Message) (int64, int, error) {
	if len(msgs) > 1 {
		msgs = msgs[:len(msgs)-1]
	}
	return s.MemoryStore.Append(ctx, id, msgs...)
}

// headBlind never says a compaction happened.
type headBlind struct{ *session.MemoryStore }

func (s headBlind) Append(ctx context.Context, id string, msgs ...compact.Message) (int64, int, error) {
	last, _, err := s.MemoryStore.Append(ctx, id, msgs...)
	return last, 0, err
}

// foldForgetful drops the range a compaction folded.
type foldForgetful struct{ *session.MemoryStore }

func (s foldForgetful) Commit(ctx context.Context, id string, c session.Compaction, l session.Lease) (int64, error) {
	c.FoldedFrom, c.FoldedThrough = 0, 0
	return s.MemoryStore.Commit(ctx, id, c, l)
}

// endBlind says the log ends where the compaction does.
type endBlind struct{ *session.MemoryStore }

func (s endBlind) Commit(ctx context.Context, id string, c session.Compaction, l session.Lease) (int64, error) {
	_, err := s.MemoryStore.Commit(ctx, id, c, l)
	return c.Through, err
}

// overflowing wraps when asked for seqs past the end of int64.
type overflowing struct{ *session.MemoryStore }

func (s overflowing) Read(ctx context.Context, id string, from, to int64) ([]session.Record, error) {
	if to == 0 {
		to = from + 100 // wraps near the top
	}
	return s.MemoryStore.Read(ctx, id, from, to)
}

// forgetful deletes nothing.
type forgetful struct{ *session.MemoryStore }

func (forgetful) Delete(context.Context, string) error { return nil }

// hasty says a delete under another's lease went through.
type hasty struct{ *session.MemoryStore }

func (s hasty) Delete(ctx context.Context, id string) error {
	if err := s.MemoryStore.Delete(ctx, id); !errors.Is(err, session.ErrBusy) {
		return err
	}
	return nil
}

// overzealous expires every record, folded or not.
type overzealous struct{ *session.MemoryStore }

func (s overzealous) Expire(ctx context.Context, r session.Retention) (session.Expired, error) {
	got, err := s.MemoryStore.Expire(ctx, r)
	got.Records++
	return got, err
}

// careless rewrites nothing, and says it did.
type careless struct{ *session.MemoryStore }

func (careless) Rewrite(context.Context, string, []session.Record) error { return nil }

func TestRulesCatchBrokenStores(t *testing.T) {
	for _, tt := range []struct {
		rule  string
		store session.Store
	}{
		{"append-numbers-densely", reversedReads{session.NewMemoryStore()}},
		{"stale-fence-refused", fenceBlind{session.NewMemoryStore()}},
		{"bad-ids-refused", anyID{session.NewMemoryStore()}},
		{"concurrent-appends", lossy{session.NewMemoryStore()}},
		{"append-reports-the-head", headBlind{session.NewMemoryStore()}},
		{"folded-range-kept", foldForgetful{session.NewMemoryStore()}},
		{"commit-reports-the-log-end", endBlind{session.NewMemoryStore()}},
		{"read-near-the-top", overflowing{session.NewMemoryStore()}},
		{"a-session-notices-another-compaction", headBlind{session.NewMemoryStore()}},
		{"delete-is-whole-and-final", forgetful{session.NewMemoryStore()}},
		{"delete-of-an-unknown-id-is-final", forgetful{session.NewMemoryStore()}},
		{"delete-waits-for-the-lease", hasty{session.NewMemoryStore()}},
		{"expire-drops-only-old-folded-records", overzealous{session.NewMemoryStore()}},
		{"rewrite-only-folded-records", careless{session.NewMemoryStore()}},
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
	st := session.NewMemoryStore()
	_, err := appendAll(ctx, st, "lossy", text("m", 6)...)
	assert.NoError(t, err)
	// The summary stands for records 1-3; record 4 is neither folded nor
	// carried.
	live := append(text("summary", 1), text("m", 6)[4:]...)
	_, err = commitFolded(ctx, st, "lossy", session.Compaction{N: 1, Through: 6, Live: live, FoldedFrom: 1, FoldedThrough: 3}, session.Lease{})
	assert.NoError(t, err)
	err = Audit(ctx, st, "lossy")
	assert.ErrorContains(t, err, "compaction 1")
	assert.ErrorContains(t, err, "[4]")

	_, err = commitFolded(ctx, st, "lossy", session.Compaction{N: 2, Through: 6, Live: live, FoldedFrom: 1, FoldedThrough: 4}, session.Lease{})
	assert.NoError(t, err)
	err = Audit(ctx, st, "lossy")
	assert.ErrorContains(t, err, "compaction 1", "the first compaction's loss is still reported")
	assert.NotContains(t, err.Error(), "compaction 2", "the second accounts for every record")
}
