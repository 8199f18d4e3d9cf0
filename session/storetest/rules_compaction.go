package storetest

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"sort"

	"github.com/contextkit/compact"
	"github.com/contextkit/compact/models"
	"github.com/contextkit/compact/session/store"
)

var idRules = []rule{
	{
		name:        "bad-ids-refused",
		explanation: "a store takes exactly the ids session.Open takes: an empty id, invalid UTF-8, a control character or a snapshot id is refused with ErrInvalidID by every method, so a snapshot can never be written as a live session",
		check: func(ctx context.Context, st store.Store, id string) error {
			for _, bad := range []string{"", "a\nb", "tab\there", "bad\xffutf8", store.SnapshotID(id, 1)} {
				errs := callAll(ctx, st, bad)
				delete(errs, "Snapshot") // takes a snapshot id; checked below
				for _, name := range sortedKeys(errs) {
					if !errors.Is(errs[name], store.ErrInvalidID) {
						return fmt.Errorf("%s(%q): %v, want an error wrapping ErrInvalidID", name, bad, errs[name])
					}
				}
			}
			for _, bad := range []string{id, "", store.SnapshotMarker + "1", id + store.SnapshotMarker + "0"} {
				if _, err := st.Snapshot(ctx, bad); !errors.Is(err, store.ErrInvalidID) {
					return fmt.Errorf("store.Snapshot(%q): %v, want an error wrapping ErrInvalidID", bad, err)
				}
			}
			return nil
		},
	},
}

