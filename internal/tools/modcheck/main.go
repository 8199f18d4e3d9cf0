// Command modcheck keeps the modules of the repository's workspace
// (go.work) consistent with one another and with what their users build.
//
//	go run ./internal/tools/modcheck                     # check (CI's "modules" step)
//	go run ./internal/tools/modcheck -w                  # fix what the check finds
//	go run ./internal/tools/modcheck -version v0.2.0 -w  # before tagging a release
//
// It checks, in this order:
//
//  1. go.work uses every module of the repository (each go.mod outside
//     testdata and hidden directories), and nothing else.
//  2. No go.mod replaces a module of the workspace: a user of an adapter
//     never sees such a line, so the repository does not rely on one.
//  3. Every requirement of one module of the workspace on another names
//     the version being released, and go.work replaces exactly that
//     version with the module's directory. Go reads the go.mod of every
//     required version, even of a module the workspace uses, so until the
//     version is published this line is what lets the workspace build
//     offline. -version rewrites the requirements and the line.
//  4. Each go.mod and go.sum is what go mod tidy writes outside the
//     workspace (GOWORK=off), the modules it requires from the repository
//     read from their directories: go mod tidy in a module of the
//     workspace ignores go.work and looks for the unpublished version on
//     the module proxy.
//  5. Each module alone selects the versions the workspace selects for
//     every module that provides a package to it or to its tests, so the
//     tests CI runs in the workspace test what a user of the module gets.
//     -w raises the module's requirements to the workspace's versions.
//  6. go.work.sum holds every checksum the workspace needs beyond the
//     modules' go.sum files (CI's tests run with GOPROXY=off).
//     -w writes it again from nothing.
//
// Checks 4 to 6 may need the module proxy when the module cache lacks a
// module; CI runs them before the tests, which run offline.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"

	"golang.org/x/mod/modfile"
	"golang.org/x/mod/semver"

	"github.com/contextkit/compact/internal/tools/gowork"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	fl := flag.NewFlagSet("modcheck", flag.ContinueOnError)
	fl.SetOutput(stderr)
	write := fl.Bool("w", false, "fix what the check finds (tidy, raise versions, rewrite go.work.sum)")
	version := fl.String("version", "", "with -w: require the repository's modules at `VERSION` (the release being made)")
	work := fl.String("work", "", "the workspace's go.work (default: the nearest above the working directory)")
	if err := fl.Parse(args); err != nil {
		return 2
	}
	if fl.NArg() > 0 || (*version != "" && (!*write || !semver.IsValid(*version) || semver.Canonical(*version) != *version)) {
		fmt.Fprintln(stderr, "usage: modcheck [-w [-version vX.Y.Z]] [-work go.work]")
		return 2
	}
	ws, err := load(*work)
	if err == nil && *version != "" {
		err = ws.setVersion(*version)
	}
	var problems []string
	if err == nil {
		problems, err = ws.check(*write, stdout)
	}
	if err != nil {
		fmt.Fprintln(stderr, "modcheck:", err)
		return 1
	}
	for _, p := range problems {
		fmt.Fprintln(stderr, p)
	}
	if len(problems) > 0 {
		return 1
	}
	return 0
}

type workspace struct {
	*gowork.Workspace
}

type module = gowork.Module

func load(work string) (*workspace, error) {
	ws, err := gowork.Load(work)
	if err != nil {
		return nil, err
	}
	return &workspace{ws}, nil
}

// workFile reads go.work again: -version edits it.
func (ws *workspace) workFile() (*modfile.WorkFile, error) {
	data, err := os.ReadFile(ws.File)
	if err != nil {
		return nil, err
	}
	return modfile.ParseWork(ws.File, data, nil)
}

func (ws *workspace) check(write bool, stdout io.Writer) ([]string, error) {
	problems, err := ws.checkListed()
	if err != nil || len(problems) > 0 {
		return problems, err
	}
	if problems, err = ws.checkReplaces(); err != nil || len(problems) > 0 {
		return problems, err
	}
	for _, m := range ws.Modules {
		p, err := ws.checkModule(m, write, stdout)
		if err != nil {
			return nil, err
		}
		problems = append(problems, p...)
	}
	p, err := ws.checkWorkSum(write, stdout)
	return append(problems, p...), err
}

