package fleet

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/contextkit/compact"
	"github.com/contextkit/compact/internal/sharedtest"
	"github.com/contextkit/compact/session"
	"github.com/contextkit/compact/session/pgstore"
	"github.com/contextkit/compact/session/sqlitestore"
	"github.com/contextkit/compact/session/storetest"
	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"
)

// workers is how many processes share the store; the last is killed.
const workers = 4

func TestFleetSQLite(t *testing.T) {
	path := filepath.Join(t.TempDir(), "fleet.db")
	st, closeStore, err := openStore(context.Background(), "sqlite", path, "")
	require.NoError(t, err)
	defer closeStore()
	runFleet(t, st, "sqlite", path, "", false)
}

// Issue 25: the same with background compaction on, the victim killed in
// the middle of a background compaction, and every request each surviving
// worker hands out checked against the window.
func TestFleetSQLiteBackground(t *testing.T) {
	path := filepath.Join(t.TempDir(), "fleet.db")
	st, closeStore, err := openStore(context.Background(), "sqlite", path, "")
	require.NoError(t, err)
	defer closeStore()
	runFleet(t, st, "sqlite", path, "", true)
}

func TestFleetPostgres(t *testing.T) {
	dsn := os.Getenv("COMPACT_PG_DSN")
	if dsn == "" {
		if os.Getenv("COMPACT_REQUIRE_PG") == "1" {
			t.Fatal("COMPACT_REQUIRE_PG=1 but COMPACT_PG_DSN is not set (start one with .ci/postgres.sh start)")
		}
		sharedtest.Skip(t, sharedtest.NoPostgres)
	}
	schema := fmt.Sprintf("fleet_%d", time.Now().UnixNano())
	st, closeStore, err := openStore(context.Background(), "postgres", dsn, schema)
	require.NoError(t, err)
	defer closeStore()
	defer func() {
		conn, err := pgx.Connect(context.Background(), dsn)
		if err == nil {
			_, _ = conn.Exec(context.Background(), `DROP SCHEMA `+pgx.Identifier{schema}.Sanitize()+` CASCADE`)
			_ = conn.Close(context.Background())
		}
	}()
	runFleet(t, st, "postgres", dsn, schema, false)
}

// openStore opens the store a worker (or the parent) shares.
func openStore(ctx context.Context, kind, target, schema string) (session.Store, func(), error) {
	switch kind {
	case "sqlite":
		st, err := sqlitestore.Open(ctx, target)
		if err != nil {
			return nil, nil, err
		}
		return st, func() { st.Close() }, nil
	case "postgres":
		st, err := pgstore.Open(ctx, target, pgstore.WithSchema(schema), pgstore.WithMaxConns(4))
		if err != nil {
			return nil, nil, err
		}
		return st, st.Close, nil
	}
	return nil, nil, fmt.Errorf("unknown store %q", kind)
}

// worker is one child process.
type worker struct {
	cmd    *exec.Cmd
	out    bytes.Buffer
	events string
	done   chan error
}

// runFleet starts the workers on the shared store, kills the last one in
// the middle of a compaction (a background one when background is set),
// takes its session over, and checks the store.
func runFleet(t *testing.T, st session.Store, kind, target, schema string, background bool) {
	sessions, ops := 200, 300
	if raceEnabled {
		ops = 100 // the race detector slows every process down several times
	}
	if testing.Short() {
		sessions, ops = 40, 60
	}
	dir := t.TempDir()
	marker := filepath.Join(dir, "marker")
	var ws []*worker
	for k := 0; k < workers; k++ {
		w := &worker{events: filepath.Join(dir, fmt.Sprintf("events-%d", k)), done: make(chan error, 1)}
		w.cmd = exec.Command(os.Args[0], "-test.run=^TestWorker$", "-test.count=1", "-test.timeout=5m")
		w.cmd.Env = append(os.Environ(),
			envWorker+"="+strconv.Itoa(k), envStore+"="+kind, envTarget+"="+target, envSchema+"="+schema,
			envSessions+"="+strconv.Itoa(sessions), envOps+"="+strconv.Itoa(ops),
			envEvents+"="+w.events, envMarker+"="+marker)
		if k == workers-1 {
			w.cmd.Env = append(w.cmd.Env, envVictim+"=1")
		}
		if background {
			w.cmd.Env = append(w.cmd.Env, envBackground+"=1")
		}
		w.cmd.Stdout, w.cmd.Stderr = &w.out, &w.out
		require.NoError(t, w.cmd.Start())
		go func() { w.done <- w.cmd.Wait() }()
		ws = append(ws, w)
	}
	victim := ws[workers-1]

	// Kill the victim as soon as it is mid-compaction.
	victimSession, victimFence, where := awaitMarker(t, marker, victim)
	require.NoError(t, victim.cmd.Process.Kill())
	<-victim.done
	if background {
		require.Equal(t, "background", where, "the victim was killed in the middle of a background compaction")
	}
	t.Logf("killed worker %d (SIGKILL) while it compacted %s (%s) under fence %d", workers-1, victimSession, where, victimFence)

	// Another process (this one) takes the session over once the lease
	// lapses.
	takeover := takeOver(t, st, victimSession, victimFence, filepath.Join(dir, "events-parent"))
	t.Logf("took %s over after %v", victimSession, takeover)

	for k, w := range ws[:workers-1] {
		if err := <-w.done; err != nil {
			t.Fatalf("worker %d: %v\n%s", k, err, w.out.String())
		}
	}
	files := []string{filepath.Join(dir, "events-parent")}
	for _, w := range ws {
		files = append(files, w.events)
	}
	check(t, st, sessions, readEvents(t, files), background)
}

