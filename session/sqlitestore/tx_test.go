package sqlitestore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func openInternal(t *testing.T, opts ...Option) *Store {
	t.Helper()
	st, err := Open(context.Background(), filepath.Join(t.TempDir(), "sessions.db"), opts...)
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, st.Close()) })
	return st
}

// queued waits until n writes wait in st's queue.
func queued(t *testing.T, st *Store, n int) {
	t.Helper()
	require.Eventually(t, func() bool {
		st.writes.mu.Lock()
		defer st.writes.mu.Unlock()
		return len(st.writes.queue) == n
	}, 5*time.Second, time.Millisecond)
}

// blocker starts a write that holds the write connection until the
// returned function is called, and waits until it runs.
func blocker(t *testing.T, st *Store) (release func() error) {
	t.Helper()
	running, hold := make(chan struct{}), make(chan struct{})
	done := make(chan error, 1)
	go func() {
		done <- st.write(context.Background(), func(ctx context.Context, tx *sql.Tx) error {
			close(running)
			<-hold
			return nil
		})
	}()
	<-running
	return func() error {
		close(hold)
		return <-done
	}
}

func rowExists(t *testing.T, st *Store, id string) bool {
	t.Helper()
	var n int
	require.NoError(t, st.r.QueryRow(`SELECT count(*) FROM sessions WHERE id = ?`, id).Scan(&n))
	return n == 1
}

// Writes that arrive while one runs go together into one transaction, each
// in a savepoint of its own: the one that fails is undone alone, and tells
// only its own caller.
func TestWritesThatWaitGoInOneTransactionAndFailAlone(t *testing.T) {
	st := openInternal(t)
	release := blocker(t, st)

	const n = 8
	var (
		wg  sync.WaitGroup
		mu  sync.Mutex
		txs = map[*sql.Tx]int{}
	)
	errs := make([]error, n)
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = st.write(context.Background(), func(ctx context.Context, tx *sql.Tx) error {
				mu.Lock()
				txs[tx]++
				mu.Unlock()
				if _, err := tx.ExecContext(ctx, `INSERT INTO sessions (id) VALUES (?)`, fmt.Sprint("s-", i)); err != nil {
					return err
				}
				if i == 3 {
					return errors.New("write 3 refuses")
				}
				return nil
			})
		}()
	}
	queued(t, st, n)
	require.NoError(t, release())
	wg.Wait()

	assert.Len(t, txs, 1, "the writes that waited made one transaction")
	for i, err := range errs {
		if i == 3 {
			assert.EqualError(t, err, "write 3 refuses")
			assert.False(t, rowExists(t, st, "s-3"), "the failing write is undone")
			continue
		}
		assert.NoError(t, err, "write %d", i)
		assert.True(t, rowExists(t, st, fmt.Sprint("s-", i)), "write %d is committed", i)
	}
}

// A write whose ctx ends while it waits for a batch is withdrawn: its
// caller gets ctx's error at once, and it is never made.
func TestAWaitingWriteWithdrawsWhenItsCtxEnds(t *testing.T) {
	st := openInternal(t)
	release := blocker(t, st)
	ctx, cancel := context.WithCancel(context.Background())
	ran := false
	done := make(chan error, 1)
	go func() {
		done <- st.write(ctx, func(ctx context.Context, tx *sql.Tx) error {
			ran = true
			return nil
		})
	}()
	queued(t, st, 1)
	cancel()
	select {
	case err := <-done:
		require.ErrorIs(t, err, context.Canceled)
	case <-time.After(5 * time.Second):
		t.Fatal("the withdrawn write still waits")
	}
	require.NoError(t, release())
	assert.False(t, ran, "a withdrawn write is never made")
	st.writes.mu.Lock()
	defer st.writes.mu.Unlock()
	assert.Empty(t, st.writes.queue)
	assert.False(t, st.writes.running, "the queue is idle again")
}

// While another process holds the file, a batch waits; a write in it whose
// ctx ends gives up then, with an error wrapping ctx's, and is not made;
// the writes waiting behind it are made once the file is free.
func TestABatchWaitingForTheFileLetsAWriteGiveUp(t *testing.T) {
	st := openInternal(t, WithBusyTimeout(20*time.Millisecond))
	other, err := sql.Open("sqlite", dsn(st.path, config{busyTimeout: time.Second}, "immediate"))
	require.NoError(t, err)
	defer other.Close()
	other.SetMaxOpenConns(1)
	holder, err := other.Begin() // BEGIN IMMEDIATE: the file's write lock
	require.NoError(t, err)
	_, err = holder.Exec(`INSERT INTO sessions (id) VALUES ('holder')`)
	require.NoError(t, err)

	ctx, cancel := context.WithTimeout(context.Background(), 150*time.Millisecond)
	defer cancel()
	insert := func(id string) txFunc {
		return func(ctx context.Context, tx *sql.Tx) error {
			_, err := tx.ExecContext(ctx, `INSERT INTO sessions (id) VALUES (?)`, id)
			return err
		}
	}
	short, patient := make(chan error, 1), make(chan error, 1)
	go func() { short <- st.write(ctx, insert("short")) }()
	require.Eventually(t, func() bool { // taken into a batch, which waits for the file
		st.writes.mu.Lock()
		defer st.writes.mu.Unlock()
		return st.writes.running && len(st.writes.queue) == 0
	}, 5*time.Second, time.Millisecond)
	go func() { patient <- st.write(context.Background(), insert("patient")) }()
	queued(t, st, 1)

	select {
	case err := <-short:
		require.ErrorIs(t, err, context.DeadlineExceeded)
		assert.Contains(t, err.Error(), "busy", "the error says what was waited for")
	case <-time.After(5 * time.Second):
		t.Fatal("a write whose ctx ended still waits for the file")
	}
	select {
	case err := <-patient:
		t.Fatalf("a write was made while another process held the file: %v", err)
	case <-time.After(50 * time.Millisecond):
	}
	require.NoError(t, holder.Commit())
	select {
	case err := <-patient:
		require.NoError(t, err)
	case <-time.After(5 * time.Second):
		t.Fatal("the patient write never made it once the file was free")
	}
	assert.True(t, rowExists(t, st, "patient"))
	assert.False(t, rowExists(t, st, "short"), "the write that gave up is not made")
}
