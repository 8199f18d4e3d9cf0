package fleet

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/contextkit/compact"
	"github.com/contextkit/compact/internal/sharedtest"
	"github.com/contextkit/compact/session/internal/codec"
	"github.com/contextkit/compact/session/internal/storebench"
	"github.com/contextkit/compact/session/store"
	"github.com/contextkit/compact/session/storetest"
	"github.com/jackc/pgx/v5"
)

// The long run's settings (BenchmarkFleetLoad); TestFleetLoad runs a short
// one of its own.
var (
	loadProcs    = flag.Int("fleet.procs", 4, "BenchmarkFleetLoad: processes sharing the store")
	loadSessions = flag.Int("fleet.sessions", 1000, "BenchmarkFleetLoad: sessions in all, spread over the processes")
	loadTurns    = flag.Int("fleet.turns", 40, "BenchmarkFleetLoad: appends per session")
	loadThink    = flag.Duration("fleet.think", 2*time.Second, "BenchmarkFleetLoad: mean pause before each append (the model's turn)")
	loadStore    = flag.String("fleet.store", "sqlite", "BenchmarkFleetLoad: sqlite or postgres (COMPACT_PG_DSN)")
)

// loadConfig is what every process of a load run is told, as JSON in
// envLoad.
type loadConfig struct {
	Store, Target, Schema string
	Procs, Sessions       int // processes; sessions in all
	Turns                 int // appends per session
	Think                 time.Duration
	// Summarize bounds how long the summarizer takes, picked at random
	// for each call.
	Summarize [2]time.Duration
	// Window is the engine's context window, small enough that every
	// session compacts in the background a few times in Turns appends.
	Window int
	// Bare is how many writers per process write the same bytes by a bare
	// insert, the yardstick (besides Sessions/Procs sessions).
	Bare int
}

// The environment of a load worker.
const (
	envLoad    = "FLEET_LOAD"     // the loadConfig, as JSON
	envLoadMe  = "FLEET_LOAD_ME"  // the worker's number
	envLoadOut = "FLEET_LOAD_OUT" // the file the worker writes its loadResult to
)

// bareTable is the yardstick's table, in the store's file or schema.
const bareTable = "fleet_bare"

// Issue 33.6, the short version CI runs: 2 processes x 20 sessions append
// the shared transcripts with background compaction and a summarizer that
// takes 1-2 s; afterwards nothing is lost, duplicated or reordered, every
// compaction is audited, and no call failed. The figures are logged, not
// asserted: BenchmarkFleetLoad is the measurement.
func TestFleetLoad(t *testing.T) {
	for _, kind := range []string{"sqlite", "postgres"} {
		t.Run(kind, func(t *testing.T) {
			cfg := loadConfig{Store: kind, Procs: 2, Sessions: 40, Turns: 40, Think: 75 * time.Millisecond,
				Summarize: [2]time.Duration{time.Second, 2 * time.Second}, Window: 6000, Bare: 2}
			if testing.Short() {
				cfg.Turns = 25
			}
			r := runLoad(t, cfg)
			t.Log(r)
			t.Logf("some engines' reasons not to compact: %q", r.why)
			if r.errors > 0 {
				t.Fatalf("%d calls failed: %v", r.errors, r.firstErrors)
			}
			if r.lost+r.duplicated+r.reordered != 0 {
				t.Fatalf("%d lost, %d duplicated, %d reordered", r.lost, r.duplicated, r.reordered)
			}
			if r.compactions == 0 {
				t.Fatal("no session compacted in the background")
			}
		})
	}
}