// checkListed compares go.work's modules with the go.mod files of the
// repository.
func (ws *workspace) checkListed() ([]string, error) {
	found := map[string]bool{}
	err := filepath.WalkDir(ws.Dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && p != ws.Dir && (strings.HasPrefix(d.Name(), ".") || strings.HasPrefix(d.Name(), "_") || d.Name() == "testdata" || d.Name() == "vendor") {
			return filepath.SkipDir
		}
		if !d.IsDir() && d.Name() == "go.mod" {
			rel, err := filepath.Rel(ws.Dir, filepath.Dir(p))
			if err != nil {
				return err
			}
			found[filepath.ToSlash(rel)] = true
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	var problems []string
	for _, m := range ws.Modules {
		if !found[m.Dir] {
			problems = append(problems, fmt.Sprintf("go.work uses %s, which is no module of the repository", m.Dir))
		}
		delete(found, m.Dir)
	}
	for _, dir := range sortedKeys(found) {
		problems = append(problems, fmt.Sprintf("%s/go.mod is not in go.work: go work use ./%s", dir, dir))
	}
	return problems, nil
}

// checkReplaces checks that no go.mod replaces a module of the workspace
// and that go.work replaces exactly the versions the modules require of
// one another, each with its module's directory.
func (ws *workspace) checkReplaces() ([]string, error) {
	var problems []string
	required := map[string]string{} // "path version" -> a module requiring it
	for _, m := range ws.Modules {
		f, err := gowork.ReadMod(filepath.Join(m.Abs, "go.mod"))
		if err != nil {
			return nil, err
		}
		for _, r := range f.Replace {
			if _, ours := ws.ByPath(r.Old.Path); ours {
				problems = append(problems, fmt.Sprintf("%s/go.mod replaces %s, a module of the workspace: drop it (go mod edit -dropreplace=%s)", m.Dir, r.Old.Path, r.Old.Path))
			}
		}
		for _, r := range f.Require {
			if _, ours := ws.ByPath(r.Mod.Path); ours {
				required[r.Mod.Path+" "+r.Mod.Version] = m.Dir
			}
		}
	}
	versions := map[string]bool{}
	for pv := range required {
		versions[strings.Fields(pv)[1]] = true
	}
	if len(versions) > 1 {
		problems = append(problems, fmt.Sprintf("the modules require one another at several versions (%s): one release, one version (modcheck -w -version vX.Y.Z)", strings.Join(sortedKeys(versions), ", ")))
	}
	wf, err := ws.workFile()
	if err != nil {
		return nil, err
	}
	replaced := map[string]bool{}
	for _, r := range wf.Replace {
		m, ours := ws.ByPath(r.Old.Path)
		pv := r.Old.Path + " " + r.Old.Version
		switch {
		case !ours:
			problems = append(problems, fmt.Sprintf("go.work replaces %s, which is no module of the workspace", r.Old.Path))
		case required[pv] == "":
			problems = append(problems, fmt.Sprintf("go.work replaces %s %s, which no module requires: drop it", r.Old.Path, r.Old.Version))
		case filepath.Clean(filepath.Join(ws.Dir, r.New.Path)) != filepath.Clean(m.Abs) || r.New.Version != "":
			problems = append(problems, fmt.Sprintf("go.work replaces %s %s with %s, not its directory %s", r.Old.Path, r.Old.Version, r.New.Path, local(m)))
		}
		replaced[pv] = true
	}
	for _, pv := range sortedKeys(required) {
		if !replaced[pv] {
			path, version, _ := strings.Cut(pv, " ")
			m, _ := ws.ByPath(path)
			problems = append(problems, fmt.Sprintf("%s/go.mod requires %s %s, which go.work does not replace: go work edit -replace=%s@%s=%s",
				required[pv], path, version, path, version, local(m)))
		}
	}
	return problems, nil
}

// setVersion makes every requirement between modules of the workspace
// name version, and go.work replace that version.
func (ws *workspace) setVersion(version string) error {
	wf, err := ws.workFile()
	if err != nil {
		return err
	}
	for _, r := range wf.Replace {
		if _, ours := ws.ByPath(r.Old.Path); ours {
			if _, err := ws.goCmd(ws.Dir, nil, "work", "edit", "-dropreplace="+r.Old.Path+"@"+r.Old.Version); err != nil {
				return err
			}
		}
	}
	targets := map[string]bool{}
	for _, m := range ws.Modules {
		f, err := gowork.ReadMod(filepath.Join(m.Abs, "go.mod"))
		if err != nil {
			return err
		}
		for _, r := range f.Require {
			if _, ours := ws.ByPath(r.Mod.Path); ours {
				if _, err := ws.goCmd(m.Abs, nil, "mod", "edit", "-require="+r.Mod.Path+"@"+version); err != nil {
					return err
				}
				targets[r.Mod.Path] = true
			}
		}
	}
	for _, p := range sortedKeys(targets) {
		m, _ := ws.ByPath(p)
		if _, err := ws.goCmd(ws.Dir, nil, "work", "edit", "-replace="+p+"@"+version+"="+local(m)); err != nil {
			return err
		}
	}
	return nil
}

// local is the directory of m as go.work names it: ./ or ./adapt/eino.
func local(m module) string {
	if m.Dir == "." {
		return "./"
	}
	return "./" + m.Dir
}

// goCmd runs the go command in dir; env is added to the environment, with
// GOWORK set to the workspace unless env sets it, and GOFLAGS without -mod.
func (ws *workspace) goCmd(dir string, env []string, args ...string) ([]byte, error) {
	cmd := exec.Command("go", args...)
	cmd.Dir = dir
	// -mod=mod, which a workspace refuses, is dropped from GOFLAGS.
	var flags []string
	for _, f := range strings.Fields(os.Getenv("GOFLAGS")) {
		if !strings.HasPrefix(f, "-mod=") {
			flags = append(flags, f)
		}
	}
	cmd.Env = append(append(os.Environ(), "GOWORK="+ws.File, "GOFLAGS="+strings.Join(flags, " ")), env...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return out, fmt.Errorf("go %s (in %s): %v\n%s", strings.Join(args, " "), dir, err, strings.TrimSpace(stderr.String()))
	}
	return out, nil
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
