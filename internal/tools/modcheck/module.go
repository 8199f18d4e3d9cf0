package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/contextkit/compact/internal/tools/gowork"
)

// listFormat prints the module that provides each package, and its version.
const listFormat = "{{with .Module}}{{.Path}} {{.Version}}{{end}}"

// checkModule checks that module m is tidy outside the workspace and
// selects the workspace's versions (checks 4 and 5); with write it makes
// it so.
func (ws *workspace) checkModule(m module, write bool, stdout io.Writer) ([]string, error) {
	tmp, err := os.MkdirTemp("", "modcheck")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	// A copy of go.mod and go.sum in which the modules of the repository
	// it requires are read from their directories: the go command runs on
	// the copy (-modfile) in the module's directory, outside the workspace.
	gomod, gosum := filepath.Join(tmp, "go.mod"), filepath.Join(tmp, "go.sum")
	haveMod, err := os.ReadFile(filepath.Join(m.Abs, "go.mod"))
	if err != nil {
		return nil, err
	}
	haveSum, err := os.ReadFile(filepath.Join(m.Abs, "go.sum"))
	if err != nil && !os.IsNotExist(err) {
		return nil, err
	}
	if err := os.WriteFile(gomod, haveMod, 0o644); err != nil {
		return nil, err
	}
	if err := os.WriteFile(gosum, haveSum, 0o644); err != nil {
		return nil, err
	}
	f, err := gowork.ReadMod(gomod)
	if err != nil {
		return nil, err
	}
	var ours []string
	for _, r := range f.Require {
		if dep, ok := ws.ByPath(r.Mod.Path); ok {
			ours = append(ours, r.Mod.Path)
			if _, err := ws.goCmd(m.Abs, nil, "mod", "edit", "-replace="+r.Mod.Path+"="+dep.Abs, gomod); err != nil {
				return nil, err
			}
		}
	}
	alone := []string{"GOWORK=off"}
	tidy := func() error {
		_, err := ws.goCmd(m.Abs, alone, "mod", "tidy", "-modfile="+gomod)
		return err
	}
	if err := tidy(); err != nil {
		return nil, err
	}

	var problems []string
	for round := 0; ; round++ {
		wsv, err := ws.versions(m, "")
		if err != nil {
			return nil, err
		}
		alonev, err := ws.versions(m, gomod)
		if err != nil {
			return nil, err
		}
		var differ, raise []string
		for _, p := range sortedKeys(union(wsv, alonev)) {
			if wsv[p] != alonev[p] {
				differ = append(differ, fmt.Sprintf("%s %s (the workspace: %s)", p, orNone(alonev[p]), orNone(wsv[p])))
				if wsv[p] != "" {
					raise = append(raise, p+"@"+wsv[p])
				}
			}
		}
		if len(differ) == 0 {
			break
		}
		if !write || round == 3 || len(raise) == 0 {
			problems = append(problems, fmt.Sprintf("%s alone selects other versions than the workspace, for %d modules: run go run ./internal/tools/modcheck -w\n  %s",
				m.Dir, len(differ), strings.Join(differ, "\n  ")))
			break
		}
		if _, err := ws.goCmd(m.Abs, alone, append([]string{"get", "-modfile=" + gomod}, raise...)...); err != nil {
			return nil, err
		}
		if err := tidy(); err != nil {
			return nil, err
		}
	}

	for _, p := range ours {
		if _, err := ws.goCmd(m.Abs, nil, "mod", "edit", "-dropreplace="+p, gomod); err != nil {
			return nil, err
		}
	}
	wantMod, err := os.ReadFile(gomod)
	if err != nil {
		return nil, err
	}
	wantSum, err := os.ReadFile(gosum)
	if err != nil && !os.IsNotExist(err) {
		return nil, err
	}
	if bytes.Equal(haveMod, wantMod) && bytes.Equal(haveSum, wantSum) {
		if len(problems) == 0 {
			fmt.Fprintf(stdout, "modcheck: %s: tidy, at the workspace's versions\n", m.Dir)
		}
		return problems, nil
	}
	if !write {
		return append(problems, fmt.Sprintf("%s is not tidy: run go run ./internal/tools/modcheck -w%s%s",
			m.Dir, lineDiff("go.mod", haveMod, wantMod), lineDiff("go.sum", haveSum, wantSum))), nil
	}
	if err := os.WriteFile(filepath.Join(m.Abs, "go.mod"), wantMod, 0o644); err != nil {
		return nil, err
	}
	if len(wantSum) == 0 {
		err = os.Remove(filepath.Join(m.Abs, "go.sum"))
		if os.IsNotExist(err) {
			err = nil
		}
	} else {
		err = os.WriteFile(filepath.Join(m.Abs, "go.sum"), wantSum, 0o644)
	}
	if err == nil {
		fmt.Fprintf(stdout, "modcheck: wrote %s/go.mod and go.sum\n", m.Dir)
	}
	return problems, err
}

