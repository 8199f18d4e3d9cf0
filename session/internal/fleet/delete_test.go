package fleet

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/contextkit/compact"
	"github.com/contextkit/compact/internal/sharedtest"
	"github.com/contextkit/compact/session"
	"github.com/contextkit/compact/session/store"
	"github.com/jackc/pgx/v5"
)

// The environment of a process of the delete test.
const (
	envDeleter = "FLEET_DELETE_WORKER" // the worker's number; unset in the parent
	envSession = "FLEET_DELETE_SESSION"
)

// deleteWorkers is how many processes hold the session being deleted.
const deleteWorkers = 2 // runDelete waits for worker 1's first append

// Issue 33.1: a session deleted while other processes append to it and
// compact it. The delete waits for the compaction in flight (the lease
// decides), and every process then gets ErrDeleted and writes nothing
// back; the store keeps nothing of the session but its tombstone.
func TestDeleteAcrossProcessesSQLite(t *testing.T) {
	path := filepath.Join(t.TempDir(), "fleet.db")
	runDelete(t, "sqlite", path, "", func(ctx context.Context, id string) (int, error) {
		db, err := sql.Open("sqlite", path)
		if err != nil {
			return 0, err
		}
		defer db.Close()
		var n, deleted int
		err = db.QueryRowContext(ctx, `SELECT (SELECT count(*) FROM messages WHERE session = ?1)
			+ (SELECT count(*) FROM compactions WHERE session = ?1),
			(SELECT deleted FROM sessions WHERE id = ?1)`, id).Scan(&n, &deleted)
		if err == nil && deleted != 1 {
			err = errors.New("no tombstone")
		}
		return n, err
	})
}

func TestDeleteAcrossProcessesPostgres(t *testing.T) {
	dsn := os.Getenv("COMPACT_PG_DSN")
	if dsn == "" {
		if os.Getenv("COMPACT_REQUIRE_PG") == "1" {
			t.Fatal("COMPACT_REQUIRE_PG=1 but COMPACT_PG_DSN is not set (start one with .ci/postgres.sh start)")
		}
		sharedtest.Skip(t, sharedtest.NoPostgres)
	}
	schema := fmt.Sprintf("fleet_delete_%d", time.Now().UnixNano())
	S := pgx.Identifier{schema}.Sanitize()
	defer func() {
		conn, err := pgx.Connect(context.Background(), dsn)
		if err == nil {
			_, _ = conn.Exec(context.Background(), `DROP SCHEMA `+S+` CASCADE`)
			_ = conn.Close(context.Background())
		}
	}()
	runDelete(t, "postgres", dsn, schema, func(ctx context.Context, id string) (int, error) {
		conn, err := pgx.Connect(ctx, dsn)
		if err != nil {
			return 0, err
		}
		defer conn.Close(ctx)
		var (
			n       int
			deleted bool
		)
		err = conn.QueryRow(ctx, `SELECT (SELECT count(*) FROM `+S+`.messages WHERE session = $1)
			+ (SELECT count(*) FROM `+S+`.compactions WHERE session = $1)
			+ (SELECT count(*) FROM `+S+`.message_search WHERE session = $1),
			(SELECT deleted FROM `+S+`.sessions WHERE id = $1)`, id).Scan(&n, &deleted)
		if err == nil && !deleted {
			err = errors.New("no tombstone")
		}
		return n, err
	})
}

