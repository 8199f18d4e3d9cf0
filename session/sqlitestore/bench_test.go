package sqlitestore_test

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"testing"

	"github.com/contextkit/compact/session/internal/storebench"
)

// go test -run '^$' -bench . -benchmem ./session/sqlitestore
func BenchmarkTurn(b *testing.B) {
	st := openTemp(b)
	for _, n := range []int{1_000, 10_000} {
		b.Run(fmt.Sprintf("messages=%d", n), func(b *testing.B) { storebench.Turn(b, st, n) })
	}
}

func BenchmarkCompaction(b *testing.B) {
	st := openTemp(b)
	b.Run("tokens=200k", func(b *testing.B) { storebench.Compaction(b, st, 200_000) })
}

func BenchmarkSearch(b *testing.B) {
	st := openTemp(b)
	b.Run("tokens=1M", func(b *testing.B) { storebench.Search(b, st, 1_000_000) })
}

// BenchmarkRecall measures context_search on long archives (issue 33.7):
// one session of 1M and of 10M tokens, and 1,000 sessions of 100k tokens.
//
//	go test -run '^$' -bench Recall -benchtime 100x -timeout 2h ./session/sqlitestore
func BenchmarkRecall(b *testing.B) {
	for _, c := range storebench.RecallSizes {
		b.Run(c.Name, func(b *testing.B) { storebench.Recall(b, openTemp(b), c.Sessions, c.Tokens) })
	}
}

// BenchmarkDisk measures the bytes on disk per 1M archived tokens (issue
// 33.8): the file and its WAL after a checkpoint, as loaded, once every
// session has been searched (the index built), compacted, its folded
// records redacted at rest, and those records expired and the file
// vacuumed.
//
//	go test -run '^$' -bench Disk -benchtime 1x -timeout 1h ./session/sqlitestore
func BenchmarkDisk(b *testing.B) {
	for _, c := range storebench.DiskSizes {
		b.Run(c.Name, func(b *testing.B) {
			st := openTemp(b)
			storebench.Disk(b, st, fileSizes(b, st.Path()), c.Sessions, c.Tokens, storebench.Searched,
				storebench.Compacted, storebench.Redacted, storebench.Expired(st.Vacuum))
		})
	}
}

// fileSizes measures the SQLite file at path and its WAL, after a
// checkpoint that empties the WAL into the file; Index is what the pages of
// the search index take.
func fileSizes(tb testing.TB, path string) func(context.Context) (storebench.Sizes, error) {
	db := rawDB(tb, path)
	return func(ctx context.Context) (storebench.Sizes, error) {
		var s storebench.Sizes
		if _, err := db.ExecContext(ctx, `PRAGMA wal_checkpoint(TRUNCATE)`); err != nil {
			return s, err
		}
		for _, name := range []string{path, path + "-wal"} {
			fi, err := os.Stat(name)
			if err != nil && !errors.Is(err, fs.ErrNotExist) {
				return s, err
			}
			if err == nil {
				s.Total += fi.Size()
			}
		}
		err := db.QueryRowContext(ctx, `SELECT coalesce(sum(pgsize), 0) FROM dbstat WHERE name LIKE 'message_search%'`).Scan(&s.Index)
		return s, err
	}
}
