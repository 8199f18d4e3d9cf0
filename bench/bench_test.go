package bench

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/contextkit/compact"
	"github.com/contextkit/compact/internal/sharedtest"
	"github.com/contextkit/compact/tiktokengo"
	"github.com/contextkit/compact/tokens"
	"github.com/tiktoken-go/tokenizer"
)

var encodings = []string{tokens.EncodingO200KBase, tokens.EncodingCL100KBase}

// counter is one tokenizer under test.
type counter struct {
	name string
	// build returns a fresh counting function for an encoding: nothing
	// counted before is remembered, though tables built once per process
	// are shared, as they are in a host.
	build func(encoding string) (func(string) int, error)
}

var counters = []counter{
	{"compact", func(enc string) (func(string) int, error) {
		c, err := tokens.ForEncoding(enc) // CountText uses no message memo
		if err != nil {
			return nil, err
		}
		return c.CountText, nil
	}},
	{"pkoukk-tiktoken-go", func(enc string) (func(string) int, error) {
		c, err := tiktokengo.New(enc)
		if err != nil {
			return nil, err
		}
		return c.CountText, nil
	}},
	{"tiktoken-go-tokenizer", func(enc string) (func(string) int, error) {
		name := map[string]tokenizer.Encoding{tokens.EncodingO200KBase: tokenizer.O200kBase, tokens.EncodingCL100KBase: tokenizer.Cl100kBase}[enc]
		codec, err := tokenizer.Get(name)
		if err != nil {
			return nil, err
		}
		return func(s string) int {
			n, _ := codec.Count(s)
			return n
		}, nil
	}},
}

// transcriptTexts returns every text a counter counts in the shared
// transcripts' messages (contents, parts, names, tool names and arguments,
// call ids), and their total size. It skips tb when they are absent, unless
// COMPACT_REQUIRE_SHARED=1.
func transcriptTexts(tb testing.TB) ([]string, int) {
	tb.Helper()
	files := sharedtest.Files(tb)
	var texts []string
	size := 0
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			tb.Fatal(err)
		}
		var msgs []compact.Message
		if err := json.Unmarshal(data, &msgs); err != nil {
			tb.Fatalf("%s: %v", f, err)
		}
		for _, m := range msgs {
			all := []string{m.Role, m.Name, m.Content, m.Refusal, m.ReasoningContent, m.ToolCallID}
			for _, p := range m.MultiContent {
				all = append(all, p.Text)
			}
			for _, c := range m.ToolCalls {
				all = append(all, c.Function.Name, c.Function.Arguments)
			}
			for _, s := range all {
				if s != "" {
					texts = append(texts, s)
					size += len(s)
				}
			}
		}
	}
	return texts, size
}

// BenchmarkCountTranscripts counts every text of the shared transcripts
// with a fresh counter each time (cold: no memo, no cache), one goroutine.
// tokens is the total; off is how far it is from tiktoken-go's; cpu-MB/s is
// throughput by the process's CPU time, which a busy machine disturbs less
// than MB/s.
//
//	go test -run '^$' -bench CountTranscripts -benchtime 5x -count 3
func BenchmarkCountTranscripts(b *testing.B) {
	texts, size := transcriptTexts(b)
	for _, enc := range encodings {
		oracle, err := counters[1].build(enc)
		if err != nil {
			b.Fatal(err)
		}
		want := 0
		for _, s := range texts {
			want += oracle(s)
		}
		for _, c := range counters {
			b.Run(enc+"/"+c.name, func(b *testing.B) {
				if _, err := c.build(enc); err != nil { // tables, once per process
					b.Fatal(err)
				}
				tokens := 0
				b.SetBytes(int64(size))
				b.ReportAllocs()
				cpu := startCPU()
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					count, err := c.build(enc)
					if err != nil {
						b.Fatal(err)
					}
					tokens = 0
					for _, s := range texts {
						tokens += count(s)
					}
				}
				b.StopTimer()
				if secs := cpu.seconds(); secs > 0 {
					b.ReportMetric(float64(size)*float64(b.N)/secs/1e6, "cpu-MB/s")
				}
				b.ReportMetric(float64(tokens), "tokens")
				b.ReportMetric(float64(abs(tokens-want)), "off")
			})
		}
	}
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

// readyChild names the counter and encoding a child process of
// BenchmarkReady measures.
const readyChild = "COMPACT_BENCH_READY"

// TestMain runs the child of BenchmarkReady: a fresh process that builds
// one counter and counts "hello world" once, and prints how long that
// took and how much heap and resident memory it added. Otherwise it runs
// the tests and says what was skipped and why (see sharedtest.Main).
func TestMain(m *testing.M) {
	if spec := os.Getenv(readyChild); spec != "" {
		os.Exit(ready(spec))
	}
	sharedtest.Main(m)
}

func ready(spec string) int {
	name, enc, _ := strings.Cut(spec, ":")
	for _, c := range counters {
		if c.name != name {
			continue
		}
		heap0, rss0 := memory()
		start := time.Now()
		count, err := c.build(enc)
		if err == nil && count("hello world") != 2 {
			err = fmt.Errorf("hello world is not 2 tokens")
		}
		elapsed := time.Since(start)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		heap1, rss1 := memory()
		fmt.Printf("%d %d %d\n", elapsed.Nanoseconds(), heap1-heap0, rss1-rss0)
		runtime.KeepAlive(count)
		return 0
	}
	fmt.Fprintln(os.Stderr, "no counter", name)
	return 1
}

// memory returns the live heap after a collection, and the resident set
// size where the system reports it (Linux), in bytes.
func memory() (heap, rss int64) {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	if b, err := os.ReadFile("/proc/self/statm"); err == nil {
		if f := strings.Fields(string(b)); len(f) > 1 {
			pages, _ := strconv.ParseInt(f[1], 10, 64)
			rss = pages * int64(os.Getpagesize())
		}
	}
	return int64(ms.HeapAlloc), rss
}

// BenchmarkReady measures what the first count of a process waits for: a
// fresh process per iteration builds a counter and counts "hello world",
// timed inside the child (process start is not counted). ms/ready is that
// time; heap-MB and rss-MB are the live heap and resident memory the
// counter added: the rank tables and whatever else it builds.
//
//	go test -run '^$' -bench Ready -benchtime 5x -count 3
func BenchmarkReady(b *testing.B) {
	for _, enc := range encodings {
		for _, c := range counters {
			b.Run(enc+"/"+c.name, func(b *testing.B) {
				var total time.Duration
				var heap, rss int64
				for i := 0; i < b.N; i++ {
					cmd := exec.Command(os.Args[0], "-test.run=^$")
					cmd.Env = append(os.Environ(), readyChild+"="+c.name+":"+enc)
					out, err := cmd.Output()
					if err != nil {
						b.Fatalf("%v: %s", err, out)
					}
					var ns int64
					if _, err := fmt.Sscan(string(out), &ns, &heap, &rss); err != nil {
						b.Fatalf("child said %q: %v", out, err)
					}
					total += time.Duration(ns)
				}
				b.ReportMetric(float64(total.Microseconds())/1e3/float64(b.N), "ms/ready")
				b.ReportMetric(float64(heap)/(1<<20), "heap-MB")
				b.ReportMetric(float64(rss)/(1<<20), "rss-MB")
				b.ReportMetric(0, "ns/op")
			})
		}
	}
}
