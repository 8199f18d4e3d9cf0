package extractive

import (
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestErrorLines(t *testing.T) {
	tests := []struct {
		name, out string
		want      []string
	}{
		{"go test failure",
			"--- FAIL: TestParse/blank (0.00s)\n    parse_test.go:31: got 1, want 2\nFAIL\nexit status 1\nFAIL\texample.com/app\t0.004s\n",
			[]string{"--- FAIL: TestParse/blank (0.00s)", "parse_test.go:31: got 1, want 2", "FAIL\texample.com/app\t0.004s"}},
		{"go build error", "# app\n./main.go:4:2: undefined: x\n", []string{"./main.go:4:2: undefined: x"}},
		{"compiler warning is no error", "a.c:1:2: warning: unused variable\n", nil},
		{"grep output is no error", "internal/x.go:14:func Parse(s string) error {\n", nil},
		{"go vet style error label", "main.go:4:2: error: undefined\n", []string{"main.go:4:2: error: undefined"}},
		{"panic", "panic: runtime error: index out of range [3] with length 3\n\ngoroutine 1 [running]:\n", []string{"panic: runtime error: index out of range [3] with length 3"}},
		{"python traceback keeps its last line",
			"Traceback (most recent call last):\n  File \"x.py\", line 1, in <module>\n    import y\nModuleNotFoundError: No module named 'y'\n",
			[]string{"ModuleNotFoundError: No module named 'y'"}},
		{"chained traceback",
			"Traceback (most recent call last):\n  File \"a.py\", line 2\nKeyError: 'k'\n\nDuring handling of the above exception, another exception occurred:\n\nTraceback (most recent call last):\n  File \"a.py\", line 4\nValueError: bad\n",
			[]string{"KeyError: 'k'", "ValueError: bad"}},
		{"rust", "error[E0308]: mismatched types\n --> src/main.rs:4:5\n", []string{"error[E0308]: mismatched types"}},
		{"gcc", "match.c:12:3: error: expected ';'\n", []string{"match.c:12:3: error: expected ';'"}},
		{"typescript", "src/a.ts(3,5): error TS2322: Type 'x' is not assignable\n", []string{"src/a.ts(3,5): error TS2322: Type 'x' is not assignable"}},
		{"javascript", "Uncaught TypeError: x is undefined\n", []string{"Uncaught TypeError: x is undefined"}},
		{"pytest detail", "E   AssertionError: assert 1 == 2\nFAILED tests/test_a.py::test_x - AssertionError\n",
			[]string{"E   AssertionError: assert 1 == 2", "FAILED tests/test_a.py::test_x - AssertionError"}},
		{"bare label takes the next line", "ERROR:\nNo replacement was performed.\n", []string{"ERROR: No replacement was performed."}},
		{"Error: prefix", "Error: payment method not found", []string{"Error: payment method not found"}},
		{"shell", "bash: ponyc: command not found\nls: cannot access 'x': No such file or directory\n",
			[]string{"bash: ponyc: command not found", "ls: cannot access 'x': No such file or directory"}},
		{"SWE-agent's linter rejecting an edit",
			"Your proposed edit has introduced new syntax error(s). Please understand the fixes and retry your edit command.\n",
			[]string{"Your proposed edit has introduced new syntax error(s). Please understand the fixes and retry your edit command."}},
		{"java", "Exception in thread \"main\" java.lang.NullPointerException\n", []string{"Exception in thread \"main\" java.lang.NullPointerException"}},
		{"indented code is not an error", "    raise ValueError(msg)\n    Raises:\n        ValueError: if bad\n", nil},
		{"numbered listing is not an error", "1466:            raise ValueError(msg)\n", nil},
		{"passing output", "ok  \texample.com/app\t0.003s\nPASS\n", nil},
		{"error word in prose", "No errors found. The error rate is low.\n", nil},
		{"class definition", "class MyError(Exception):\n", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, errorLines(tt.out))
		})
	}
}

