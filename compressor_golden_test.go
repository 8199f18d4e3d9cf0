package compact

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/contextkit/compact/internal/msgtest"
	"github.com/contextkit/compact/internal/sharedtest"
	"github.com/contextkit/compact/tokens"
)

// updateGolden rewrites goldenResults from the Results of today's code.
var updateGolden = flag.Bool("update", false, "rewrite "+goldenResults+" from the Results the engine returns today")

// goldenResults holds a SHA-256 of every Result TestResultsStayTheSame
// makes, one case a line: hashes only, never the transcripts' text.
const goldenResults = "testdata/golden/results.txt"

// goldenWindows are the windows the golden check compacts at.
var goldenWindows = []int{8_000, 16_000, 32_000, 128_000}

// Every Result the engine returns on the shared transcripts stays the same
// byte for byte (issue 34: work the engine saves must not change what it
// computes): for each transcript, window, summarizer (the instant one and
// the extractive default) and price setting (unknown, or gpt-4o's), a
// forced compaction with a fresh Compressor; the same Compressor's forced
// compaction of the first half and then of the whole (what it remembers
// of the first is reused by the second); and a host's loop that appends
// the transcript one message at a time, calls Compress before each
// request and carries on from every compacted history (summaries
// re-compacted, the caches of every earlier call in play). The first 567
// messages of the joined transcripts (the CPU benchmark's input) are
// compacted forced and grown at 200,000 tokens. All cases share one
// exact counter, so nothing one case remembers may leak into another's
// Result. The Result compared is its JSON with Duration zeroed.
//
//	go test -run TestResultsStayTheSame -update .   # after a change meant to change output
func TestResultsStayTheSame(t *testing.T) {
	if testing.Short() {
		t.Skip("compacts every shared transcript about 3,000 times")
	}
	all := sharedTranscripts(t)
	if len(all) == 0 {
		sharedtest.Missing(t)
	}
	got := goldenRun(t, all)
	if *updateGolden {
		writeGolden(t, got)
		return
	}
	want := readGolden(t)
	var bad []string
	for _, k := range sortedKeys(want) {
		if got[k] != want[k] {
			bad = append(bad, k)
		}
	}
	for _, k := range sortedKeys(got) {
		if _, ok := want[k]; !ok {
			bad = append(bad, k+" (not in the golden file)")
		}
	}
	if len(bad) > 0 {
		t.Errorf("%d of %d Results differ from %s, first %s", len(bad), len(want), goldenResults,
			msgtest.Excerpt(strings.Join(bad, "\n")))
	}
}

// goldenRun makes every case's hash.
func goldenRun(t *testing.T, all map[string][]Message) map[string]string {
	tc := newCounter(t, tokens.EncodingO200KBase)
	clock := func() time.Time { return time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC) }
	summarizers := []struct {
		name string
		new  func() Summarizer
	}{
		{"instant", func() Summarizer { return instantSummary }},
		{"extractive", func() Summarizer { return NewExtractiveSummarizer(nil) }},
	}
	got := map[string]string{}
	ctx := context.Background()
	for _, name := range sortedNames(all) {
		h := all[name]
		if Validate(h) != nil {
			h, _ = RepairToolPairs(h)
		}
		for _, window := range goldenWindows {
			for _, s := range summarizers {
				for _, priced := range []bool{false, true} {
					newC := func() *Compressor {
						opts := []Option{WithContextWindow(window), WithSummarizer(s.new()),
							WithTokenCounter(tc), WithClock(clock)}
						if priced {
							opts = append(opts, WithModel("gpt-4o"))
						}
						return New(opts...)
					}
					key := fmt.Sprintf("%s/%d/%s/priced=%t", name, window, s.name, priced)
					g := newGoldenHash()
					g.add(newC().Compress(ctx, h, Force()))
					got[key+"/force"] = g.sum()

					c, g := newC(), newGoldenHash()
					if half := goldenPrefix(h, len(h)/2); len(half) > 0 {
						g.add(c.Compress(ctx, half, Force()))
					}
					g.add(c.Compress(ctx, h, Force()))
					got[key+"/half-then-whole"] = g.sum()

					got[key+"/loop"] = goldenLoop(ctx, newC(), h)
				}
			}
		}
	}
	joined := joinedShared(t, all, engineMessages)
	for _, s := range summarizers {
		c := New(WithContextWindow(benchTokens), WithSummarizer(s.new()), WithTokenCounter(tc), WithClock(clock))
		g := newGoldenHash()
		g.add(c.Compress(ctx, joined, Force()))
		got["joined567/"+s.name+"/force"] = g.sum()
		c, g = New(WithContextWindow(benchTokens), WithSummarizer(s.new()), WithTokenCounter(tc), WithClock(clock)), newGoldenHash()
		g.add(c.Compress(ctx, goldenPrefix(joined, len(joined)*9/10), Force()))
		g.add(c.Compress(ctx, joined, Force()))
		got["joined567/"+s.name+"/grown"] = g.sum()
	}
	return got
}

// goldenLoop is a host's loop over h: each message appended to the
// history the last request sent, Compress before each request, the
// compacted history kept. It returns the hash of every Result.
func goldenLoop(ctx context.Context, c *Compressor, h []Message) string {
	g := newGoldenHash()
	var cur []Message
	for i, m := range h {
		cur = append(cur, m)
		if i+1 < len(h) && (h[i+1].Role == RoleTool || m.Role == RoleSystem) {
			continue // a request goes out once the calls are answered
		}
		res, err := c.Compress(ctx, cur)
		g.add(res, err)
		if err == nil && res.Skipped == "" {
			cur = append([]Message(nil), res.Messages...)
		}
	}
	return g.sum()
}

// goldenPrefix returns the longest valid h[:k] with k <= n, nil when
// there is none.
func goldenPrefix(h []Message, n int) []Message {
	for k := min(n, len(h)); k > 0; k-- {
		if Validate(h[:k]) == nil {
			return h[:k]
		}
	}
	return nil
}

// goldenHash hashes a sequence of Results (or errors).
type goldenHash struct{ b strings.Builder }

func newGoldenHash() *goldenHash { return &goldenHash{} }

func (g *goldenHash) add(res *Result, err error) {
	if err != nil {
		fmt.Fprintf(&g.b, "error %s\n", err)
		return
	}
	r := *res
	r.Duration = 0
	data, jerr := json.Marshal(r)
	if jerr != nil {
		panic(jerr) // a Result always marshals
	}
	sum := sha256.Sum256(data)
	fmt.Fprintf(&g.b, "result %x\n", sum)
}

func (g *goldenHash) sum() string {
	s := sha256.Sum256([]byte(g.b.String()))
	return hex.EncodeToString(s[:])
}

func readGolden(t *testing.T) map[string]string {
	t.Helper()
	f, err := os.Open(goldenResults)
	if err != nil {
		t.Fatalf("%v (run with -update to write it)", err)
	}
	defer f.Close()
	out := map[string]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), " ")
		if ok {
			out[k] = v
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

func writeGolden(t *testing.T, got map[string]string) {
	t.Helper()
	var b strings.Builder
	for _, k := range sortedKeys(got) {
		fmt.Fprintf(&b, "%s %s\n", k, got[k])
	}
	if err := os.MkdirAll(filepath.Dir(goldenResults), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(goldenResults, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
