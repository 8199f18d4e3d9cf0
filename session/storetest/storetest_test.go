package storetest

import (
	"context"
	"slices"
	"testing"

	"github.com/contextkit/compact"
	"github.com/contextkit/compact/session"
	"github.com/stretchr/testify/assert"
)

// The suite must catch a broken store: each store below breaks one rule.

type reversedReads struct{ *session.MemoryStore }

func (s reversedReads) Read(ctx context.Context, id string, from, to int64) ([]session.Record, error) {
	recs, err := s.MemoryStore.Read(ctx, id, from, to)
	slices.Reverse(recs)
	return recs, err
}

type fenceBlind struct{ *session.MemoryStore }

func (s fenceBlind) Commit(ctx context.Context, id string, c session.Compaction, _ session.Lease) error {
	return s.MemoryStore.Commit(ctx, id, c, session.Lease{})
}

type anyID struct{ *session.MemoryStore }

func (s anyID) Append(ctx context.Context, id string, msgs ...compact.Message) (int64, error) {
	if id == "" {
		return 1, nil
	}
	return s.MemoryStore.Append(ctx, id, msgs...)
}

type lossy struct{ *session.MemoryStore }

func (s lossy) Append(ctx context.Context, id string, msgs ...compact.Message) (int64, error) {
	if len(msgs) > 1 {
		msgs = msgs[:len(msgs)-1]
	}
	return s.MemoryStore.Append(ctx, id, msgs...)
}

func TestRulesCatchBrokenStores(t *testing.T) {
	for _, tt := range []struct {
		rule  string
		store session.Store
	}{
		{"append-numbers-densely", reversedReads{session.NewMemoryStore()}},
		{"stale-fence-refused", fenceBlind{session.NewMemoryStore()}},
		{"bad-ids-refused", anyID{session.NewMemoryStore()}},
		{"concurrent-appends", lossy{session.NewMemoryStore()}},
	} {
		t.Run(tt.rule, func(t *testing.T) {
			for _, r := range rules() {
				if r.name == tt.rule {
					err := r.check(context.Background(), tt.store, "broken")
					assert.Error(t, err, "the rule passed a store that breaks it")
					return
				}
			}
			t.Fatalf("no rule %q", tt.rule)
		})
	}
}
