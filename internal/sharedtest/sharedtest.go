// Package sharedtest finds the real agent transcripts that sit beside a
// checkout (../shared/transcripts) for the tests and benchmarks of every
// package and module in the repository.
//
// A bare clone has no such directory: a test that needs it skips with a
// one-line reason. CI sets COMPACT_REQUIRE_SHARED=1, which turns that skip
// into a failure, so the tests that need the transcripts always run there.
package sharedtest

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
)

// RequireEnv is the environment variable that makes a missing transcript
// directory a test failure instead of a skip.
const RequireEnv = "COMPACT_REQUIRE_SHARED"

// Required reports whether RequireEnv asks for the shared transcripts.
func Required() bool { return os.Getenv(RequireEnv) == "1" }

// Dir returns the shared transcript directory: shared/transcripts inside the
// nearest ancestor of the working directory that has one. It returns "" when
// there is none.
func Dir() string {
	wd, err := os.Getwd()
	if err != nil {
		return ""
	}
	for d := wd; ; d = filepath.Dir(d) {
		p := filepath.Join(d, "shared", "transcripts")
		if fi, err := os.Stat(p); err == nil && fi.IsDir() {
			return p
		}
		if filepath.Dir(d) == d {
			return ""
		}
	}
}

// Files returns the paths of the shared transcripts in name order. When
// there are none it skips tb, or fails it when Required.
func Files(tb testing.TB) []string {
	tb.Helper()
	dir := Dir()
	var files []string
	if dir != "" {
		files, _ = filepath.Glob(filepath.Join(dir, "*.json"))
	}
	if len(files) == 0 {
		Missing(tb)
	}
	sort.Strings(files)
	return files
}

// Missing skips tb with a one-line reason, or fails it when Required.
func Missing(tb testing.TB) {
	tb.Helper()
	const why = "no shared transcripts beside the checkout (../shared/transcripts)"
	if Required() {
		tb.Fatal(why + "; " + RequireEnv + "=1 requires them")
	}
	Skip(tb, why)
}

// skipped counts the tests Skip skipped, by reason, for Main's summary. It
// is the test binary's own record: only tests write it.
var skipped struct {
	sync.Mutex
	by map[string][]string // reason -> test names
}

// Skip skips tb with reason, and counts it for the summary Main prints.
func Skip(tb testing.TB, reason string) {
	tb.Helper()
	skipped.Lock()
	if skipped.by == nil {
		skipped.by = map[string][]string{}
	}
	skipped.by[reason] = append(skipped.by[reason], tb.Name())
	skipped.Unlock()
	tb.Skip(reason)
}

// Main runs the package's tests and then prints, for each reason tests
// were skipped with Skip or Missing, one line naming how many and why:
//
//	skipped 12 tests (TestCountsMatchTiktokenGoOnTranscripts, ...): no shared transcripts beside the checkout (../shared/transcripts)
//
// A package's TestMain calls it. The line shows where the go command shows
// a passing package's output: with -v, in a failing package, and when go
// test runs in the package's directory with no package argument.
func Main(m *testing.M) {
	code := m.Run()
	Summary(os.Stdout)
	os.Exit(code)
}

// Summary writes Main's lines to w.
func Summary(w io.Writer) {
	skipped.Lock()
	defer skipped.Unlock()
	reasons := make([]string, 0, len(skipped.by))
	for r := range skipped.by {
		reasons = append(reasons, r)
	}
	sort.Strings(reasons)
	for _, r := range reasons {
		names := skipped.by[r]
		list := strings.Join(names[:min(len(names), 3)], ", ")
		if len(names) > 3 {
			list += ", ..."
		}
		_, _ = fmt.Fprintf(w, "skipped %d tests (%s): %s\n", len(names), list, r)
	}
}

// NoPostgres is why a test that needs a Postgres server skips when
// COMPACT_PG_DSN is not set.
const NoPostgres = `no Postgres: set COMPACT_PG_DSN (e.g. eval "$(.ci/postgres.sh start)")`
