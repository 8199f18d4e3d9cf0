package main

import (
	"fmt"
	"go/types"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"golang.org/x/tools/go/packages"
)

// workspaceAPI lists the exported API of every module of the workspace
// described by workFile, by module path: one line per symbol, sorted.
// Packages named main, packages under an internal directory and test
// files are left out: nothing outside the module can import them. A
// module that exports nothing has no entry.
func workspaceAPI(workFile string) (map[string][]string, error) {
	cfg := &packages.Config{
		Dir: filepath.Dir(workFile),
		Env: append(os.Environ(), "GOWORK="+workFile),
		// Types from export data: the compiler's view of each package,
		// without parsing or type-checking its dependencies from source.
		Mode: packages.NeedName | packages.NeedTypes | packages.NeedModule,
	}
	pkgs, err := packages.Load(cfg, "work")
	if err != nil {
		return nil, err
	}
	api := map[string][]string{}
	for _, p := range pkgs {
		if len(p.Errors) > 0 {
			return nil, fmt.Errorf("%s: %v", p.PkgPath, p.Errors[0])
		}
		if p.Name == "main" || isInternal(p.PkgPath) || p.Types == nil || p.Module == nil {
			continue
		}
		if lines := packageAPI(p.Types); len(lines) > 0 {
			api[p.Module.Path] = append(api[p.Module.Path], lines...)
		}
	}
	for _, lines := range api {
		sort.Strings(lines)
	}
	return api, nil
}

// isInternal reports whether an import path has an internal element.
func isInternal(pkgPath string) bool {
	for _, e := range strings.Split(pkgPath, "/") {
		if e == "internal" {
			return true
		}
	}
	return false
}

// packageAPI lists one package's exported symbols.
func packageAPI(pkg *types.Package) []string {
	w := &writer{pkg: pkg, prefix: "pkg " + pkg.Path() + ", "}
	scope := pkg.Scope()
	for _, name := range scope.Names() {
		obj := scope.Lookup(name)
		if !obj.Exported() {
			continue
		}
		switch obj := obj.(type) {
		case *types.Const:
			w.emit("const %s %s = %s", name, w.typ(obj.Type()), obj.Val().String())
		case *types.Var:
			w.emit("var %s %s", name, w.typ(obj.Type()))
		case *types.Func:
			sig := obj.Type().(*types.Signature)
			w.emit("func %s%s%s", name, w.typeParams(sig.TypeParams()), w.signature(sig))
		case *types.TypeName:
			w.typeName(obj)
		}
	}
	return w.lines
}

// writer formats the symbols of one package.
type writer struct {
	pkg    *types.Package
	prefix string
	lines  []string
}

func (w *writer) emit(format string, args ...any) {
	w.lines = append(w.lines, w.prefix+fmt.Sprintf(format, args...))
}

// qualify names a package other than the one listed by its name.
func (w *writer) qualify(p *types.Package) string {
	if p == w.pkg {
		return ""
	}
	return p.Name()
}

func (w *writer) typ(t types.Type) string {
	if sig, ok := t.(*types.Signature); ok {
		return "func" + w.signature(sig)
	}
	return types.TypeString(t, w.qualify)
}

// signature formats parameters and results by type alone: renaming a
// parameter does not change the API.
func (w *writer) signature(sig *types.Signature) string {
	var b strings.Builder
	b.WriteString("(")
	for i := range sig.Params().Len() {
		if i > 0 {
			b.WriteString(", ")
		}
		t := sig.Params().At(i).Type()
		if sig.Variadic() && i == sig.Params().Len()-1 {
			b.WriteString("..." + w.typ(t.(*types.Slice).Elem()))
			continue
		}
		b.WriteString(w.typ(t))
	}
	b.WriteString(")")
	switch res := sig.Results(); res.Len() {
	case 0:
	case 1:
		b.WriteString(" " + w.typ(res.At(0).Type()))
	default:
		b.WriteString(" (")
		for i := range res.Len() {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(w.typ(res.At(i).Type()))
		}
		b.WriteString(")")
	}
	return b.String()
}

func (w *writer) typeParams(tps *types.TypeParamList) string {
	if tps.Len() == 0 {
		return ""
	}
	parts := make([]string, tps.Len())
	for i := range tps.Len() {
		tp := tps.At(i)
		parts[i] = tp.Obj().Name() + " " + w.typ(tp.Constraint())
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

// typeName lists a type: its declaration, the exported fields of a
// struct, the methods of an interface, and the method set of any other
// named type (promoted methods included: losing one breaks callers too).
func (w *writer) typeName(obj *types.TypeName) {
	name := obj.Name()
	if obj.IsAlias() {
		w.emit("type %s = %s", name, w.typ(types.Unalias(obj.Type())))
		return
	}
	named, ok := obj.Type().(*types.Named)
	if !ok {
		w.emit("type %s %s", name, w.typ(obj.Type()))
		return
	}
	decl := name + w.typeParams(named.TypeParams())
	switch u := named.Underlying().(type) {
	case *types.Struct:
		w.emit("type %s struct", decl)
		for i := range u.NumFields() {
			f := u.Field(i)
			switch {
			case f.Embedded():
				w.emit("type %s struct, embedded %s", name, w.typ(f.Type()))
			case f.Exported():
				w.emit("type %s struct, %s %s", name, f.Name(), w.typ(f.Type()))
			}
		}
	case *types.Interface:
		var names []string
		unexported := false
		for i := range u.NumMethods() {
			m := u.Method(i)
			if !m.Exported() {
				unexported = true
				continue
			}
			names = append(names, m.Name())
			w.emit("type %s interface, %s%s", name, m.Name(), w.signature(m.Type().(*types.Signature)))
		}
		sort.Strings(names)
		if unexported {
			names = append(names, "unexported methods")
		}
		if !u.IsMethodSet() {
			// A constraint: its type terms are part of the contract.
			w.emit("type %s %s", decl, w.typ(u))
			return
		}
		w.emit("type %s interface { %s }", decl, strings.Join(names, ", "))
		return
	default:
		w.emit("type %s %s", decl, w.typ(u))
	}
	w.methods(named)
}

// methods lists the exported methods of a named type's pointer method set,
// each with the receiver it is declared on or promoted through.
func (w *writer) methods(named *types.Named) {
	recv := named.Obj().Name()
	if tps := named.TypeParams(); tps.Len() > 0 {
		args := make([]string, tps.Len())
		for i := range tps.Len() {
			args[i] = tps.At(i).Obj().Name()
		}
		recv += "[" + strings.Join(args, ", ") + "]"
	}
	values := types.NewMethodSet(named)
	ptrs := types.NewMethodSet(types.NewPointer(named))
	for i := range ptrs.Len() {
		m := ptrs.At(i).Obj()
		if !m.Exported() {
			continue
		}
		r := "*" + recv
		if values.Lookup(m.Pkg(), m.Name()) != nil {
			r = recv
		}
		w.emit("method (%s) %s%s", r, m.Name(), w.signature(m.Type().(*types.Signature)))
	}
}

// packageName is the name a CHANGELOG uses for the package at pkgPath: its
// last element, or the one before a version element (a path
// example.com/x/v2 is package x).
func packageName(pkgPath string) string {
	base := path.Base(pkgPath)
	if len(base) > 1 && base[0] == 'v' && strings.Trim(base[1:], "0123456789") == "" {
		return path.Base(path.Dir(pkgPath))
	}
	return base
}
