// Package sharedtest finds the real agent transcripts that sit beside a
// checkout (../shared/transcripts) for the tests and benchmarks of every
// package and module in the repository.
//
// A bare clone has no such directory: a test that needs it skips with a
// one-line reason. CI sets COMPACT_REQUIRE_SHARED=1, which turns that skip
// into a failure, so the tests that need the transcripts always run there.
package sharedtest

import (
	"os"
	"path/filepath"
	"sort"
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
	tb.Skip(why)
}
