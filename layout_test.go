package compact

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// parsePackage parses the package's non-test files.
func parsePackage(t *testing.T) map[string]*ast.File {
	t.Helper()
	fset := token.NewFileSet()
	names, err := filepath.Glob("*.go")
	require.NoError(t, err)
	files := map[string]*ast.File{}
	for _, name := range names {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		require.NoError(t, err)
		files[name] = f
	}
	require.NotEmpty(t, files)
	return files
}

// exportedNames lists the package's exported top-level identifiers, the
// methods of its types (interface methods included when withInterfaces)
// and each constant of a group.
func exportedNames(files map[string]*ast.File, withInterfaces bool) []string {
	var names []string
	for _, f := range files {
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				if !d.Name.IsExported() {
					continue
				}
				if d.Recv == nil {
					names = append(names, d.Name.Name)
					continue
				}
				recv := d.Recv.List[0].Type
				if s, ok := recv.(*ast.StarExpr); ok {
					recv = s.X
				}
				if id, ok := recv.(*ast.Ident); ok {
					names = append(names, id.Name+"."+d.Name.Name)
				}
			case *ast.GenDecl:
				for _, s := range d.Specs {
					switch s := s.(type) {
					case *ast.TypeSpec:
						if !s.Name.IsExported() {
							continue
						}
						names = append(names, s.Name.Name)
						if it, ok := s.Type.(*ast.InterfaceType); ok && withInterfaces {
							for _, m := range it.Methods.List {
								for _, n := range m.Names {
									names = append(names, s.Name.Name+"."+n.Name)
								}
							}
						}
					case *ast.ValueSpec:
						for _, n := range s.Names {
							if n.IsExported() {
								names = append(names, n.Name)
							}
						}
					}
				}
			}
		}
	}
	sort.Strings(names)
	return names
}

// The root package stays small enough to read: at most 180 exported names
// (top-level identifiers, methods and grouped constants; interface methods
// are reported but not counted). Run with -v to see the figures.
func TestTheRootExportsAtMost180Names(t *testing.T) {
	files := parsePackage(t)
	names, all := exportedNames(files, false), exportedNames(files, true)
	t.Logf("%d exported names, %d counting interface methods", len(names), len(all))
	assert.LessOrEqual(t, len(names), 180, "%s", strings.Join(names, " "))
}

// layers orders the package's files: each may use only what its own layer
// and the layers below declare (see doc.go, "Layout").
var layers = []struct {
	prefix string
	layer  int
}{
	{"message", 1}, {"validate", 1}, {"errors", 1}, {"options", 1}, {"doc", 1},
	{"prune", 2}, {"render", 2}, {"summarizer", 2}, {"extractive", 2},
	{"engine", 3}, {"compressor", 3},
	{"partial", 4}, {"handoff", 4},
}

func layerOf(file string) int {
	for _, l := range layers {
		if strings.HasPrefix(filepath.Base(file), l.prefix) {
			return l.layer
		}
	}
	return 0
}

// No file uses an unexported name declared in a file of a higher layer.
func TestLayersAreUsedOnlyDownward(t *testing.T) {
	files := parsePackage(t)
	declared := map[string]string{}
	for name, f := range files {
		require.NotZero(t, layerOf(name), "%s belongs to no layer", name)
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				if d.Recv == nil {
					declared[d.Name.Name] = name
				}
			case *ast.GenDecl:
				for _, s := range d.Specs {
					switch s := s.(type) {
					case *ast.TypeSpec:
						declared[s.Name.Name] = name
					case *ast.ValueSpec:
						for _, n := range s.Names {
							declared[n.Name] = name
						}
					}
				}
			}
		}
	}
	for name, f := range files {
		// Identifiers that name a field, a method or a key are not uses of
		// a package-level declaration.
		skip := map[*ast.Ident]bool{}
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.SelectorExpr:
				skip[n.Sel] = true
			case *ast.KeyValueExpr:
				if id, ok := n.Key.(*ast.Ident); ok {
					skip[id] = true
				}
			case *ast.FuncDecl:
				skip[n.Name] = true
			case *ast.Field:
				for _, id := range n.Names {
					skip[id] = true
				}
			}
			return true
		})
		ast.Inspect(f, func(n ast.Node) bool {
			id, ok := n.(*ast.Ident)
			if !ok || skip[id] || id.Obj != nil || id.Name == "_" || ast.IsExported(id.Name) {
				return true
			}
			if from, ok := declared[id.Name]; ok && from != name && layerOf(from) > layerOf(name) {
				t.Errorf("%s (layer %d) uses %s from %s (layer %d)", name, layerOf(name), id.Name, from, layerOf(from))
			}
			return true
		})
	}
}
