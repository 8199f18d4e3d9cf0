package install

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"golang.org/x/mod/module"
	"golang.org/x/mod/zip"

	"github.com/contextkit/compact/internal/tools/gowork"
)

// The README names adapt/openaigo in its blocks; each adapter's README has
// the same blocks with its own module. The stories run the blocks of
// adapt/langchaingo's README, as printed: the packages it needs from its
// SDK are 0.5 MB of source, openai-go's 9.9 MB, and the program is
// compiled with -trimpath, which no other step of CI shares.
const (
	example = "adapt/openaigo"
	built   = "adapt/langchaingo"
)

// program is the program a reader writes where the blocks say "write your
// program": it imports the root module and the adapter built.
const program = `package main

import (
	"context"
	"fmt"
	"log"
	"strings"

	"github.com/tmc/langchaingo/llms"

	"github.com/contextkit/compact"
	adapt "github.com/contextkit/compact/adapt/langchaingo"
)

func main() {
	engine := compact.New(compact.WithContextWindow(2000))
	msgs := []llms.MessageContent{llms.TextParts(llms.ChatMessageTypeSystem, "Answer briefly.")}
	for i := range 40 {
		msgs = append(msgs,
			llms.TextParts(llms.ChatMessageTypeHuman, fmt.Sprintf("question %d: %s", i, strings.Repeat("why is it so? ", 10))),
			llms.TextParts(llms.ChatMessageTypeAI, strings.Repeat("because it is. ", 10)))
	}
	out, _, err := adapt.Compress(context.Background(), engine, msgs)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("compacted %d messages into %d\n", len(msgs), len(out))
}
`

// marker splits a block: the commands before it run in the empty
// directory, then the program is written, then the commands after it run.
const marker = "# write your program, then:"

// shell stands in for git: the README's clone becomes a link to this
// checkout, so the blocks run against it and without the network.
const shell = `set -eu
git() {
	if [ "$#" -ne 3 ] || [ "$1" != clone ] || [ "$2" != https://github.com/contextkit/compact ]; then
		echo "this test's git only clones the README's repository: git $*" >&2
		return 1
	fi
	ln -s "$COMPACT_CHECKOUT" "$3"
}
`

type repo struct {
	ws      *gowork.Workspace
	root    gowork.Module
	version string // the version being released: go.work's replace of the root
}

func load(t *testing.T) *repo {
	t.Helper()
	ws, err := gowork.Load("")
	if err != nil {
		t.Fatal(err)
	}
	r := &repo{ws: ws}
	for _, m := range ws.Modules {
		if m.Dir == "." {
			r.root = m
		}
	}
	for _, rep := range ws.Work.Replace {
		if rep.Old.Path == r.root.Path {
			r.version = rep.Old.Version
		}
	}
	if r.root.Path == "" || r.version == "" {
		t.Fatalf("%s: no root module, or no replace of its version being released", ws.File)
	}
	return r
}

func (r *repo) read(t *testing.T, name string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(r.ws.Dir, name))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// blocks finds the two install blocks of a README: the one that installs
// from a release (go get) and the one that installs from a clone (go work
// init).
func blocks(t *testing.T, name, text string) (release, clone string) {
	t.Helper()
	for _, b := range regexp.MustCompile("(?s)```sh\n(.*?)```\n").FindAllStringSubmatch(text, -1) {
		switch {
		case strings.Contains(b[1], "go work init"):
			if clone != "" {
				t.Errorf("%s has two blocks with go work init", name)
			}
			clone = b[1]
		case strings.Contains(b[1], "go get github.com/contextkit/compact"):
			if release != "" {
				t.Errorf("%s has two blocks with go get", name)
			}
			release = b[1]
		}
	}
	if release == "" || clone == "" {
		t.Fatalf("%s lacks an install block (go get %v, go work init %v)", name, release != "", clone != "")
	}
	return release, clone
}

// installSection is the README's "## Install" section.
func installSection(t *testing.T, readme string) string {
	t.Helper()
	_, after, ok := strings.Cut(readme, "\n## Install\n")
	if !ok {
		t.Fatal("README.md has no ## Install section")
	}
	section, _, _ := strings.Cut(after, "\n## ")
	return section
}