var compactionRules = []rule{
	{
		name:        "spend-is-kept",
		explanation: "a compaction's Spend (what the session had been billed) comes back from Compactions as it was committed, and a Spender reads the latest one's without reading the compactions, so a Session that restarts keeps the bill; a session without compactions has spent nothing yet",
		spender:     true,
		check: func(ctx context.Context, st store.Store, id string) error {
			sp := st.(store.Spender)
			if got, err := sp.Spend(ctx, id); err != nil || !reflect.DeepEqual(got, models.Spend{}) {
				return fmt.Errorf("store.Spend of a new session: %+v, %v; want the zero Spend", got, err)
			}
			if _, _, err := st.Append(ctx, id, text("a", 4)...); err != nil {
				return err
			}
			eq := 1250.5
			first := models.Spend{Requests: 3, Billed: models.Tokens{CacheRead: 900, CacheWrite: 100, Output: 30},
				Compactions: map[string]int{"summary": 1}, Equivalent: &eq}
			second := first.Add(models.Spend{Requests: 1, SummarizerCalls: 1, Summarizer: models.Tokens{Uncached: 50, Output: 5},
				Compactions: map[string]int{"summary": 1, "idle": 1}})
			for i, s := range []models.Spend{first, second} {
				if _, err := commitFolded(ctx, st, id, store.Compaction{N: i + 1, Through: int64(2 + i), Live: text("s", 1), Spend: s}, store.Lease{}); err != nil {
					return err
				}
			}
			if got, err := sp.Spend(ctx, id); err != nil || !reflect.DeepEqual(got, second) {
				return fmt.Errorf("store.Spend: %+v, %v; want the latest compaction's %+v", got, err, second)
			}
			comps, err := st.Compactions(ctx, id)
			if err != nil || len(comps) != 2 || !reflect.DeepEqual(comps[0].Spend, first) || !reflect.DeepEqual(comps[1].Spend, second) {
				return fmt.Errorf("store.Compactions did not keep each Spend (%v)", err)
			}
			return nil
		},
	},
	{
		name:        "append-reports-the-head",
		explanation: "Append returns the log's last number and the latest compaction's, read together: a Session compares them with its own view to notice, in the same round trip, that another process appended or compacted, and would otherwise go on from a stale history",
		check: func(ctx context.Context, st store.Store, id string) error {
			if last, n, err := st.Append(ctx, id, text("a", 4)...); err != nil || last != 4 || n != 0 {
				return fmt.Errorf("store.Append before any compaction: last %d, compaction %d, %v; want 4, 0", last, n, err)
			}
			if err := commit(ctx, st, id, 1, 3, text("summary", 1), store.Lease{}); err != nil {
				return err
			}
			if last, n, err := st.Append(ctx, id, text("b", 2)...); err != nil || last != 6 || n != 1 {
				return fmt.Errorf("store.Append after compaction 1: last %d, compaction %d, %v; want 6, 1", last, n, err)
			}
			if last, n, err := st.Append(ctx, id); err != nil || last != 6 || n != 1 {
				return fmt.Errorf("an empty Append: last %d, compaction %d, %v; want 6, 1 and nothing appended", last, n, err)
			}
			return nil
		},
	},
	{
		name:        "commit-reports-the-log-end",
		explanation: "Commit returns the number of the log's last record as it committed, so a Session installs the compacted history with what others appended meanwhile, and reads the log again only when they did",
		check: func(ctx context.Context, st store.Store, id string) error {
			if _, err := appendAll(ctx, st, id, text("m", 5)...); err != nil {
				return err
			}
			if last, err := commitFolded(ctx, st, id, store.Compaction{N: 1, Through: 3, Live: text("s", 1)}, store.Lease{}); err != nil || last != 5 {
				return fmt.Errorf("store.Commit of records 1-3 on a log of 5: last %d, %v; want 5", last, err)
			}
			if _, err := appendAll(ctx, st, id, text("n", 2)...); err != nil {
				return err
			}
			if last, err := commitFolded(ctx, st, id, store.Compaction{N: 2, Through: 7}, store.Lease{}); err != nil || last != 7 {
				return fmt.Errorf("store.Commit of records to 7 on a log of 7: last %d, %v; want 7", last, err)
			}
			return nil
		},
	},
	{
		name:        "folded-range-kept",
		explanation: "a compaction records which records its summaries stand for, so anyone can audit from the store alone that nothing it covers was lost; a range that cannot be is refused with ErrInvalidRange and changes nothing",
		check: func(ctx context.Context, st store.Store, id string) error {
			if _, err := appendAll(ctx, st, id, text("m", 8)...); err != nil {
				return err
			}
			for _, bad := range []struct{ from, to int64 }{{0, 3}, {4, 3}, {2, 7}, {-1, 2}, {3, 0}} {
				c := store.Compaction{N: 1, Through: 6, Live: text("s", 1), FoldedFrom: bad.from, FoldedThrough: bad.to}
				if _, err := st.Commit(ctx, id, c, store.Lease{}); !errors.Is(err, store.ErrInvalidRange) {
					return fmt.Errorf("store.Commit folding records %d to %d of 6: %v, want an error wrapping ErrInvalidRange", bad.from, bad.to, err)
				}
			}
			if comps, err := st.Compactions(ctx, id); err != nil || len(comps) != 0 {
				return fmt.Errorf("store.Compactions after refused commits: %d, %v; want none", len(comps), err)
			}
			if _, err := commitFolded(ctx, st, id, store.Compaction{N: 1, Through: 6, Live: text("s", 1), FoldedFrom: 2, FoldedThrough: 5}, store.Lease{}); err != nil {
				return err
			}
			if _, err := commitFolded(ctx, st, id, store.Compaction{N: 2, Through: 8, Live: text("t", 2)}, store.Lease{}); err != nil {
				return err
			}
			comps, err := st.Compactions(ctx, id)
			if err != nil || len(comps) != 2 {
				return fmt.Errorf("store.Compactions: %d, %v; want 2", len(comps), err)
			}
			if got := [4]int64{comps[0].FoldedFrom, comps[0].FoldedThrough, comps[1].FoldedFrom, comps[1].FoldedThrough}; got != [4]int64{2, 5, 0, 0} {
				return fmt.Errorf("folded ranges read back as %d-%d and %d-%d, want 2-5 and none", got[0], got[1], got[2], got[3])
			}
			return nil
		},
	},
	{
		name:        "live-derivation",
		explanation: "the live history is the latest compaction's Live followed by every record after its Through, so messages appended during a compaction land after the compacted history, in log order",
		check: func(ctx context.Context, st store.Store, id string) error {
			if _, err := appendAll(ctx, st, id, text("old", 5)...); err != nil {
				return err
			}
			live, through, n, err := st.Live(ctx, id)
			if err != nil {
				return fmt.Errorf("store.Live: %w", err)
			}
			if err := sameMessages("Live before any compaction", text("old", 5), live); err != nil || through != 5 || n != 0 {
				return fmt.Errorf("store.Live before any compaction: through %d after %d: %v", through, n, err)
			}
			// A compaction read records 1..3; 4 and 5, then 6 and 7, arrived
			// while it ran.
			if _, err := appendAll(ctx, st, id, text("new", 2)...); err != nil {
				return err
			}
			summary := []compact.Message{{Role: compact.RoleUser, Content: "[summary] old 1-3"}}
			if err := commit(ctx, st, id, 1, 3, summary, store.Lease{}); err != nil {
				return err
			}
			want := append(append(append([]compact.Message{}, summary...), text("old", 5)[3:]...), text("new", 2)...)
			live, through, n, err = st.Live(ctx, id)
			if err != nil {
				return fmt.Errorf("store.Live: %w", err)
			}
			if err := sameMessages("Live after the compaction", want, live); err != nil {
				return err
			}
			if through != 7 || n != 1 {
				return fmt.Errorf("store.Live after the compaction: through %d after compaction %d, want 7 after 1", through, n)
			}
			comps, err := st.Compactions(ctx, id)
			if err != nil {
				return fmt.Errorf("store.Compactions: %w", err)
			}
			if len(comps) != 1 || comps[0].N != 1 || comps[0].From != 1 || comps[0].Through != 3 || comps[0].At.IsZero() ||
				comps[0].TokensBefore != 100 || comps[0].TokensAfter != 10 || comps[0].Summarizer != "test" {
				return fmt.Errorf("store.Compactions: %+v, want compaction 1 of records 1-3 as committed", comps)
			}
			if err := sameMessages("the compaction's Live", summary, comps[0].Live); err != nil {
				return err
			}
			// A second compaction takes in the rest; From follows on.
			if err := commit(ctx, st, id, 2, 7, nil, store.Lease{}); err != nil {
				return err
			}
			comps, err = st.Compactions(ctx, id)
			if err != nil || len(comps) != 2 || comps[1].From != 4 || comps[1].Through != 7 {
				return fmt.Errorf("store.Compactions: %+v, %v; want compaction 2 of records 4-7", comps, err)
			}
			live, through, n, err = st.Live(ctx, id)
			if err != nil || len(live) != 0 || through != 7 || n != 2 {
				return fmt.Errorf("store.Live after compacting to nothing: %d messages through %d after %d, %v", len(live), through, n, err)
			}
			return nil
		},
	},
	{
		name:        "commit-follows-the-latest",
		explanation: "a compaction must follow the latest one: a wrong number, or a range that ends before the latest's or past the log, is refused with ErrConflict and changes nothing",
		check: func(ctx context.Context, st store.Store, id string) error {
			if _, err := appendAll(ctx, st, id, text("m", 6)...); err != nil {
				return err
			}
			if err := commit(ctx, st, id, 1, 4, text("s", 1), store.Lease{}); err != nil {
				return err
			}
			for _, c := range []struct {
				n       int
				through int64
				why     string
			}{{1, 5, "a second compaction 1"}, {3, 5, "compaction 3 after 1"}, {2, 3, "a range ending before the latest's"}, {2, 7, "a range past the log"}} {
				err := commit(ctx, st, id, c.n, c.through, text("x", 1), store.Lease{})
				if !errors.Is(err, store.ErrConflict) {
					return fmt.Errorf("%s: %v, want an error wrapping ErrConflict", c.why, err)
				}
			}
			comps, err := st.Compactions(ctx, id)
			if err != nil || len(comps) != 1 {
				return fmt.Errorf("store.Compactions after refused commits: %d, %v; want 1", len(comps), err)
			}
			return commit(ctx, st, id, 2, 4, text("s", 1), store.Lease{})
		},
	},
	{
		name:        "snapshots",
		explanation: "SnapshotID(id, n) stays addressable: it is the live history compaction n read, derived from the log and the compaction before it, so a compaction never loses what it replaced",
		check: func(ctx context.Context, st store.Store, id string) error {
			if _, err := appendAll(ctx, st, id, text("a", 4)...); err != nil {
				return err
			}
			first := text("first summary", 1)
			if err := commit(ctx, st, id, 1, 4, first, store.Lease{}); err != nil {
				return err
			}
			if _, err := appendAll(ctx, st, id, text("b", 3)...); err != nil {
				return err
			}
			if err := commit(ctx, st, id, 2, 6, text("second summary", 1), store.Lease{}); err != nil {
				return err
			}
			got, err := st.Snapshot(ctx, store.SnapshotID(id, 1))
			if err != nil {
				return fmt.Errorf("store.Snapshot 1: %w", err)
			}
			if err := sameMessages("snapshot 1", text("a", 4), got); err != nil {
				return err
			}
			got, err = st.Snapshot(ctx, store.SnapshotID(id, 2))
			if err != nil {
				return fmt.Errorf("store.Snapshot 2: %w", err)
			}
			if err := sameMessages("snapshot 2", append(first, text("b", 2)...), got); err != nil {
				return err
			}
			if _, err := st.Snapshot(ctx, store.SnapshotID(id, 3)); !errors.Is(err, store.ErrNotFound) {
				return fmt.Errorf("store.Snapshot 3: %v, want an error wrapping ErrNotFound", err)
			}
			return nil
		},
	},
}

// commit commits compaction n of records up to through, with made-up
// sizes, under lease.
func commit(ctx context.Context, st store.Store, id string, n int, through int64, live []compact.Message, lease store.Lease) error {
	_, err := commitFolded(ctx, st, id, store.Compaction{N: n, Through: through, Live: live}, lease)
	return err
}

// commitFolded commits c, with made-up sizes, under lease, and returns what
// the store says the log's last record is.
func commitFolded(ctx context.Context, st store.Store, id string, c store.Compaction, lease store.Lease) (int64, error) {
	c.TokensBefore, c.TokensAfter, c.Summarizer = 100, 10, "test"
	last, err := st.Commit(ctx, id, c, lease)
	if err != nil {
		return 0, fmt.Errorf("store.Commit compaction %d through %d: %w", c.N, c.Through, err)
	}
	return last, nil
}

func sortedKeys(m map[string]error) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