// runDelete starts the workers on one session, deletes it once the first
// is mid-compaction, and checks what is left with rows, which counts the
// session's rows in the store's tables.
func runDelete(t *testing.T, kind, target, schema string, rows func(ctx context.Context, id string) (int, error)) {
	ctx := context.Background()
	st, closeStore, err := openStore(ctx, kind, target, schema)
	if err != nil {
		t.Fatal(err)
	}
	defer closeStore()
	const id, kept = "forget-me", "keep-me"
	if _, _, err := st.Append(ctx, kept, compact.Message{Role: compact.RoleUser, Content: "another user's"}); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	marker := filepath.Join(dir, "marker")
	var ws []*worker
	for k := 0; k < deleteWorkers; k++ {
		w := &worker{done: make(chan error, 1)}
		w.cmd = exec.Command(os.Args[0], "-test.run=^TestDeleteWorker$", "-test.count=1", "-test.timeout=3m")
		w.cmd.Env = append(os.Environ(), envDeleter+"="+strconv.Itoa(k), envStore+"="+kind, envTarget+"="+target,
			envSchema+"="+schema, envSession+"="+id, envMarker+"="+marker)
		w.cmd.Stdout, w.cmd.Stderr = &w.out, &w.out
		if err := w.cmd.Start(); err != nil {
			t.Fatal(err)
		}
		go func() { w.done <- w.cmd.Wait() }()
		ws = append(ws, w)
	}
	// Every worker has appended, and worker 0 is compacting.
	deadline := time.Now().Add(2 * time.Minute)
	for _, m := range []string{marker + "-1", marker} {
		for {
			if b, err := os.ReadFile(m); err == nil && bytes.HasSuffix(b, []byte("\n")) {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("the workers never got going:\n%s\n%s", ws[0].out.String(), ws[1].out.String())
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	// Worker 0 holds the lease while its summarizer sleeps: the store
	// refuses the delete, and session.Delete waits it out.
	if err := st.(store.Deleter).Delete(ctx, id); !errors.Is(err, store.ErrBusy) {
		t.Fatalf("Delete while another process compacts: %v, want an error wrapping ErrBusy", err)
	}
	start := time.Now()
	if err := store.Delete(ctx, st, id); err != nil {
		t.Fatal(err)
	}
	t.Logf("the delete waited %v for the compaction in flight", time.Since(start).Round(time.Millisecond))
	for k, w := range ws {
		if err := <-w.done; err != nil {
			t.Fatalf("worker %d: %v\n%s", k, err, w.out.String())
		}
		t.Logf("worker %d: %s", k, bytes.TrimSpace(w.out.Bytes()))
	}
	n, err := rows(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if n != 0 {
		t.Errorf("%d rows of the deleted session are left in the store", n)
	}
	if _, err := session.Open(ctx, id, nil, session.WithStore(st)); !errors.Is(err, store.ErrDeleted) {
		t.Errorf("a process opening the deleted session: %v, want an error wrapping ErrDeleted", err)
	}
	if recs, err := st.Read(ctx, kept, 1, 0); err != nil || len(recs) != 1 {
		t.Errorf("another session after the delete: %d records, %v; want its one", len(recs), err)
	}
}

// TestDeleteWorker is one process of runDelete: it appends to the session
// and compacts it until a call fails with ErrDeleted, then checks that
// every later call does too.
func TestDeleteWorker(t *testing.T) {
	me := os.Getenv(envDeleter)
	if me == "" {
		t.Skip("run by TestDeleteAcrossProcesses* in processes of their own")
	}
	ctx := context.Background()
	st, closeStore, err := openStore(ctx, os.Getenv(envStore), os.Getenv(envTarget), os.Getenv(envSchema))
	if err != nil {
		t.Fatal(err)
	}
	defer closeStore()
	id := os.Getenv(envSession)
	var marked atomic.Bool
	s, err := session.Open(ctx, id, engine(func() {
		// Worker 0's first compaction says so, then holds the lease a while.
		if me == "0" && marked.CompareAndSwap(false, true) {
			if err := os.WriteFile(os.Getenv(envMarker), []byte("compacting\n"), 0o600); err != nil {
				t.Error(err)
			}
			time.Sleep(time.Second)
		}
	}), session.WithStore(st), session.WithLeaseTTL(leaseTTL))
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(2 * time.Minute)
	appended := 0
	for i := 0; ; i++ {
		if time.Now().After(deadline) {
			t.Fatalf("no call failed with ErrDeleted after %d appends", appended)
		}
		err := s.Append(ctx, compact.Message{Role: role(i), Content: fmt.Sprintf("worker %s message %d: %s", me, i, filler)})
		if err == nil {
			appended++
			if appended == 1 && me != "0" {
				if err := os.WriteFile(os.Getenv(envMarker)+"-"+me, []byte("appending\n"), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			if i%4 == 3 {
				if _, err = s.Compress(ctx, compact.Force()); declined(err) || errors.Is(err, store.ErrBusy) {
					err = nil
				}
			}
		}
		if errors.Is(err, store.ErrDeleted) {
			break
		}
		if err != nil {
			t.Fatalf("after %d appends: %v", appended, err)
		}
	}
	for k := 0; k < 3; k++ {
		msg := compact.Message{Role: compact.RoleUser, Content: "written after the delete"}
		if err := s.Append(ctx, msg); !errors.Is(err, store.ErrDeleted) {
			t.Fatalf("Append after the delete: %v, want an error wrapping ErrDeleted", err)
		}
		if err := s.Sync(ctx); !errors.Is(err, store.ErrDeleted) {
			t.Fatalf("Sync after the delete: %v, want an error wrapping ErrDeleted", err)
		}
		if _, err := s.Compress(ctx, compact.Force()); !errors.Is(err, store.ErrDeleted) {
			t.Fatalf("Compress after the delete: %v, want an error wrapping ErrDeleted", err)
		}
	}
	if err := s.Close(ctx); err != nil {
		t.Fatal(err)
	}
	fmt.Printf("appended %d messages, then every call failed with ErrDeleted\n", appended)
}