// The README and each adapter's README give one story: the same two
// blocks, each naming its own module, at the version being released.
func TestEveryREADMETellsTheSameStory(t *testing.T) {
	r := load(t)
	release, clone := blocks(t, "README.md", installSection(t, r.read(t, "README.md")))
	for _, b := range []string{release, clone} {
		if !strings.Contains(b, example) || !strings.Contains(b, "@"+r.version) {
			t.Errorf("README.md's block does not name %s at %s (go.work's version being released):\n%s", example, r.version, b)
		}
		if strings.Count(b, marker+"\n") != 1 {
			t.Errorf("README.md's block has no line %q:\n%s", marker, b)
		}
	}
	adapters := 0
	for _, m := range r.ws.Modules {
		if !strings.HasPrefix(m.Dir, "adapt/") {
			continue
		}
		adapters++
		name := m.Dir + "/README.md"
		rel, cl := blocks(t, name, r.read(t, name))
		if want := strings.ReplaceAll(release, example, m.Dir); rel != want {
			t.Errorf("%s installs from a release otherwise than README.md:\n%s\nwant:\n%s", name, rel, want)
		}
		if want := strings.ReplaceAll(clone, example, m.Dir); cl != want {
			t.Errorf("%s installs from a clone otherwise than README.md:\n%s\nwant:\n%s", name, cl, want)
		}
	}
	if adapters == 0 {
		t.Error("go.work uses no adapter")
	}
}

// The story of go.mod replace lines, which the workspace replaces, is told
// nowhere any more.
func TestNoDocTellsTheReplaceStory(t *testing.T) {
	r := load(t)
	names := []string{"README.md", "ARCHITECTURE.md"}
	for _, pattern := range []string{"adapt/*/README.md", "docs/*.md"} {
		found, err := filepath.Glob(filepath.Join(r.ws.Dir, pattern))
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range found {
			rel, _ := filepath.Rel(r.ws.Dir, f)
			names = append(names, filepath.ToSlash(rel))
		}
	}
	old := regexp.MustCompile(`replace github\.com/contextkit/compact(/\S+)? =>|-replace=github\.com/contextkit/compact(/[^@=\s]+)?=|(two|both) .?replace`)
	for _, name := range names {
		// Lines joined: a sentence may break anywhere.
		text := strings.Join(strings.Fields(r.read(t, name)), " ")
		for _, m := range old.FindAllStringIndex(text, -1) {
			t.Errorf("%s tells the replace story: ...%s...", name, text[max(0, m[0]-60):min(len(text), m[1]+60)])
		}
	}
}

// From a clone: the block, as printed, in an empty directory beside the
// clone, builds and runs a program importing the root and an adapter.
func TestInstallFromAClone(t *testing.T) {
	r := load(t)
	_, clone := blocks(t, built+"/README.md", r.read(t, built+"/README.md"))
	dir := filepath.Join(t.TempDir(), "agent")
	out := r.story(t, dir, clone, env("GOFLAGS=-trimpath", "GOPROXY="+goEnv(t, "GOPROXY")))
	if !strings.Contains(out, "compacted 81 messages into") {
		t.Errorf("the program's output: %q", out)
	}
	if _, err := os.Stat(filepath.Join(dir, "go.work")); err != nil {
		t.Error("the block made no go.work:", err)
	}
}

