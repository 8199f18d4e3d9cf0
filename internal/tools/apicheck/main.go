// Command apicheck keeps the exported API of every module of the
// repository in a file, and makes changing it something CI notices.
//
//	go run ./internal/tools/apicheck            # check (CI)
//	go run ./internal/tools/apicheck -w         # rewrite api/*.txt from the code
//	go run ./internal/tools/apicheck -freeze v0.1.0   # at a release: api/v0.1.0/
//
// Run it from anywhere in the repository (it finds go.work above the
// working directory). The files:
//
//   - api/NAME.txt: the API of one module as the code declares it, one line
//     per exported symbol with its signature (NAME is the root module's last
//     element, compact, or the module's directory with dashes,
//     adapt-openaigo). A module that exports nothing has no file.
//   - api/VERSION/NAME.txt: the API at a release, written by -freeze and
//     never edited; the newest VERSION is the release base.
//
// The check fails when api/NAME.txt differs from the code (run -w), and
// when a symbol of the release base is gone or changed (its line differs)
// and CHANGELOG.md's section for the next version does not name it. That
// section is the text under the first "## vX.Y.Z" heading newer than the
// base, with any "## Unreleased" sections above it. A package-level
// symbol is named as pkg.Name (compact.New), a field or method as
// Type.Member (Compressor.Compress, (*session.Session).Record), a removed
// package by its import path; the members of a type that is itself gone
// or changed are named with it. Additions are listed, not checked.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"golang.org/x/mod/semver"

	"github.com/contextkit/compact/internal/tools/gowork"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("apicheck", flag.ContinueOnError)
	fs.SetOutput(stderr)
	write := fs.Bool("w", false, "rewrite api/NAME.txt from the code")
	freeze := fs.String("freeze", "", "at a release: copy api/NAME.txt to api/`VERSION`/")
	work := fs.String("work", "", "the workspace's go.work (default: the nearest above the working directory)")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "apicheck: unexpected arguments %q\n", fs.Args())
		return 2
	}
	ws, err := loadWorkspace(*work)
	if err != nil {
		fmt.Fprintln(stderr, "apicheck:", err)
		return 1
	}
	problems, err := ws.check(*write, stdout)
	if err == nil && len(problems) == 0 && *freeze != "" {
		err = ws.freeze(*freeze)
	}
	if err != nil {
		fmt.Fprintln(stderr, "apicheck:", err)
		return 1
	}
	if len(problems) > 0 {
		for _, p := range problems {
			fmt.Fprintln(stderr, p)
		}
		return 1
	}
	return 0
}

// A workspace is the repository's modules and their API files.
type workspace struct {
	work     string            // the go.work file
	dir      string            // its directory: the repository's root
	rootPath string            // the module path of the module in dir
	names    map[string]string // module path -> NAME of api/NAME.txt
	api      map[string][]string
}

func loadWorkspace(work string) (*workspace, error) {
	gw, err := gowork.Load(work)
	if err != nil {
		return nil, err
	}
	ws := &workspace{work: gw.File, dir: gw.Dir, names: map[string]string{}}
	for _, m := range gw.Modules {
		if m.Dir == "." {
			ws.rootPath = m.Path
			ws.names[m.Path] = path.Base(m.Path)
		} else {
			ws.names[m.Path] = strings.ReplaceAll(m.Dir, "/", "-")
		}
	}
	if ws.rootPath == "" {
		return nil, fmt.Errorf("%s does not use the module in its own directory", gw.File)
	}
	ws.api, err = workspaceAPI(gw.File)
	return ws, err
}

const header = "# The exported API of %s, one line per symbol. Written by\n" +
	"# `go run ./internal/tools/apicheck -w`; see its doc for the check.\n"

// file is the text of api/NAME.txt for the module at modPath.
func (ws *workspace) file(modPath string) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, header, modPath)
	for _, l := range ws.api[modPath] {
		b.WriteString(l + "\n")
	}
	return b.Bytes()
}