// awaitMarker waits for the victim to say which session it is compacting,
// under which fence, and where ("background" or "foreground").
func awaitMarker(t *testing.T, marker string, victim *worker) (string, int64, string) {
	deadline := time.Now().Add(2 * time.Minute)
	for time.Now().Before(deadline) {
		if b, err := os.ReadFile(marker); err == nil && bytes.HasSuffix(b, []byte("\n")) {
			var id, where string
			var fence int64
			_, err := fmt.Sscanf(string(b), "%s %d %s", &id, &fence, &where)
			require.NoError(t, err)
			return id, fence, where
		}
		select {
		case err := <-victim.done:
			t.Fatalf("the victim ended before compacting: %v\n%s", err, victim.out.String())
		case <-time.After(20 * time.Millisecond):
		}
	}
	t.Fatal("the victim never compacted")
	return "", 0, ""
}

// takeOver compacts the victim's session from this process, waiting for the
// victim's lease to lapse, and returns how long that took.
func takeOver(t *testing.T, st session.Store, id string, victimFence int64, events string) time.Duration {
	f, err := os.Create(events)
	require.NoError(t, err)
	defer f.Close()
	w := &watched{Store: st, leaser: st.(session.Leaser), rec: &recorder{f: f}, start: map[string]event{}, committed: map[string]int{}}
	s, err := session.Open(context.Background(), id, engine(func() {}), session.WithStore(w), session.WithLeaseTTL(leaseTTL))
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for i := 0; i < 12; i++ {
		content := fmt.Sprintf("w%d g0 %s n%d %s", workers, id, i, filler)
		require.NoError(t, s.Append(ctx, compact.Message{Role: role(i), Content: content}))
		w.rec.record(event{Kind: "append", Session: id, Content: content})
	}
	start := time.Now()
	_, err = s.Compress(ctx, compact.Force())
	if declined(err) {
		t.Logf("the engine declined to compact %s again: %v", id, err)
		err = nil
	}
	require.NoError(t, err, "a session whose compacting process died is compacted again after its lease lapses")
	require.Greater(t, w.fence(id), victimFence, "this process took the lease the victim held")
	return time.Since(start).Round(time.Millisecond)
}

// readEvents reads every events file; a killed worker's last line may be
// cut short, and is skipped.
func readEvents(t *testing.T, files []string) []event {
	var all []event
	for _, name := range files {
		f, err := os.Open(name)
		require.NoError(t, err)
		sc := bufio.NewScanner(f)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			var e event
			if json.Unmarshal(sc.Bytes(), &e) == nil {
				all = append(all, e)
			}
		}
		require.NoError(t, sc.Err())
		f.Close()
	}
	return all
}