// versions maps each module (not of the workspace) that provides a
// package to m or its tests to its selected version: in the workspace, or,
// given the copy of its go.mod, in m alone.
func (ws *workspace) versions(m module, gomod string) (map[string]string, error) {
	args, env := []string{"list"}, []string(nil)
	if gomod != "" {
		args, env = append(args, "-modfile="+gomod), []string{"GOWORK=off"}
	}
	out, err := ws.goCmd(m.Abs, env, append(args, "-deps", "-test", "-f", listFormat, "./...")...)
	if err != nil {
		return nil, err
	}
	v := map[string]string{}
	for line := range strings.Lines(string(out)) {
		path, version, _ := strings.Cut(strings.TrimSpace(line), " ")
		if _, ours := ws.ByPath(path); path != "" && !ours {
			v[path] = version
		}
	}
	return v, nil
}

// checkWorkSum checks that go.work.sum holds what the workspace needs to
// load every package and test offline (check 6); with write it writes the
// file again from nothing.
func (ws *workspace) checkWorkSum(write bool, stdout io.Writer) ([]string, error) {
	name := filepath.Join(ws.Dir, "go.work.sum")
	before, err := os.ReadFile(name)
	existed := err == nil
	if err != nil && !os.IsNotExist(err) {
		return nil, err
	}
	if write && existed {
		if err := os.Remove(name); err != nil {
			return nil, err
		}
	}
	_, loadErr := ws.goCmd(ws.Dir, nil, "list", "-deps", "-test", "-f", "{{.ImportPath}}", "work")
	after, err := os.ReadFile(name)
	if err != nil && !os.IsNotExist(err) {
		return nil, err
	}
	if loadErr != nil {
		return []string{fmt.Sprintf("the workspace does not load (go.work.sum may lack checksums: run go run ./internal/tools/modcheck -w with the module proxy): %v", loadErr)}, nil
	}
	if bytes.Equal(before, after) {
		return nil, nil
	}
	if write {
		fmt.Fprintln(stdout, "modcheck: wrote go.work.sum")
		return nil, nil
	}
	// Put the file back: the check changes nothing.
	if existed {
		err = os.WriteFile(name, before, 0o644)
	} else {
		err = os.Remove(name)
	}
	return []string{fmt.Sprintf("go.work.sum lacks checksums the workspace needs: run go run ./internal/tools/modcheck -w%s",
		lineDiff("go.work.sum", before, after))}, err
}

// lineDiff lists the lines of want that have lacks and the lines it has
// that want lacks, at most 10 each.
func lineDiff(name string, have, want []byte) string {
	set := func(b []byte) map[string]bool {
		m := map[string]bool{}
		for l := range strings.Lines(string(b)) {
			m[strings.TrimRight(l, "\n")] = true
		}
		return m
	}
	h, w := set(have), set(want)
	var out []string
	add := func(sign string, from, not map[string]bool) {
		var ls []string
		for l := range from {
			if !not[l] {
				ls = append(ls, l)
			}
		}
		sort.Strings(ls)
		if len(ls) > 10 {
			ls = append(ls[:10], fmt.Sprintf("(and %d more)", len(ls)-10))
		}
		for _, l := range ls {
			out = append(out, fmt.Sprintf("\n  %s %s %s", name, sign, l))
		}
	}
	add("+", w, h)
	add("-", h, w)
	return strings.Join(out, "")
}

func union(a, b map[string]string) map[string]bool {
	u := map[string]bool{}
	for k := range a {
		u[k] = true
	}
	for k := range b {
		u[k] = true
	}
	return u
}

func orNone(v string) string {
	if v == "" {
		return "none"
	}
	return v
}
