// Package gowork reads the repository's workspace: its go.work file and
// the modules it uses. The tools find the file themselves, walking up from
// the working directory, so they run with GOWORK=off too (as when the
// workspace itself is broken and the go command cannot load it).
package gowork

import (
	"errors"
	"os"
	"path/filepath"

	"golang.org/x/mod/modfile"
)

// A Workspace is a go.work file and the modules it uses.
type Workspace struct {
	File    string // the go.work file, an absolute path
	Dir     string // its directory
	Work    *modfile.WorkFile
	Modules []Module
}

// A Module is a module the workspace uses.
type Module struct {
	Dir  string // relative to the workspace's directory, slash-separated: ".", "adapt/openaigo"
	Abs  string // absolute
	Path string // module path
}

// Find returns the go.work file of the working directory or its nearest
// parent that has one.
func Find() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		name := filepath.Join(dir, "go.work")
		if _, err := os.Stat(name); err == nil {
			return name, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("no go.work in the working directory or above it: run this inside the repository")
		}
		dir = parent
	}
}

// Load reads the workspace of the go.work file name, or of the one Find
// returns when name is empty.
func Load(name string) (*Workspace, error) {
	if name == "" {
		var err error
		if name, err = Find(); err != nil {
			return nil, err
		}
	}
	name, err := filepath.Abs(name)
	if err != nil {
		return nil, err
	}
	data, err := os.ReadFile(name)
	if err != nil {
		return nil, err
	}
	wf, err := modfile.ParseWork(name, data, nil)
	if err != nil {
		return nil, err
	}
	ws := &Workspace{File: name, Dir: filepath.Dir(name), Work: wf}
	for _, u := range wf.Use {
		m := Module{Dir: filepath.ToSlash(filepath.Clean(u.Path)), Abs: filepath.Join(ws.Dir, filepath.FromSlash(u.Path))}
		f, err := ReadMod(filepath.Join(m.Abs, "go.mod"))
		if err != nil {
			return nil, err
		}
		m.Path = f.Module.Mod.Path
		ws.Modules = append(ws.Modules, m)
	}
	return ws, nil
}

// ReadMod parses the go.mod file name.
func ReadMod(name string) (*modfile.File, error) {
	data, err := os.ReadFile(name)
	if err != nil {
		return nil, err
	}
	return modfile.Parse(name, data, nil)
}

// ByPath finds the module of the workspace with module path p.
func (ws *Workspace) ByPath(p string) (Module, bool) {
	for _, m := range ws.Modules {
		if m.Path == p {
			return m, true
		}
	}
	return Module{}, false
}
