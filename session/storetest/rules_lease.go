package storetest

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/contextkit/compact"
	"github.com/contextkit/compact/session/store"
)

// leaseTTL is long enough for any store to answer within it; shortTTL is
// what the rules that wait for a lease to lapse grant, and lapse how long
// they wait (with room for a store's clock to differ a little from ours).
const (
	leaseTTL = 30 * time.Second
	shortTTL = 300 * time.Millisecond
	lapse    = shortTTL + 200*time.Millisecond
)

var leaseRules = []rule{
	{
		name:        "lease-is-exclusive",
		leaser:      true,
		explanation: "one holder at a time: Acquire on a held lease fails at once with ErrBusy; after Release another may acquire it, with a greater fence",
		check: func(ctx context.Context, st store.Store, id string) error {
			l := st.(store.Leaser)
			first, err := l.Acquire(ctx, id, leaseTTL)
			if err != nil {
				return fmt.Errorf("store.Acquire: %w", err)
			}
			if first.ID == "" || first.Fence < 1 || !first.Expires.After(time.Now().Add(leaseTTL/2)) {
				return fmt.Errorf("store.Acquire granted %+v: want an id, a fence of 1 or more, and an expiry ttl from now", first)
			}
			if _, err := l.Acquire(ctx, id, leaseTTL); !errors.Is(err, store.ErrBusy) {
				return fmt.Errorf("store.Acquire of a held lease: %v, want an error wrapping ErrBusy", err)
			}
			if err := l.Release(ctx, id, first); err != nil {
				return fmt.Errorf("store.Release: %w", err)
			}
			second, err := l.Acquire(ctx, id, leaseTTL)
			if err != nil {
				return fmt.Errorf("store.Acquire after Release: %w", err)
			}
			if second.Fence <= first.Fence || second.ID == first.ID {
				return fmt.Errorf("second grant %+v after first %+v: want a new id and a greater fence", second, first)
			}
			if err := l.Release(ctx, id, first); err != nil {
				return fmt.Errorf("store.Release of a lease no longer held: %v, want nil", err)
			}
			if _, err := l.Acquire(ctx, id, leaseTTL); !errors.Is(err, store.ErrBusy) {
				return fmt.Errorf("releasing an old lease freed the current one: %v", err)
			}
			return l.Release(ctx, id, second)
		},
	},
	{
		name:        "stale-fence-refused",
		leaser:      true,
		explanation: "a holder that paused past its lease cannot save: once another holder took the lease, the first's Commit and Renew are refused with ErrStaleFence, nothing it wrote is kept, and nothing in the log is lost",
		check: func(ctx context.Context, st store.Store, id string) error {
			l := st.(store.Leaser)
			if _, err := appendAll(ctx, st, id, text("m", 4)...); err != nil {
				return err
			}
			paused, err := l.Acquire(ctx, id, shortTTL)
			if err != nil {
				return fmt.Errorf("store.Acquire: %w", err)
			}
			time.Sleep(lapse)
			taker, err := l.Acquire(ctx, id, leaseTTL)
			if err != nil {
				return fmt.Errorf("store.Acquire after the first lapsed: %w", err)
			}
			if taker.Fence <= paused.Fence {
				return fmt.Errorf("fence %d after %d: fences must grow", taker.Fence, paused.Fence)
			}
			if err := commit(ctx, st, id, 1, 4, text("stale", 1), paused); !errors.Is(err, store.ErrStaleFence) {
				return fmt.Errorf("store.Commit under the superseded lease: %v, want an error wrapping ErrStaleFence", err)
			}
			if _, err := l.Renew(ctx, id, paused, leaseTTL); !errors.Is(err, store.ErrStaleFence) {
				return fmt.Errorf("store.Renew of the superseded lease: %v, want an error wrapping ErrStaleFence", err)
			}
			if err := commit(ctx, st, id, 1, 4, text("fresh", 1), store.Lease{}); !errors.Is(err, store.ErrStaleFence) && !errors.Is(err, store.ErrLeaseLost) {
				return fmt.Errorf("store.Commit without a lease on a leased session: %v, want ErrStaleFence or ErrLeaseLost", err)
			}
			if err := commit(ctx, st, id, 1, 4, text("fresh", 1), taker); err != nil {
				return err
			}
			comps, err := st.Compactions(ctx, id)
			if err != nil || len(comps) != 1 || comps[0].Fence != taker.Fence || comps[0].Live[0].Content != "fresh 1" {
				return fmt.Errorf("store.Compactions: %+v, %v; want the taker's alone, with its fence", comps, err)
			}
			recs, err := st.Read(ctx, id, 1, 0)
			if err != nil || len(recs) != 4 {
				return fmt.Errorf("the log after a refused commit: %d records, %v; want 4", len(recs), err)
			}
			return l.Release(ctx, id, taker)
		},
	},
	{
		name:        "lapsed-lease-refused",
		leaser:      true,
		explanation: "a lease past its expiry is not held even when nobody took it over: Commit and Renew are refused with ErrLeaseLost, because another holder could take it at any moment",
		check: func(ctx context.Context, st store.Store, id string) error {
			l := st.(store.Leaser)
			if _, err := appendAll(ctx, st, id, text("m", 2)...); err != nil {
				return err
			}
			lease, err := l.Acquire(ctx, id, shortTTL)
			if err != nil {
				return fmt.Errorf("store.Acquire: %w", err)
			}
			time.Sleep(lapse)
			if err := commit(ctx, st, id, 1, 2, nil, lease); !errors.Is(err, store.ErrLeaseLost) {
				return fmt.Errorf("store.Commit under a lapsed lease: %v, want an error wrapping ErrLeaseLost", err)
			}
			if _, err := l.Renew(ctx, id, lease, leaseTTL); !errors.Is(err, store.ErrLeaseLost) {
				return fmt.Errorf("store.Renew of a lapsed lease: %v, want an error wrapping ErrLeaseLost", err)
			}
			released, err := l.Acquire(ctx, id, leaseTTL)
			if err != nil {
				return fmt.Errorf("store.Acquire after a lapse: %w", err)
			}
			if err := l.Release(ctx, id, released); err != nil {
				return fmt.Errorf("store.Release: %w", err)
			}
			if err := commit(ctx, st, id, 1, 2, nil, released); !errors.Is(err, store.ErrLeaseLost) {
				return fmt.Errorf("store.Commit under a released lease: %v, want an error wrapping ErrLeaseLost", err)
			}
			return nil
		},
	},
	{
		name:        "renew-extends",
		leaser:      true,
		explanation: "Renew keeps a lease held past its first expiry, so a long compaction keeps the session; the renewed lease commits",
		check: func(ctx context.Context, st store.Store, id string) error {
			l := st.(store.Leaser)
			if _, err := appendAll(ctx, st, id, text("m", 2)...); err != nil {
				return err
			}
			lease, err := l.Acquire(ctx, id, shortTTL)
			if err != nil {
				return fmt.Errorf("store.Acquire: %w", err)
			}
			renewed, err := l.Renew(ctx, id, lease, leaseTTL)
			if err != nil {
				return fmt.Errorf("store.Renew: %w", err)
			}
			if renewed.ID != lease.ID || renewed.Fence != lease.Fence || !renewed.Expires.After(lease.Expires) {
				return fmt.Errorf("store.Renew gave %+v for %+v: want the same id and fence, a later expiry", renewed, lease)
			}
			time.Sleep(lapse)
			if _, err := l.Acquire(ctx, id, leaseTTL); !errors.Is(err, store.ErrBusy) {
				return fmt.Errorf("store.Acquire of a renewed lease: %v, want an error wrapping ErrBusy", err)
			}
			if err := commit(ctx, st, id, 1, 2, nil, lease); err != nil {
				return err
			}
			return l.Release(ctx, id, lease)
		},
	},
}