// BenchmarkFleetLoad is issue 33.6's measurement: P processes x S sessions
// (the -fleet.* flags), each session appending turns of the shared
// transcripts with background compaction and a summarizer taking 1-2 s,
// and beside them in each process a few writers putting the same bytes in
// by a bare single-row insert (SQLite: one IMMEDIATE transaction; Postgres:
// one statement), the yardstick. It reports Append's latency (p50, p99),
// the store's Commit latency, the bare insert's, appends per second and
// errors, then checks the store.
//
//	go test -run '^$' -bench FleetLoad -benchtime 1x -timeout 1h ./session/internal/fleet \
//		-fleet.store sqlite -fleet.procs 4 -fleet.sessions 1000
func BenchmarkFleetLoad(b *testing.B) {
	cfg := loadConfig{Store: *loadStore, Procs: *loadProcs, Sessions: *loadSessions, Turns: *loadTurns, Think: *loadThink,
		Summarize: [2]time.Duration{time.Second, 2 * time.Second}, Window: 6000, Bare: max(*loadSessions / *loadProcs / 10, 2)}
	r := runLoad(b, cfg)
	b.Log(r)
	b.ReportMetric(ms(r.appendP50), "append-p50-ms")
	b.ReportMetric(ms(r.appendP99), "append-p99-ms")
	b.ReportMetric(ms(r.bareP50), "bare-p50-ms")
	b.ReportMetric(ms(r.bareP99), "bare-p99-ms")
	b.ReportMetric(ms(r.commitP50), "commit-p50-ms")
	b.ReportMetric(ms(r.commitP99), "commit-p99-ms")
	b.ReportMetric(r.perSecond, "appends/s")
	b.ReportMetric(float64(r.errors), "errors")
	b.ReportMetric(float64(r.lost+r.duplicated+r.reordered), "lost+dup+reordered")
	if r.lost+r.duplicated+r.reordered != 0 {
		b.Errorf("%d lost, %d duplicated, %d reordered", r.lost, r.duplicated, r.reordered)
	}
}

func ms(d time.Duration) float64 { return float64(d) / 1e6 }

// loadReport is what a load run measured and found.
type loadReport struct {
	cfg                                    loadConfig
	appends, bares, commits, compactions   int
	declined                               int
	why                                    []string
	appendP50, appendP99, bareP50, bareP99 time.Duration
	commitP50, commitP99                   time.Duration
	storedP50, storedP99                   time.Duration
	perSecond                              float64
	errors                                 int
	firstErrors                            []string
	lost, duplicated, reordered            int
	took                                   time.Duration
}

func (r loadReport) String() string {
	return fmt.Sprintf("%s, %d processes x %d sessions, %d appends each, think %v: %d appends in %v (%.0f/s), %d background compactions (%d failed or declined)\n"+
		"Append p50 %v p99 %v (the store's share: p50 %v p99 %v); bare insert p50 %v p99 %v (%d); p99 ratio %.2f; Commit p50 %v p99 %v (%d)\n"+
		"%d errors; %d lost, %d duplicated, %d reordered",
		r.cfg.Store, r.cfg.Procs, r.cfg.Sessions/r.cfg.Procs, r.cfg.Turns, r.cfg.Think, r.appends, r.took.Round(time.Millisecond), r.perSecond, r.compactions, r.declined,
		r.appendP50, r.appendP99, r.storedP50, r.storedP99, r.bareP50, r.bareP99, r.bares, float64(r.appendP99)/float64(max(r.bareP99, 1)),
		r.commitP50, r.commitP99, r.commits, r.errors, r.lost, r.duplicated, r.reordered)
}