// check compares the API files with the code (rewriting them with write)
// and the code with the release base, and reports each problem.
func (ws *workspace) check(write bool, stdout io.Writer) ([]string, error) {
	apiDir := filepath.Join(ws.dir, "api")
	var problems []string
	for _, modPath := range sortedKeys(ws.names) {
		name := filepath.Join(apiDir, ws.names[modPath]+".txt")
		have, err := os.ReadFile(name)
		if err != nil && !os.IsNotExist(err) {
			return nil, err
		}
		exists := err == nil
		want := ws.file(modPath)
		if len(ws.api[modPath]) == 0 {
			want = nil
		}
		switch {
		case exists == (want != nil) && bytes.Equal(have, want):
			continue
		case write && want == nil:
			err = os.Remove(name)
		case write:
			if err = os.MkdirAll(apiDir, 0o755); err == nil {
				err = os.WriteFile(name, want, 0o644)
			}
		default:
			problems = append(problems, fmt.Sprintf("%s does not match the code of %s: run go run ./internal/tools/apicheck -w%s",
				rel(ws.dir, name), modPath, diffLines(string(have), string(want))))
			continue
		}
		if err != nil {
			return nil, err
		}
		fmt.Fprintf(stdout, "wrote %s\n", rel(ws.dir, name))
	}

	// A file of a module that is gone, or exports nothing any more.
	files, err := filepath.Glob(filepath.Join(apiDir, "*.txt"))
	if err != nil {
		return nil, err
	}
	known := map[string]bool{}
	for modPath, n := range ws.names {
		known[n+".txt"] = len(ws.api[modPath]) > 0
	}
	for _, f := range files {
		if known[filepath.Base(f)] {
			continue
		}
		if _, ok := known[filepath.Base(f)]; ok {
			continue // reported above
		}
		if !write {
			problems = append(problems, fmt.Sprintf("%s belongs to no module of %s: run go run ./internal/tools/apicheck -w", rel(ws.dir, f), rel(ws.dir, ws.work)))
			continue
		}
		if err := os.Remove(f); err != nil {
			return nil, err
		}
		fmt.Fprintf(stdout, "removed %s\n", rel(ws.dir, f))
	}

	base, err := ws.base()
	if err != nil || base == "" {
		if err == nil {
			fmt.Fprintln(stdout, "api: no release yet (no api/vX.Y.Z/): nothing to compare")
		}
		return problems, err
	}
	changelog, err := os.ReadFile(filepath.Join(ws.dir, "CHANGELOG.md"))
	if err != nil {
		return nil, err
	}
	text, headings := nextSections(string(changelog), base)
	for _, modPath := range sortedKeys(ws.names) {
		old, err := readLines(filepath.Join(apiDir, base, ws.names[modPath]+".txt"))
		if err != nil {
			return nil, err
		}
		d, err := compare(old, ws.api[modPath])
		if err != nil {
			return nil, fmt.Errorf("api/%s/%s.txt: %v", base, ws.names[modPath], err)
		}
		if len(old) == 0 && len(ws.api[modPath]) == 0 {
			continue // exports nothing, and did not
		}
		fmt.Fprintf(stdout, "api: %s since %s: %d added, %d removed, %d changed\n",
			modPath, base, len(d.added), len(d.removed), len(d.changed))
		for _, l := range d.added {
			fmt.Fprintln(stdout, "  +", l)
		}
		for _, u := range d.unnamed(text, ws.rootPath) {
			where := "CHANGELOG.md has no section for the release after " + base + " (## vX.Y.Z, or ## Unreleased above it)"
			if len(headings) > 0 {
				where = "CHANGELOG.md's " + strings.Join(quoteAll(headings), ", ") + " does not name it"
			}
			problems = append(problems, fmt.Sprintf("%s %s since %s: %s\n  was: %s%s", u.name, u.how, base, where, u.old, u.now))
		}
	}
	return problems, nil
}

// base is the newest release under api/, or "" before the first.
func (ws *workspace) base() (string, error) {
	entries, err := os.ReadDir(filepath.Join(ws.dir, "api"))
	if err != nil && !os.IsNotExist(err) {
		return "", err
	}
	base := ""
	for _, e := range entries {
		if e.IsDir() && semver.IsValid(e.Name()) && (base == "" || semver.Compare(e.Name(), base) > 0) {
			base = e.Name()
		}
	}
	return base, nil
}