var searchRules = []rule{
	{
		name:        "search-finds-text",
		searcher:    true,
		explanation: "Search finds every record after `after` whose SearchText holds the text, ignoring case, oldest first and at most limit, including tool arguments and messages a compaction folded",
		check: func(ctx context.Context, st store.Store, id string) error {
			msgs := richMessages()
			msgs = append(msgs, compact.Message{Role: compact.RoleUser, Content: "the TODO list is long"})
			if _, err := appendAll(ctx, st, id, msgs...); err != nil {
				return err
			}
			if err := commit(ctx, st, id, 1, 5, text("summary", 1), store.Lease{}); err != nil {
				return err
			}
			s := st.(store.Searcher)
			for _, c := range []struct {
				text         string
				after        int64
				limit        int
				want         []int64
				matchContent string
			}{
				{"todo", 0, 0, []int64{3, 4, 7}, "todo"},
				{"TODO", 3, 0, []int64{4, 7}, "todo"},
				{"todo", 0, 2, []int64{3, 4}, "todo"},
				{`"pattern":"todo"`, 0, 0, []int64{3}, `"pattern":"todo"`},
				{"picture", 0, 0, []int64{2}, "picture"},
				{"🦀 quote", 0, 0, []int64{1}, "🦀 quote"},
				{"nowhere at all", 0, 0, nil, ""},
				{"%", 0, 0, []int64{1}, "%"},
				{"_", 0, 0, nil, ""},
			} {
				recs, err := s.Search(ctx, id, c.text, c.after, c.limit)
				if err != nil {
					return fmt.Errorf("store.Search(%q): %w", c.text, err)
				}
				if fmt.Sprint(seqs(recs)) != fmt.Sprint(c.want) && !(len(recs) == 0 && len(c.want) == 0) {
					return fmt.Errorf("store.Search(%q, after %d, limit %d) = records %v, want %v", c.text, c.after, c.limit, seqs(recs), c.want)
				}
				for _, r := range recs {
					if !strings.Contains(strings.ToLower(store.SearchText(r.Message)), c.matchContent) {
						return fmt.Errorf("store.Search(%q) returned record %d, which does not hold it", c.text, r.Seq)
					}
				}
			}
			return nil
		},
	},
	{
		name:        "search-finds-text-anywhere-in-a-long-text",
		searcher:    true,
		explanation: "Search finds text wherever it lies in a long message (a store indexing long texts in pieces must find text that straddles two), each record once, oldest first, whatever the text's length",
		check: func(ctx context.Context, st store.Store, id string) error {
			// Enough messages first that a store indexing in batches
			// indexes these rather than reading them from its log.
			if _, err := appendAll(ctx, st, id, text("filler", 300)...); err != nil {
				return err
			}
			short := "AssertionError: Straddles"
			medium := strings.Repeat("KeyError: medium ", 18)     // 306 bytes
			long := strings.Repeat("TypeError: long line é ", 40) // 960 bytes
			var msgs []compact.Message
			var want [3][]int64
			for off := 768; off <= 9216; off += 256 { // across every multiple of 256 bytes
				for k, lit := range []string{short, medium, long} {
					b := []byte(strings.Repeat("Ünïcödé filler, ", 12000/18))
					copy(b[off-len(lit)/2:], lit)
					msgs = append(msgs, compact.Message{Role: compact.RoleTool, ToolCallID: "c", Content: strings.ToValidUTF8(string(b), "?")})
					want[k] = append(want[k], int64(300+len(msgs)))
				}
			}
			if _, err := appendAll(ctx, st, id, msgs...); err != nil {
				return err
			}
			s := st.(store.Searcher)
			for k, lit := range []string{short, medium, long} {
				for _, c := range []struct {
					after int64
					limit int
					want  []int64
				}{
					{300, 0, want[k]},
					{want[k][3], 2, want[k][4:6]},
				} {
					recs, err := s.Search(ctx, id, strings.ToUpper(lit), c.after, c.limit)
					if err != nil {
						return fmt.Errorf("store.Search(%.30q): %w", lit, err)
					}
					if fmt.Sprint(seqs(recs)) != fmt.Sprint(c.want) {
						return fmt.Errorf("store.Search(%.30q, after %d, limit %d) = records %v, want %v", lit, c.after, c.limit, seqs(recs), c.want)
					}
				}
			}
			return nil
		},
	},
	{
		name:        "search-finds-text-among-any-bytes",
		searcher:    true,
		explanation: "Search finds text next to bytes that are not UTF-8 or are NUL, and text holding them (each such byte folds to U+FFFD, as strings.ToLower folds it), and gives back the records byte for byte; an index that cannot hold such bytes must not hide the text around them",
		check: func(ctx context.Context, st store.Store, id string) error {
			// Enough messages first that a store indexing in batches
			// indexes these rather than reading them from its log.
			if _, err := appendAll(ctx, st, id, text("filler", 300)...); err != nil {
				return err
			}
			if _, err := appendAll(ctx, st, id, byteMessages()...); err != nil {
				return err
			}
			s := st.(store.Searcher)
			for _, c := range []struct {
				text string
				want []int64
			}{
				{"needle", []int64{304}},
				{"NEEDLE\xff HERE", []int64{304}},
				{"\x00needle\xff", []int64{304}},
				{"needle\xfe", []int64{304}},
				{"1: \x00needle", []int64{304}},
				{"caf\xe9", []int64{301}},
				{"gr\xffep(", []int64{303}},
				{"%41", []int64{301, 305}},
				{"%zz", []int64{302, 305}},
				{"in two", []int64{302}},
				{"\x00", []int64{301, 302, 303, 304}},
			} {
				recs, err := s.Search(ctx, id, c.text, 300, 0)
				if err != nil {
					return fmt.Errorf("store.Search(%q): %w", c.text, err)
				}
				if fmt.Sprint(seqs(recs)) != fmt.Sprint(c.want) {
					return fmt.Errorf("store.Search(%q) = records %v, want %v", c.text, seqs(recs), c.want)
				}
				for _, r := range recs {
					if err := sameMessage(byteMessages()[r.Seq-301], r.Message); err != nil {
						return fmt.Errorf("store.Search(%q): record %d: %w", c.text, r.Seq, err)
					}
				}
			}
			return nil
		},
	},
}