// runLoad prepares the store, runs the workers, reads what they measured
// and checks the store.
func runLoad(tb testing.TB, cfg loadConfig) loadReport {
	tb.Helper()
	ctx := context.Background()
	if len(storebench.Transcripts(tb)) == 0 {
		sharedtest.Missing(tb)
	}
	switch cfg.Store {
	case "sqlite":
		cfg.Target = filepath.Join(tb.TempDir(), "load.db")
	case "postgres":
		cfg.Target = os.Getenv("COMPACT_PG_DSN")
		if cfg.Target == "" {
			if os.Getenv("COMPACT_REQUIRE_PG") == "1" {
				tb.Fatal("COMPACT_REQUIRE_PG=1 but COMPACT_PG_DSN is not set (start one with .ci/postgres.sh start)")
			}
			sharedtest.Skip(tb, sharedtest.NoPostgres)
		}
		cfg.Schema = fmt.Sprintf("load_%d_%d", os.Getpid(), time.Now().UnixNano())
	default:
		tb.Fatalf("unknown store %q", cfg.Store)
	}
	st, closeStore, err := openStore(ctx, cfg.Store, cfg.Target, cfg.Schema)
	if err != nil {
		tb.Fatal(err)
	}
	defer closeStore()
	if cfg.Store == "postgres" {
		defer dropLoadSchema(tb, cfg)
	}
	bare, err := openBare(ctx, cfg)
	if err != nil {
		tb.Fatal(err)
	}
	if err := bare.create(ctx); err != nil {
		tb.Fatal(err)
	}
	bare.close()

	raw, _ := json.Marshal(cfg)
	dir := tb.TempDir()
	type proc struct {
		cmd  *exec.Cmd
		out  []byte
		err  error
		file string
	}
	procs := make([]*proc, cfg.Procs)
	done := make(chan *proc)
	start := time.Now()
	for k := range procs {
		p := &proc{file: filepath.Join(dir, fmt.Sprintf("result-%d.json", k))}
		p.cmd = exec.Command(os.Args[0], "-test.run=^TestLoadWorker$", "-test.bench=^$", "-test.count=1", "-test.timeout=2h")
		p.cmd.Env = append(os.Environ(), envLoad+"="+string(raw), envLoadMe+"="+strconv.Itoa(k), envLoadOut+"="+p.file)
		procs[k] = p
		go func() {
			p.out, p.err = p.cmd.CombinedOutput()
			done <- p
		}()
	}
	for range procs {
		if p := <-done; p.err != nil {
			tb.Fatalf("a worker: %v\n%s", p.err, p.out)
		}
	}
	took := time.Since(start)

	r := loadReport{cfg: cfg, took: took}
	var appends, bares, commits, stored []time.Duration
	var first, last int64
	appended := map[string]int{}
	for _, p := range procs {
		var res loadResult
		data, err := os.ReadFile(p.file)
		if err == nil {
			err = json.Unmarshal(data, &res)
		}
		if err != nil {
			tb.Fatalf("a worker's result: %v\n%s", err, p.out)
		}
		appends = append(appends, micros(res.Appends)...)
		bares = append(bares, micros(res.Bare)...)
		commits = append(commits, micros(res.Commits)...)
		stored = append(stored, micros(res.Stored)...)
		r.compactions += res.Compactions
		r.declined += res.Declined
		r.why = append(r.why, res.Why...)
		r.errors += len(res.Errors)
		r.firstErrors = append(r.firstErrors, res.Errors[:min(len(res.Errors), 3)]...)
		for id, n := range res.Appended {
			appended[id] = n
		}
		if first == 0 || res.First < first {
			first = res.First
		}
		last = max(last, res.Last)
	}
	r.appends, r.bares, r.commits = len(appends), len(bares), len(commits)
	r.appendP50, r.appendP99 = storebench.Quantile(appends, 0.5), storebench.Quantile(appends, 0.99)
	r.bareP50, r.bareP99 = storebench.Quantile(bares, 0.5), storebench.Quantile(bares, 0.99)
	r.commitP50, r.commitP99 = storebench.Quantile(commits, 0.5), storebench.Quantile(commits, 0.99)
	r.storedP50, r.storedP99 = storebench.Quantile(stored, 0.5), storebench.Quantile(stored, 0.99)
	if last > first {
		r.perSecond = float64(r.appends) / time.Duration(last-first).Seconds()
	}
	r.lost, r.duplicated, r.reordered = checkLoad(tb, st, cfg, appended)
	return r
}

func micros(us []int64) []time.Duration {
	out := make([]time.Duration, len(us))
	for i, u := range us {
		out[i] = time.Duration(u) * time.Microsecond
	}
	return out
}