// freeze writes api/version/NAME.txt for every module: the API at a
// release, the base the next one is compared with.
func (ws *workspace) freeze(version string) error {
	base, err := ws.base()
	if err != nil {
		return err
	}
	if !semver.IsValid(version) || version != semver.Canonical(version) || (base != "" && semver.Compare(version, base) <= 0) {
		return fmt.Errorf("-freeze %s: want a version vX.Y.Z newer than the last release (%s)", version, base)
	}
	dir := filepath.Join(ws.dir, "api", version)
	if err := os.Mkdir(dir, 0o755); err != nil {
		return err
	}
	for modPath, name := range ws.names {
		if len(ws.api[modPath]) == 0 {
			continue
		}
		text := append([]byte(fmt.Sprintf("# The exported API of %s at %s.\n", modPath, version)), []byte(strings.Join(ws.api[modPath], "\n")+"\n")...)
		if err := os.WriteFile(filepath.Join(dir, name+".txt"), text, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// readLines reads an API file; a missing file is an empty API.
func readLines(name string) ([]string, error) {
	data, err := os.ReadFile(name)
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return strings.Split(strings.TrimSuffix(string(data), "\n"), "\n"), nil
}

// A delta is what changed between two API files of one module.
type delta struct {
	added            []string
	removed, changed []change
	oldKeys, newKeys map[key]string
}

type change struct {
	k        key
	old, now string
}

func compare(oldLines, newLines []string) (*delta, error) {
	old, err := index(oldLines)
	if err != nil {
		return nil, err
	}
	now, err := index(newLines)
	if err != nil {
		return nil, err
	}
	d := &delta{oldKeys: old, newKeys: now}
	for k, l := range now {
		if _, ok := old[k]; !ok {
			d.added = append(d.added, l)
		}
	}
	for k, l := range old {
		switch n, ok := now[k]; {
		case !ok:
			d.removed = append(d.removed, change{k, l, ""})
		case n != l:
			d.changed = append(d.changed, change{k, l, n})
		}
	}
	sort.Strings(d.added)
	return d, nil
}

// An unnamed change is one the CHANGELOG does not name.
type unnamed struct {
	name, how, old, now string
}

func (d *delta) unnamed(text, rootPath string) []unnamed {
	live := map[string]bool{} // packages that still exist
	for k := range d.newKeys {
		live[k.pkg] = true
	}
	// A type gone or changed, and named, covers its members.
	covered := func(c change) bool {
		if named(text, c.k) {
			return true
		}
		if !live[c.k.pkg] && namesPackage(text, c.k.pkg, rootPath) {
			return true
		}
		if c.k.member != "" {
			t := key{pkg: c.k.pkg, name: c.k.name}
			if d.oldKeys[t] != d.newKeys[t] && named(text, t) {
				return true
			}
		}
		return false
	}
	var out []unnamed
	for _, c := range d.removed {
		if !covered(c) {
			out = append(out, unnamed{c.k.String(), "removed", c.old, ""})
		}
	}
	for _, c := range d.changed {
		if !covered(c) {
			out = append(out, unnamed{c.k.String(), "changed", c.old, "\n  now: " + c.now})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	return out
}

// diffLines lists the lines only one of two texts has, at most 20.
func diffLines(have, want string) string {
	in := func(s string) map[string]bool {
		m := map[string]bool{}
		for l := range strings.Lines(s) {
			m[strings.TrimSuffix(l, "\n")] = true
		}
		return m
	}
	h, w := in(have), in(want)
	var out []string
	for l := range w {
		if !h[l] {
			out = append(out, "\n  + "+l)
		}
	}
	for l := range h {
		if !w[l] {
			out = append(out, "\n  - "+l)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i][5:] < out[j][5:] })
	if len(out) > 20 {
		out = append(out[:20], fmt.Sprintf("\n  (and %d more)", len(out)-20))
	}
	return strings.Join(out, "")
}

func rel(dir, name string) string {
	if r, err := filepath.Rel(dir, name); err == nil {
		return filepath.ToSlash(r)
	}
	return name
}

func quoteAll(hs []string) []string {
	out := make([]string, len(hs))
	for i, h := range hs {
		out[i] = `"## ` + h + `"`
	}
	return out
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
