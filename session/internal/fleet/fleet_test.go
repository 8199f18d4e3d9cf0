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
	"reflect"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/contextkit/compact"
	"github.com/contextkit/compact/internal/racetest"
	"github.com/contextkit/compact/internal/sharedtest"
	"github.com/contextkit/compact/session"
	"github.com/contextkit/compact/session/pgstore"
	"github.com/contextkit/compact/session/sqlitestore"
	"github.com/contextkit/compact/session/store"
	"github.com/contextkit/compact/session/storetest"
	"github.com/jackc/pgx/v5"
)

// workers is how many processes share the store; the last is killed.
const workers = 4

func TestFleetSQLite(t *testing.T) {
	path := filepath.Join(t.TempDir(), "fleet.db")
	st, closeStore, err := openStore(context.Background(), "sqlite", path, "")
	if err != nil {
		t.Fatal(err)
	}
	defer closeStore()
	runFleet(t, st, "sqlite", path, "", false)
}

// Issue 25: the same with background compaction on, the victim killed in
// the middle of a background compaction, and every request each surviving
// worker hands out checked against the window.
func TestFleetSQLiteBackground(t *testing.T) {
	path := filepath.Join(t.TempDir(), "fleet.db")
	st, closeStore, err := openStore(context.Background(), "sqlite", path, "")
	if err != nil {
		t.Fatal(err)
	}
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
	if err != nil {
		t.Fatal(err)
	}
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

// loadPoolSize is how many connections the load's yardstick keeps in each
// process: as many as a Postgres store opens by default (see
// pgstore.Open).
const loadPoolSize = 8

// openStore opens the store a worker (or the parent) shares.
func openStore(ctx context.Context, kind, target, schema string) (store.Store, func(), error) {
	switch kind {
	case "sqlite":
		st, err := sqlitestore.Open(ctx, target)
		if err != nil {
			return nil, nil, err
		}
		return st, func() { st.Close() }, nil
	case "postgres":
		st, err := pgstore.Open(ctx, target, pgstore.WithSchema(schema))
		if err != nil {
			return nil, nil, err
		}
		return st, func() { st.Close() }, nil
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
func runFleet(t *testing.T, st store.Store, kind, target, schema string, background bool) {
	sessions, ops := 200, 300
	if racetest.Enabled {
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
		if err := w.cmd.Start(); err != nil {
			t.Fatal(err)
		}
		go func() { w.done <- w.cmd.Wait() }()
		ws = append(ws, w)
	}
	victim := ws[workers-1]

	// Kill the victim as soon as it is mid-compaction.
	victimSession, victimFence, where := awaitMarker(t, marker, victim)
	if err := victim.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	<-victim.done
	if background {
		if where != "background" {
			t.Fatalf("the victim was killed in the middle of a background compaction: got %v, want %v", where, "background")
		}
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
			if err != nil {
				t.Fatal(err)
			}
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
func takeOver(t *testing.T, st store.Store, id string, victimFence int64, events string) time.Duration {
	f, err := os.Create(events)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	w := &watched{Store: st, leaser: st.(store.Leaser), rec: &recorder{f: f}, start: map[string]event{}, committed: map[string]int{}}
	s, err := session.Open(context.Background(), id, engine(func() {}), session.WithStore(w), session.WithLeaseTTL(leaseTTL))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for i := 0; i < 12; i++ {
		content := fmt.Sprintf("w%d g0 %s n%d %s", workers, id, i, filler)
		if err := s.Append(ctx, compact.Message{Role: role(i), Content: content}); err != nil {
			t.Fatal(err)
		}
		w.rec.record(event{Kind: "append", Session: id, Content: content})
	}
	start := time.Now()
	_, err = s.Compress(ctx, compact.Force())
	if declined(err) {
		t.Logf("the engine declined to compact %s again: %v", id, err)
		err = nil
	}
	if err != nil {
		t.Fatalf("a session whose compacting process died is compacted again after its lease lapses: %v", err)
	}
	if w.fence(id) <= victimFence {
		t.Fatalf("this process took the lease the victim held: %v is not above %v", w.fence(id), victimFence)
	}
	return time.Since(start).Round(time.Millisecond)
}

// readEvents reads every events file; a killed worker's last line may be
// cut short, and is skipped.
func readEvents(t *testing.T, files []string) []event {
	var all []event
	for _, name := range files {
		f, err := os.Open(name)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(f)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			var e event
			if json.Unmarshal(sc.Bytes(), &e) == nil {
				all = append(all, e)
			}
		}
		if err := sc.Err(); err != nil {
			t.Fatal(err)
		}
		f.Close()
	}
	return all
}

// check verifies the store against what the workers recorded: for every
// session, no message lost, duplicated or reordered, compactions numbered
// and fenced in order, none overlapping another, and the live history
// derived from the log.
func check(t *testing.T, st store.Store, sessions int, events []event, background bool) {
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
		if err != nil {
			t.Fatal(err)
		}
		messages += len(recs)
		seen := map[string]bool{}
		next := map[string]int{} // by writer "w g"
		for j, r := range recs {
			if r.Seq != int64(j+1) {
				t.Fatalf("%s: records are numbered densely: got %v, want %v", id, r.Seq, j+1)
			}
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
		if err != nil {
			t.Fatal(err)
		}
		compactions += len(comps)
		var prev store.Compaction
		for _, c := range comps {
			if c.N != prev.N+1 {
				t.Fatalf("%s: compactions are numbered densely: got %v, want %v", id, c.N, prev.N+1)
			}
			if c.From != prev.Through+1 {
				t.Fatalf("%s compaction %d: got %v, want %v", id, c.N, c.From, prev.Through+1)
			}
			if c.Through < prev.Through {
				t.Fatalf("%s compaction %d: %v is below %v", id, c.N, c.Through, prev.Through)
			}
			if c.Fence <= prev.Fence {
				t.Fatalf("%s compaction %d: fences grow: %v is not above %v", id, c.N, c.Fence, prev.Fence)
			}
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
			if w.N > len(comps) {
				t.Fatalf("%s: a recorded compaction is in the store: %v is above %v", id, w.N, len(comps))
			}
			if comps[w.N-1].Fence != w.Fence {
				t.Fatalf("%s compaction %d was committed under the fence recorded: got %v, want %v", id, w.N, comps[w.N-1].Fence, w.Fence)
			}
		}

		live, through, n, err := st.Live(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		if n != len(comps) {
			t.Fatalf("%s: Live counts %d compactions, the store holds %d", id, n, len(comps))
		}
		if through != int64(len(recs)) {
			t.Fatalf("%s: Live is through record %d of %d", id, through, len(recs))
		}
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
		if !reflect.DeepEqual(contents(live), contents(want)) {
			t.Fatalf("%s: the live history (%d messages) is not the one derived from the log (%d)", id, len(live), len(want))
		}
		if err := storetest.Audit(ctx, st, id); err != nil {
			t.Fatalf("every record a compaction covers is folded or carried: %v", err)
		}
	}
	t.Logf("%d sessions, %d messages, %d compactions: %d lost, %d duplicated, %d reordered, %d overlapping",
		sessions, messages, compactions, lost, duplicated, reordered, overlaps)
	t.Logf("the surviving workers' calls: %d succeeded, each leaving its session's view equal to the store's; "+
		"%d said their view was stale (ErrStale); %d failed (a store fault in %d, a passed deadline, a lost lease)",
		views.Checked, views.Stale, views.Failed, flakyOdds)
	if compactions <= 0 {
		t.Fatalf("%d compactions", compactions)
	}
	if views.Checked <= 0 {
		t.Fatalf("%d views checked", views.Checked)
	}
	if background {
		t.Logf("the surviving workers handed out %d requests, %d over the window; they compacted %d times in the background",
			views.Requests, views.Over, views.Background)
		if views.Requests <= 0 {
			t.Fatalf("%d requests", views.Requests)
		}
		if views.Background <= 0 {
			t.Fatalf("%d background compactions", views.Background)
		}
		if views.Over != 0 {
			t.Fatalf("%d requests over the window", views.Over)
		}
	}
}

func contents(msgs []compact.Message) []string {
	out := make([]string, len(msgs))
	for i, m := range msgs {
		out[i] = m.Role + ": " + strings.TrimSpace(compact.Text(m))
	}
	return out
}