// checkLoad reads every session back from the store and compares its log
// with what its worker appended, in order; every compaction is audited.
func checkLoad(tb testing.TB, st store.Store, cfg loadConfig, appended map[string]int) (lost, duplicated, reordered int) {
	ctx := context.Background()
	transcripts := storebench.Transcripts(tb)
	for k := 0; k < cfg.Procs; k++ {
		for i := 0; i < cfg.Sessions/cfg.Procs; i++ {
			id := loadID(k, i)
			var want []string
			for _, g := range turns(transcripts, k*cfg.Sessions/cfg.Procs+i, cfg.Turns)[:appended[id]] {
				for _, m := range g {
					want = append(want, key(tb, m))
				}
			}
			recs, err := st.Read(ctx, id, 1, 0)
			if err != nil {
				tb.Fatal(err)
			}
			got := make([]string, len(recs))
			for j, r := range recs {
				got[j] = key(tb, r.Message)
			}
			l, d, o := compare(want, got)
			if l+d+o > 0 {
				tb.Errorf("%s: %d records, %d appended: %d lost, %d duplicated, %d out of order", id, len(got), len(want), l, d, o)
			}
			lost, duplicated, reordered = lost+l, duplicated+d, reordered+o
			if err := storetest.Audit(ctx, st, id); err != nil {
				tb.Errorf("every record a compaction covers is folded or carried: %v", err)
			}
		}
	}
	return lost, duplicated, reordered
}

// key is what identifies a message in the comparison: its stored JSON.
func key(tb testing.TB, m compact.Message) string {
	b, err := codec.Message(0, m)
	if err != nil {
		tb.Fatal(err)
	}
	return string(b)
}

// compare counts the messages of want missing from got, those got holds
// more often than want, and, when got holds the same messages, those not
// in want's place.
func compare(want, got []string) (lost, duplicated, reordered int) {
	count := map[string]int{}
	for _, w := range want {
		count[w]++
	}
	for _, g := range got {
		count[g]--
	}
	for _, n := range count {
		if n > 0 {
			lost += n
		} else {
			duplicated -= n
		}
	}
	if lost == 0 && duplicated == 0 {
		for i := range want {
			if want[i] != got[i] {
				reordered++
			}
		}
	}
	return lost, duplicated, reordered
}

// loadID names session i of worker k.
func loadID(k, i int) string { return fmt.Sprintf("load-%d-%d", k, i) }

// turns returns what session n appends, call by call: the shared
// transcripts chained from the n-th on, round and round (the first one's
// system prompt alone kept, and tool calls left unanswered at the end of a
// transcript dropped by compact.RepairToolPairs), one call per message but
// for a run of tool results, which come in one call (as a host appends the
// results of tools it ran side by side); count calls in all.
func turns(transcripts [][]compact.Message, n, count int) [][]compact.Message {
	var chain []compact.Message
	for t := n; len(chain) < 2*count; t++ {
		for _, m := range transcripts[t%len(transcripts)] {
			if m.Role != compact.RoleSystem || len(chain) == 0 {
				chain = append(chain, m)
			}
		}
	}
	chain, _ = compact.RepairToolPairs(chain)
	var out [][]compact.Message
	for i := 0; i < len(chain) && len(out) < count; {
		j := i + 1
		if chain[i].Role == compact.RoleTool {
			for j < len(chain) && chain[j].Role == compact.RoleTool {
				j++
			}
		}
		out = append(out, chain[i:j])
		i = j
	}
	return out
}

func dropLoadSchema(tb testing.TB, cfg loadConfig) {
	conn, err := pgx.Connect(context.Background(), cfg.Target)
	if err != nil {
		tb.Logf("dropping schema %s: %v", cfg.Schema, err)
		return
	}
	defer conn.Close(context.Background())
	if _, err := conn.Exec(context.Background(), `DROP SCHEMA `+pgx.Identifier{cfg.Schema}.Sanitize()+` CASCADE`); err != nil {
		tb.Logf("dropping schema %s: %v", cfg.Schema, err)
	}
}
