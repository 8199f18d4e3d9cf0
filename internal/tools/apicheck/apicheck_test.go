package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/tools/txtar"
)

// fixture writes testdata/fixture.txtar to a temporary directory: a
// workspace of one module, example.com/shapes, with a CHANGELOG.
func fixture(t *testing.T) string {
	t.Helper()
	ar, err := txtar.ParseFile("testdata/fixture.txtar")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for _, f := range ar.Files {
		name := filepath.Join(dir, f.Name)
		if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(name, f.Data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// apicheck runs the command on the fixture in dir and returns its exit
// code, standard output and standard error.
func apicheck(t *testing.T, dir string, args ...string) (int, string, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := run(append([]string{"-work", filepath.Join(dir, "go.work")}, args...), &stdout, &stderr)
	return code, stdout.String(), stderr.String()
}

// edit replaces old with new in the file name of dir; old must be there.
func edit(t *testing.T, dir, name, old, new string) {
	t.Helper()
	name = filepath.Join(dir, name)
	data, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(data, []byte(old)) {
		t.Fatalf("%s has no %q", name, old)
	}
	if err := os.WriteFile(name, bytes.Replace(data, []byte(old), []byte(new), 1), 0o644); err != nil {
		t.Fatal(err)
	}
}

func mustRun(t *testing.T, dir string, args ...string) string {
	t.Helper()
	code, stdout, stderr := apicheck(t, dir, args...)
	if code != 0 {
		t.Fatalf("apicheck %v: exit %d\n%s%s", args, code, stdout, stderr)
	}
	return stdout
}

// The API file lists every exported symbol of the module with its
// signature, and nothing of internal packages, commands or unexported
// names.
func TestTheAPIFileListsEveryExportedSymbol(t *testing.T) {
	dir := fixture(t)
	mustRun(t, dir, "-w")
	data, err := os.ReadFile(filepath.Join(dir, "api", "shapes.txt"))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for l := range strings.Lines(string(data)) {
		if !strings.HasPrefix(l, "#") {
			got = append(got, strings.TrimPrefix(strings.TrimSuffix(l, "\n"), "pkg example.com/shapes, "))
		}
	}
	want := []string{
		"const Foot Unit = 2",
		"const Metre Unit = 1",
		"func Max[T int | float64](T, T) T",
		"func Scale(Shape, float64) Shape",
		"func Write(io.Writer, ...Shape) (int, error)",
		"method (*Square) Unit() Unit",
		"method (Pair[K, V]) Get() V",
		"method (Point) Norm() float64",
		"method (Square) Area() float64",
		"method (Square) Norm() float64", // promoted from Point
		"type Alias = Point",
		"type Pair struct, Key K",
		"type Pair struct, Value V",
		"type Pair[K comparable, V any] struct",
		"type Point struct",
		"type Point struct, X float64",
		"type Point struct, Y float64",
		"type Shape interface { Area, Unit }",
		"type Shape interface, Area() float64",
		"type Shape interface, Unit() Unit",
		"type Square struct",
		"type Square struct, Side float64",
		"type Square struct, embedded Point",
		"type Unit int",
		"var Origin Point",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("api/shapes.txt:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// Every line has a key, and no two lines share one.
	if _, err := index(strings.Split(strings.TrimSpace(string(data)), "\n")); err != nil {
		t.Error(err)
	}
	mustRun(t, dir) // the file just written matches
}

// The file is checked: code changed without -w fails the check, which
// names the file and the command.
func TestTheAPIFileMustMatchTheCode(t *testing.T) {
	dir := fixture(t)
	mustRun(t, dir, "-w")
	edit(t, dir, "shapes.go", "func hidden() {}", "func Visible() {}")
	code, _, stderr := apicheck(t, dir)
	if code != 1 || !strings.Contains(stderr, "api/shapes.txt does not match the code") ||
		!strings.Contains(stderr, "+ pkg example.com/shapes, func Visible()") ||
		!strings.Contains(stderr, "apicheck -w") {
		t.Fatalf("exit %d, stderr:\n%s", code, stderr)
	}
	mustRun(t, dir, "-w")
	mustRun(t, dir)
}

// After a release, a symbol removed without a CHANGELOG entry fails the
// check; named in the next version's section, it passes. Additions are
// listed.
func TestARemovedSymbolNeedsAChangelogEntry(t *testing.T) {
	dir := fixture(t)
	mustRun(t, dir, "-w", "-freeze", "v0.1.0")
	if _, err := os.Stat(filepath.Join(dir, "api", "v0.1.0", "shapes.txt")); err != nil {
		t.Fatal(err)
	}
	edit(t, dir, "CHANGELOG.md", "## Unreleased", "## Unreleased\n\nNothing yet.\n\n## v0.1.0")

	edit(t, dir, "shapes.go", "// Scale scales a shape.\nfunc Scale(s Shape, by float64) Shape { return s }\n", "")
	edit(t, dir, "shapes.go", "func hidden() {}", "func Grow(s Shape) Shape { return s }")
	code, stdout, stderr := apicheck(t, dir, "-w")
	if code != 1 || !strings.Contains(stderr, "shapes.Scale removed since v0.1.0") ||
		!strings.Contains(stderr, `"## Unreleased" does not name it`) {
		t.Fatalf("exit %d, stderr:\n%s", code, stderr)
	}
	if !strings.Contains(stdout, "1 added, 1 removed, 0 changed") || !strings.Contains(stdout, "+ pkg example.com/shapes, func Grow(Shape) Shape") {
		t.Errorf("additions not listed:\n%s", stdout)
	}

	// Named under the release itself, it does not count: that section is
	// what v0.1.0 already told.
	edit(t, dir, "CHANGELOG.md", "## v0.1.0", "## v0.1.0\n\n- `shapes.Scale` (a note of an earlier release)")
	if code, _, stderr := apicheck(t, dir); code != 1 {
		t.Fatalf("a name under ## v0.1.0 counted: exit %d\n%s", code, stderr)
	}
	edit(t, dir, "CHANGELOG.md", "Nothing yet.\n\n## v0.1.0", "- `shapes.Scale` is gone: use `Grow`.\n\n## v0.1.0")
	mustRun(t, dir)
}

// A changed signature needs an entry too; a type that is gone is named
// once for its fields and methods; a package that is gone is named by
// its path; the section may be the next version's own.
func TestAChangedSymbolNeedsAChangelogEntry(t *testing.T) {
	dir := fixture(t)
	mustRun(t, dir, "-w", "-freeze", "v0.1.0")
	edit(t, dir, "CHANGELOG.md", "## Unreleased\n\nNothing yet.\n", "## v0.2.0\n\nNothing yet.\n\n## v0.1.0\n")

	edit(t, dir, "shapes.go", "func Scale(s Shape, by float64) Shape", "func Scale(s Shape, by int) Shape")
	edit(t, dir, "shapes.go", "\tUnit() Unit\n}", "\tUnit() Unit\n\tName() string\n}")
	edit(t, dir, "shapes.go", "Side float64", "Edge float64")
	edit(t, dir, "shapes.go", "s.Side * s.Side", "s.Edge * s.Edge")
	code, _, stderr := apicheck(t, dir, "-w")
	for _, want := range []string{
		"shapes.Scale changed since v0.1.0: CHANGELOG.md's \"## v0.2.0\" does not name it\n" +
			"  was: pkg example.com/shapes, func Scale(Shape, float64) Shape\n" +
			"  now: pkg example.com/shapes, func Scale(Shape, int) Shape",
		"shapes.Shape changed since v0.1.0", // a method more: implementations break
		"shapes.Square.Side removed since v0.1.0",
	} {
		if !strings.Contains(stderr, want) {
			t.Errorf("missing %q in:\n%s", want, stderr)
		}
	}
	if code != 1 {
		t.Fatalf("exit %d", code)
	}
	edit(t, dir, "CHANGELOG.md", "Nothing yet.", "- `shapes.Scale` takes an int; `shapes.Shape` has `Name`; `Square.Side` is `Edge`.")
	mustRun(t, dir)

	// A type gone with its members, a package gone with its symbols.
	edit(t, dir, "shapes.go", "// Point is a point.\ntype Point struct {\n\tX, Y float64\n\tnote string\n}\n", "")
	edit(t, dir, "shapes.go", "// Norm is the distance to the origin, squared.\nfunc (p Point) Norm() float64 { return p.X*p.X + p.Y*p.Y }\n", "")
	edit(t, dir, "shapes.go", "var Origin Point", "var Origin Pair[int, int]")
	edit(t, dir, "shapes.go", "Point\n\tEdge", "Edge")
	edit(t, dir, "shapes.go", "type Alias = Point", "type Alias = Square")
	code, _, stderr = apicheck(t, dir, "-w")
	if code != 1 || !strings.Contains(stderr, "shapes.Point removed") || !strings.Contains(stderr, "shapes.Point.X removed") {
		t.Fatalf("exit %d, stderr:\n%s", code, stderr)
	}
	edit(t, dir, "CHANGELOG.md", "`Square.Side` is `Edge`.", "`Square.Side` is `Edge`; `shapes.Point`, `shapes.Origin` and `shapes.Alias` changed, `Square.Norm` and `Square.Point` went with it.")
	mustRun(t, dir)
}

// Without a section for the next version the check says where the entry
// goes.
func TestNoSectionForTheNextVersion(t *testing.T) {
	dir := fixture(t)
	mustRun(t, dir, "-w", "-freeze", "v0.1.0")
	edit(t, dir, "CHANGELOG.md", "## Unreleased", "## v0.1.0")
	edit(t, dir, "shapes.go", "func Max[T int | float64](a, b T) T { return max(a, b) }", "")
	code, _, stderr := apicheck(t, dir, "-w")
	if code != 1 || !strings.Contains(stderr, "shapes.Max removed since v0.1.0: CHANGELOG.md has no section for the release after v0.1.0") {
		t.Fatalf("exit %d, stderr:\n%s", code, stderr)
	}
}

// -freeze takes only a version newer than the last release.
func TestFreezeNeedsANewerVersion(t *testing.T) {
	dir := fixture(t)
	mustRun(t, dir, "-w", "-freeze", "v0.1.0")
	for _, v := range []string{"v0.1.0", "v0.0.9", "0.2.0", "v0.2"} {
		if code, _, stderr := apicheck(t, dir, "-freeze", v); code != 1 || !strings.Contains(stderr, "newer than the last release (v0.1.0)") {
			t.Errorf("-freeze %s: exit %d, %s", v, code, stderr)
		}
	}
}

func TestNextSections(t *testing.T) {
	changelog := "# Changelog\n\nintro\n\n## Unreleased: a\n\nA\n\n## unreleased\n\nB\n\n## v0.2.0: next\n\nC\n\n## Unreleased: old\n\nD\n\n## v0.1.0\n\nE\n"
	for _, tc := range []struct {
		base, text string
		headings   []string
	}{
		{"v0.1.0", "\nA\n\n\nB\n\n\nC\n\n", []string{"Unreleased: a", "unreleased", "v0.2.0: next"}},
		{"v0.2.0", "\nA\n\n\nB\n\n", []string{"Unreleased: a", "unreleased"}},
		{"v0.0.0", "\nA\n\n\nB\n\n\nC\n\n", []string{"Unreleased: a", "unreleased", "v0.2.0: next"}},
	} {
		text, headings := nextSections(changelog, tc.base)
		if text != tc.text || strings.Join(headings, "|") != strings.Join(tc.headings, "|") {
			t.Errorf("base %s: %q %q, want %q %q", tc.base, text, headings, tc.text, tc.headings)
		}
	}
}

func TestNamed(t *testing.T) {
	for _, tc := range []struct {
		text string
		k    key
		want bool
	}{
		{"- `compact.New` is gone", key{"github.com/contextkit/compact", "New", ""}, true},
		{"- `compact.NewThing` is new", key{"github.com/contextkit/compact", "New", ""}, false},
		{"- `compact.Newer`", key{"github.com/contextkit/compact", "New", ""}, false},
		{"- New is gone", key{"github.com/contextkit/compact", "New", ""}, false},
		{"(*session.Session).Record commits", key{"github.com/contextkit/compact/session", "Session", "Record"}, true},
		{"session.Session.Record commits", key{"github.com/contextkit/compact/session", "Session", "Record"}, true},
		{"`Result.Messages`", key{"github.com/contextkit/compact", "Result", "Messages"}, true},
		{"`MyResult.Messages`", key{"github.com/contextkit/compact", "Result", "Messages"}, false},
		{"`anthropic.Convert`", key{"github.com/contextkit/compact/adapt/anthropic/v1", "Convert", ""}, true},
	} {
		if got := named(tc.text, tc.k); got != tc.want {
			t.Errorf("named(%q, %v) = %v", tc.text, tc.k, got)
		}
	}
}