func TestCommandStatus(t *testing.T) {
	tests := []struct {
		name, out, want string
	}{
		{"go exit status", "FAIL\nexit status 1\nFAIL\tx\t0.1s", "exit 1"},
		{"exit code colon", "boom\nexit code: 2", "exit 2"},
		{"Exit code", "Exit code 0", "exit 0"},
		{"openhands", "Hello\n[The command completed with exit code 0.]\n[Command finished with exit code 0]", "exit 0"},
		{"the last code wins", "exit code 1\nretrying\nexit code 0", "exit 0"},
		{"traceback", "Traceback (most recent call last):\n  File \"a\"\nKeyError: 1", "Traceback"},
		{"fail", "--- FAIL: TestX (0.00s)\nFAIL", "FAIL"},
		{"error line", "error: could not compile", "error"},
		{"nothing", "all good", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, commandStatus(tt.out, errorLines(tt.out)))
		})
	}
}

func TestDecisions(t *testing.T) {
	type d struct {
		s string
		n int
	}
	tests := []struct {
		name, text string
		want       []d
	}{
		{"intention", "I'll check the parser first. It is long.", []d{{"I'll check the parser first.", 1}}},
		{"reasoned", "The root cause is a missing trim. We decided to keep the API", []d{
			{"The root cause is a missing trim.", 2}, {"We decided to keep the API", 2}}},
		{"instead", "Use strings.Fields instead of Split, it handles tabs.", []d{{"Use strings.Fields instead of Split, it handles tabs.", 2}}},
		{"curly apostrophe", "Let’s run the whole suite now.", []d{{"Let’s run the whole suite now.", 1}}},
		{"a colon announces a tool call", "Let's run the updated script:", nil},
		{"code fences are skipped", "```\n// I'll never be a decision because code\n```\nDone.", nil},
		{"headings are skipped", "## Step 3: I'll edit the source code", nil},
		{"abbreviations do not split", "I'll add cases, e.g. tabs and spaces, to the table.", []d{{"I'll add cases, e.g. tabs and spaces, to the table.", 1}}},
		{"words inside words do not count", "The instead_of flag is becausey.", nil},
		{"too short", "Let's go.", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []d
			decisions(tt.text, func(s string, n int) { got = append(got, d{s, n}) })
			assert.Equal(t, tt.want, got)
		})
	}
}

// FuzzHasErrorInfix holds hasErrorInfix, which matches the infixes that
// hold ": " in one pass, to what it stands for: t contains one of
// errorInfixes.
func FuzzHasErrorInfix(f *testing.F) {
	for _, s := range errorInfixes {
		f.Add(s)
		f.Add("x" + s + "y")
		f.Add(s[:len(s)-1])
	}
	for _, s := range []string{"", ": ", "::  ", "a.ts(3,4): error TS2304: x", ": : error:", `{"a": 1, "b": "c"}: error[`, "): error T"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		want := false
		for _, in := range errorInfixes {
			want = want || strings.Contains(s, in)
		}
		if got := hasErrorInfix(s); got != want {
			t.Fatalf("hasErrorInfix(%q) = %v, want %v", s, got, want)
		}
	})
}

// FuzzErrorLinesHints holds errorLines, which skips the searches its text's
// hints say cannot succeed, to the same lines read with no hints: every
// search made of every line.
func FuzzErrorLinesHints(f *testing.F) {
	for _, s := range []string{
		"", "ok\nfoo.go:3:4: error: x\n", "E   ValueError: bad\n", "bash: foo: command not found",
		"[Errno 2] No such file", "thread 'main' panicked at src/x.rs", "Your edit has syntax error(s)",
		"Traceback (most recent call last):\n  File \"x\"\nKeyError: 1\n", "ERROR:\n\nthe message",
		"--- FAIL: TestX\n    x_test.go:3: bad\nFAIL\n", "Uncaught TypeError: y", "Error with code 1",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		h := anyHints()
		want := h.errorLines(s)
		if got := errorLines(s); !slices.Equal(got, want) {
			t.Fatalf("errorLines(%q) = %q, want %q", s, got, want)
		}
	})
}