// From a release: the block, as printed, in an empty directory, with the
// root module and the adapter served at the version being released by a
// module proxy made of this checkout, and every other module from the
// module cache.
func TestInstallFromARelease(t *testing.T) {
	r := load(t)
	release, _ := blocks(t, built+"/README.md", r.read(t, built+"/README.md"))
	tmp := t.TempDir()
	dir := filepath.Join(tmp, "agent")
	out := r.story(t, dir, release, r.released(t, tmp))
	if !strings.Contains(out, "compacted 81 messages into") {
		t.Errorf("the program's output: %q", out)
	}
	gomod, err := os.ReadFile(filepath.Join(dir, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{r.root.Path, r.root.Path + "/" + built} {
		if want := fmt.Sprintf("\t%s %s\n", p, r.version); !bytes.Contains(gomod, []byte(want)) {
			t.Errorf("go.mod after the block does not require %s %s:\n%s", p, r.version, gomod)
		}
	}
}

// What the README says of go mod tidy run before the code: in a module
// that imports nothing of the root, it drops the requirement go get added
// (issue 31's reader, who ran the steps of an older README in that order).
func TestTidyBeforeTheCodeDropsTheRequirement(t *testing.T) {
	r := load(t)
	tmp := t.TempDir()
	dir := filepath.Join(tmp, "agent")
	out := r.story(t, dir, "go mod init example.com/agent\ngo get "+r.root.Path+"@"+r.version+"\ngo mod tidy\n"+marker+"\n", r.released(t, tmp))
	gomod, err := os.ReadFile(filepath.Join(dir, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, `"all" matched no packages`) || bytes.Contains(gomod, []byte(r.root.Path)) {
		t.Errorf("go mod tidy before the code printed %q and left go.mod:\n%s", out, gomod)
	}
}

// released is the environment of a reader after the release: the root
// module and the adapter built served at the version being released by a
// module proxy made of this checkout (a directory in tmp), every other
// module by the module cache, which is one of tmp's own, so the versions
// made here never reach the real one.
func (r *repo) released(t *testing.T, tmp string) []string {
	t.Helper()
	proxy := filepath.Join(tmp, "proxy")
	adapter, ok := r.ws.ByPath(r.root.Path + "/" + built)
	if !ok {
		t.Fatalf("go.work does not use %s", built)
	}
	for _, m := range []gowork.Module{r.root, adapter} {
		publish(t, proxy, m, r.version)
	}
	proxies := "file://" + proxy + ",file://" + filepath.Join(goEnv(t, "GOMODCACHE"), "cache", "download") + "," + goEnv(t, "GOPROXY")
	return env(
		"GOMODCACHE="+filepath.Join(tmp, "modcache"),
		"GOFLAGS=-trimpath -modcacherw", // writable: the temporary directory's cleanup removes it
		"GOPROXY="+proxies,
		"GOSUMDB=off", // the versions made here are in no checksum database
	)
}

// story runs a block in the empty directory dir: the commands before the
// marker, then the program is written, then the commands after it. It
// returns what the commands print.
func (r *repo) story(t *testing.T, dir, block string, env []string) string {
	t.Helper()
	before, after, ok := strings.Cut(block, marker+"\n")
	if !ok {
		t.Fatalf("the block has no line %q:\n%s", marker, block)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	env = append(env, "COMPACT_CHECKOUT="+r.ws.Dir)
	sh := func(script string) string {
		cmd := exec.Command("bash", "-c", shell+script)
		cmd.Dir, cmd.Env = dir, env
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%s\nin %s: %v\n%s", script, dir, err, out)
		}
		return string(out)
	}
	out := sh(before)
	if err := os.WriteFile(filepath.Join(dir, "main.go"), []byte(program), 0o644); err != nil {
		t.Fatal(err)
	}
	return out + sh(after)
}

// publish writes module m of this checkout to a module proxy directory at
// version, as the module proxy serves a tagged release.
func publish(t *testing.T, proxy string, m gowork.Module, version string) {
	t.Helper()
	escaped, err := module.EscapePath(m.Path)
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(proxy, filepath.FromSlash(escaped), "@v")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	gomod, err := os.ReadFile(filepath.Join(m.Abs, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	files := map[string][]byte{
		"list":            []byte(version + "\n"),
		version + ".info": fmt.Appendf(nil, `{"Version":%q,"Time":"2026-01-01T00:00:00Z"}`, version),
		version + ".mod":  gomod,
	}
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	f, err := os.Create(filepath.Join(dir, version+".zip"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := zip.CreateFromDir(f, module.Version{Path: m.Path, Version: version}, m.Abs); err != nil {
		t.Fatalf("zip of %s: %v", m.Dir, err)
	}
}

// env is the test's environment for the go command in a reader's
// directory: the settings below dropped, then extra.
func env(extra ...string) []string {
	var out []string
	for _, e := range os.Environ() {
		switch k, _, _ := strings.Cut(e, "="); k {
		case "GOWORK", "GOFLAGS", "GOMODCACHE", "GOPROXY", "GOSUMDB", "GONOSUMDB", "GONOSUMCHECK", "GOPRIVATE", "GONOPROXY", "GOINSECURE", "COMPACT_CHECKOUT":
			continue
		}
		out = append(out, e)
	}
	return append(out, extra...)
}

// goEnv is a go env value of the test's own environment.
func goEnv(t *testing.T, name string) string {
	t.Helper()
	out, err := exec.Command("go", "env", name).Output()
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(out))
}
