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
// library and an adapter requiring it at v0.1.0, in one workspace.
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

func modcheck(t *testing.T, dir string, args ...string) (int, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := run(append([]string{"-work", filepath.Join(dir, "go.work")}, args...), &stdout, &stderr)
	return code, stdout.String() + stderr.String()
}

func write(t *testing.T, dir, name, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func read(t *testing.T, dir, name string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// expect runs modcheck and wants the exit code and every text in its output.
func expect(t *testing.T, dir string, code int, texts []string, args ...string) {
	t.Helper()
	got, out := modcheck(t, dir, args...)
	if got != code {
		t.Errorf("modcheck %v: exit %d, want %d\n%s", args, got, code, out)
	}
	for _, text := range texts {
		if !strings.Contains(out, text) {
			t.Errorf("modcheck %v: no %q in:\n%s", args, text, out)
		}
	}
}

const adaptMod = "module example.com/lib/adapt\n\ngo 1.26.0\n\nrequire example.com/lib v0.1.0\n"

func TestTheFixtureIsConsistent(t *testing.T) {
	dir := fixture(t)
	expect(t, dir, 0, []string{"modcheck: .: tidy", "modcheck: adapt: tidy"})
}

// A replace of a module of the workspace in a go.mod fails: a user of the
// adapter never sees it.
func TestAReplaceBetweenModulesFails(t *testing.T) {
	dir := fixture(t)
	write(t, dir, "adapt/go.mod", adaptMod+"\nreplace example.com/lib => ../\n")
	expect(t, dir, 1, []string{"adapt/go.mod replaces example.com/lib, a module of the workspace"})
}

// The modules require one another at the version go.work replaces; -version
// moves both.
func TestTheReleaseVersion(t *testing.T) {
	dir := fixture(t)
	write(t, dir, "adapt/go.mod", strings.Replace(adaptMod, "v0.1.0", "v0.0.9", 1))
	expect(t, dir, 1, []string{
		"adapt/go.mod requires example.com/lib v0.0.9, which go.work does not replace: go work edit -replace=example.com/lib@v0.0.9=./",
		"go.work replaces example.com/lib v0.1.0, which no module requires",
	})
	expect(t, dir, 0, nil, "-w", "-version", "v0.2.0")
	if mod := read(t, dir, "adapt/go.mod"); !strings.Contains(mod, "require example.com/lib v0.2.0\n") {
		t.Errorf("adapt/go.mod:\n%s", mod)
	}
	if work := read(t, dir, "go.work"); !strings.Contains(work, "replace example.com/lib v0.2.0 => ./\n") || strings.Contains(work, "v0.1.0") {
		t.Errorf("go.work:\n%s", work)
	}
	expect(t, dir, 0, nil)
}

// A go.mod that go mod tidy would change fails; -w tidies it.
func TestAnUntidyModuleFails(t *testing.T) {
	dir := fixture(t)
	write(t, dir, "adapt/go.mod", strings.Replace(adaptMod, "v0.1.0", "v0.1.0 // indirect", 1))
	expect(t, dir, 1, []string{"adapt is not tidy", "go.mod - require example.com/lib v0.1.0 // indirect"})
	expect(t, dir, 0, []string{"wrote adapt/go.mod"}, "-w")
	if got := read(t, dir, "adapt/go.mod"); got != adaptMod {
		t.Errorf("adapt/go.mod after -w:\n%s", got)
	}
}

// A module of the repository go.work does not use fails; testdata is not
// looked in.
func TestEveryModuleIsInTheWorkspace(t *testing.T) {
	dir := fixture(t)
	write(t, dir, "tools/go.mod", "module example.com/lib/tools\n\ngo 1.26.0\n")
	expect(t, dir, 1, []string{"tools/go.mod is not in go.work: go work use ./tools"})
}