// check verifies the store against what the workers recorded: for every
// session, no message lost, duplicated or reordered, compactions numbered
// and fenced in order, none overlapping another, and the live history
// derived from the log.
func check(t *testing.T, st session.Store, sessions int, events []event, background bool) {
	ctx := context.Background()
	appended := map[string]map[string]bool{}
	windows := map[string][]event{}
	var views event
	for _, e := range events {
		switch e.Kind {
		case "views":
			views.Checked += e.Checked
			views.Stale += e.Stale
			views.Failed += e.Failed
			views.Requests += e.Requests
			views.Over += e.Over
			views.Background += e.Background
		case "append":
			if appended[e.Session] == nil {
				appended[e.Session] = map[string]bool{}
			}
			appended[e.Session][e.Content] = true
		case "compaction":
			windows[e.Session] = append(windows[e.Session], e)
		}
	}
	var messages, compactions, lost, duplicated, reordered, overlaps int
	for i := 0; i < sessions; i++ {
		id := fmt.Sprintf("fleet-%d", i)
		recs, err := st.Read(ctx, id, 1, 0)
		require.NoError(t, err)
		messages += len(recs)
		seen := map[string]bool{}
		next := map[string]int{} // by writer "w g"
		for j, r := range recs {
			require.EqualValues(t, j+1, r.Seq, "%s: records are numbered densely", id)
			c := r.Message.Content
			if seen[c] {
				duplicated++
				t.Errorf("%s: record %d duplicates an earlier one", id, r.Seq)
			}
			seen[c] = true
			var wk, g, n int
			var sid string
			if _, err := fmt.Sscanf(c, "w%d g%d %s n%d", &wk, &g, &sid, &n); err != nil || sid != id {
				t.Errorf("%s: record %d is not this session's: %.60q", id, r.Seq, c)
				continue
			}
			writer := fmt.Sprint(wk, " ", g)
			if n != next[writer] {
				reordered++
				t.Errorf("%s: record %d is writer %s's message %d, want %d", id, r.Seq, writer, n, next[writer])
			}
			next[writer] = n + 1
		}
		for c := range appended[id] {
			if !seen[c] {
				lost++
				t.Errorf("%s: an appended message is missing: %.60q", id, c)
			}
		}

		comps, err := st.Compactions(ctx, id)
		require.NoError(t, err)
		compactions += len(comps)
		var prev session.Compaction
		for _, c := range comps {
			require.Equal(t, prev.N+1, c.N, "%s: compactions are numbered densely", id)
			require.Equal(t, prev.Through+1, c.From, "%s compaction %d", id, c.N)
			require.GreaterOrEqual(t, c.Through, prev.Through, "%s compaction %d", id, c.N)
			require.Greater(t, c.Fence, prev.Fence, "%s compaction %d: fences grow", id, c.N)
			prev = c
		}
		ws := windows[id]
		sort.Slice(ws, func(a, b int) bool { return ws[a].Start < ws[b].Start })
		for j := 1; j < len(ws); j++ {
			if ws[j].Start <= ws[j-1].End {
				overlaps++
				t.Errorf("%s: compaction %d (fence %d) started before compaction %d (fence %d) ended",
					id, ws[j].N, ws[j].Fence, ws[j-1].N, ws[j-1].Fence)
			}
		}
		for _, w := range ws {
			require.LessOrEqual(t, w.N, len(comps), "%s: a recorded compaction is in the store", id)
			require.Equal(t, w.Fence, comps[w.N-1].Fence, "%s compaction %d was committed under the fence recorded", id, w.N)
		}

		live, through, n, err := st.Live(ctx, id)
		require.NoError(t, err)
		require.Equal(t, len(comps), n)
		require.EqualValues(t, len(recs), through)
		var want []compact.Message
		if n > 0 {
			want = append(want, comps[n-1].Live...)
			for _, r := range recs[comps[n-1].Through:] {
				want = append(want, r.Message)
			}
		} else {
			for _, r := range recs {
				want = append(want, r.Message)
			}
		}
		require.Equal(t, contents(want), contents(live), "%s: the live history is derived from the log", id)
		require.NoError(t, storetest.Audit(ctx, st, id), "every record a compaction covers is folded or carried")
	}
	t.Logf("%d sessions, %d messages, %d compactions: %d lost, %d duplicated, %d reordered, %d overlapping",
		sessions, messages, compactions, lost, duplicated, reordered, overlaps)
	t.Logf("the surviving workers' calls: %d succeeded, each leaving its session's view equal to the store's; "+
		"%d said their view was stale (ErrStale); %d failed (a store fault in %d, a passed deadline, a lost lease)",
		views.Checked, views.Stale, views.Failed, flakyOdds)
	require.Positive(t, compactions)
	require.Positive(t, views.Checked)
	if background {
		t.Logf("the surviving workers handed out %d requests, %d over the window; they compacted %d times in the background",
			views.Requests, views.Over, views.Background)
		require.Positive(t, views.Requests)
		require.Positive(t, views.Background)
		require.Zero(t, views.Over, "no request over the window")
	}
}

func contents(msgs []compact.Message) []string {
	out := make([]string, len(msgs))
	for i, m := range msgs {
		out[i] = m.Role + ": " + strings.TrimSpace(compact.Text(m))
	}
	return out
}
