package storebench

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/contextkit/compact"
	"github.com/contextkit/compact/session/internal/codec"
	"github.com/contextkit/compact/session/store"
	"github.com/contextkit/compact/tokens"
)

// Sizes is what a store takes on disk, in bytes: Total, and Index, the
// part of Total its search index takes.
type Sizes struct{ Total, Index int64 }

// DiskStep is one row of a Disk measurement: Prepare runs on the loaded
// store, after the steps before it (nil: nothing), and the store is
// measured after it. Later rows (at-rest redaction; retention and the
// store's own reclaiming) are steps of their own.
type DiskStep struct {
	Name    string
	Prepare func(ctx context.Context, st store.Store, ids []string) error
}

// Searched is the step after which every session has been searched once,
// so that a store that builds its index lazily (SQLite) has built it.
var Searched = DiskStep{Name: "searched", Prepare: func(ctx context.Context, st store.Store, ids []string) error {
	sr, ok := st.(store.Searcher)
	if !ok {
		return nil
	}
	for _, id := range ids {
		if _, err := sr.Search(ctx, id, "warm up", 0, 1); err != nil {
			return err
		}
	}
	return nil
}}

// Disk measures the bytes st takes on disk per million archived tokens (by
// tokens.Estimator): it loads sessions sessions of an Archive of tokens
// tokens each, runs each step in turn, and after each measures the store
// with size (which brings the files to rest first, e.g. a WAL checkpoint)
// less what size measured before the load, against the raw JSON of the
// messages (what the codec writes). Each step is a sub-benchmark reporting
// bytes per 1M tokens and the ratio to the raw JSON, with the search index
// and without. The measurements are all made before the sub-benchmarks
// run, so -benchtime does not repeat them.
func Disk(b *testing.B, st store.Store, size func(context.Context) (Sizes, error), sessions, tokens int, steps ...DiskStep) {
	ctx := context.Background()
	before, err := size(ctx)
	if err != nil {
		b.Fatal(err)
	}
	msgs := Archive(b, tokens)
	var raw int64
	for i, m := range msgs {
		body, err := codec.Message(i, m)
		if err != nil {
			b.Fatal(err)
		}
		raw += int64(len(body))
	}
	raw *= int64(sessions)
	archived := float64(countTokens(msgs)) * float64(sessions)
	ids := make([]string, sessions)
	for i := range ids {
		ids[i] = id(fmt.Sprintf("disk-%d", i))
	}
	start := time.Now()
	Load(b, st, ids, msgs, 50)
	b.Logf("loaded %d sessions of %d messages (%.0f tokens, %d bytes of JSON) in %s",
		sessions, len(msgs), archived, raw, time.Since(start).Round(time.Millisecond))

	type row struct {
		name  string
		sizes Sizes
	}
	rows := []row{}
	for _, step := range append([]DiskStep{{Name: "loaded"}}, steps...) {
		if step.Prepare != nil {
			start := time.Now()
			if err := step.Prepare(ctx, st, ids); err != nil {
				b.Fatalf("%s: %v", step.Name, err)
			}
			b.Logf("%s: prepared in %s", step.Name, time.Since(start).Round(time.Millisecond))
		}
		after, err := size(ctx)
		if err != nil {
			b.Fatalf("%s: %v", step.Name, err)
		}
		rows = append(rows, row{step.Name, Sizes{Total: after.Total - before.Total, Index: after.Index - before.Index}})
	}
	for _, r := range rows {
		b.Run(r.name, func(b *testing.B) {
			b.ReportMetric(float64(r.sizes.Total)/archived*1e6, "bytes/1M-tokens")
			b.ReportMetric(float64(r.sizes.Total)/float64(raw), "x-json")
			b.ReportMetric(float64(r.sizes.Total-r.sizes.Index)/float64(raw), "x-json-no-index")
			b.ReportMetric(float64(raw)/archived*1e6, "json-bytes/1M-tokens")
		})
	}
}

// countTokens counts msgs as tokens.Estimator does.
func countTokens(msgs []compact.Message) int {
	return tokens.CountMessages(tokens.Estimator{}, msgs)
}

// DiskSizes are the stores Disk measures: one session of 10M tokens, and
// 10 sessions of 1M tokens each (long enough that a search indexes them:
// a store leaves a session's last few hundred records out of its index).
var DiskSizes = []struct {
	Name             string
	Sessions, Tokens int
}{
	{"sessions=1/tokens=10M", 1, 10_000_000},
	{"sessions=10/tokens=1M", 10, 1_000_000},
}

// foldKeep is how many records at the end of each session the Compacted
// step leaves out of the fold: the tail a compaction keeps verbatim.
const foldKeep = 40

// Compacted is the step after which each session has a compaction folding
// every record but the first and the last foldKeep, as a session's
// compactions would after a long run: what the later steps redact and
// expire.
var Compacted = DiskStep{Name: "compacted", Prepare: func(ctx context.Context, st store.Store, ids []string) error {
	for _, id := range ids {
		_, last, n, err := st.Live(ctx, id)
		if err != nil {
			return err
		}
		through := last - foldKeep
		if through < 2 {
			continue
		}
		tail, err := st.Read(ctx, id, through+1, last)
		if err != nil {
			return err
		}
		first, err := st.Read(ctx, id, 1, 1)
		if err != nil {
			return err
		}
		live := []compact.Message{first[0].Message, {Role: compact.RoleUser, Content: fmt.Sprintf("Summary of records 2 to %d.", through)}}
		for _, r := range tail {
			live = append(live, r.Message)
		}
		if _, err := st.Commit(ctx, id, store.Compaction{N: n + 1, Through: last, Live: live,
			FoldedFrom: 2, FoldedThrough: through, Summarizer: "storebench"}, store.Lease{}); err != nil {
			return err
		}
	}
	return nil
}}

// Redacted is the step after which every folded record has been rewritten
// through package redact (store.RedactFolded), as WithRedactAtRest
// leaves a store.
var Redacted = DiskStep{Name: "redacted", Prepare: func(ctx context.Context, st store.Store, ids []string) error {
	for _, id := range ids {
		if _, err := store.RedactFolded(ctx, st, id); err != nil {
			return err
		}
	}
	return nil
}}

// Expired is the step after which retention has deleted every folded
// record, and reclaim (the store's own: VACUUM) has run.
func Expired(reclaim func(ctx context.Context) error) DiskStep {
	return DiskStep{Name: "expired", Prepare: func(ctx context.Context, st store.Store, _ []string) error {
		e, ok := st.(store.Expirer)
		if !ok {
			return fmt.Errorf("%T is not a store.Expirer", st)
		}
		time.Sleep(2 * time.Millisecond)
		if _, err := e.Expire(ctx, store.Retention{Folded: time.Millisecond}); err != nil {
			return err
		}
		return reclaim(ctx)
	}}
}
