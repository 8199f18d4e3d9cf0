package compact

import (
	"bufio"
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The targets issue 22 set for the root package: small enough to read.
const (
	// maxRootLines bounds the root's non-test code, in lines.
	maxRootLines = 5_000
	// maxRootNames bounds the root's exported names: top-level
	// identifiers, methods and grouped constants (interface methods are
	// reported but not counted). Issue 22 set 130; issue 24 names two
	// options of the Compressor, WithPricing and WithEconomy, and its
	// other names live in package models. Issue 32 allows 145: the named
	// values of Rule and RepairKind, and the named interfaces of a
	// summarizer's capabilities.
	maxRootNames = 145
)

// modulePath is the import path of this module.
const modulePath = "github.com/contextkit/compact"

// checked is the root package's non-test files, parsed and type-checked
// once for every test of this file.
type checked struct {
	fset  *token.FileSet
	files map[string]*ast.File // by file name
	pkg   *types.Package
	info  *types.Info
}

var (
	checkOnce sync.Once
	checkRes  *checked
	checkErr  error
)

// rootChecked type-checks the root package. Its imports are read from the
// export data the go command builds (go list -export), as go/packages
// does, which takes a second where checking them from source takes many.
func rootChecked(t *testing.T) *checked {
	t.Helper()
	checkOnce.Do(func() { checkRes, checkErr = typeCheck() })
	require.NoError(t, checkErr)
	return checkRes
}

func typeCheck() (*checked, error) {
	out, err := exec.Command("go", "list", "-export", "-deps", "-f", "{{.ImportPath}}\t{{.Export}}", ".").Output()
	if err != nil {
		return nil, err
	}
	exports := map[string]string{}
	sc := bufio.NewScanner(strings.NewReader(string(out)))
	for sc.Scan() {
		if path, file, ok := strings.Cut(sc.Text(), "\t"); ok {
			exports[path] = file
		}
	}
	c := &checked{fset: token.NewFileSet(), files: map[string]*ast.File{}}
	names, err := filepath.Glob("*.go")
	if err != nil {
		return nil, err
	}
	var files []*ast.File
	for _, name := range names {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(c.fset, name, nil, parser.ParseComments)
		if err != nil {
			return nil, err
		}
		c.files[name] = f
		files = append(files, f)
	}
	imp := importer.ForCompiler(c.fset, "gc", func(path string) (io.ReadCloser, error) {
		return os.Open(exports[path])
	})
	c.info = &types.Info{Uses: map[*ast.Ident]types.Object{}, Selections: map[*ast.SelectorExpr]*types.Selection{}}
	c.pkg, err = (&types.Config{Importer: imp}).Check(modulePath, c.fset, files, c.info)
	return c, err
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
				if id, ok := recv.(*ast.Ident); ok && id.IsExported() {
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

// The root package stays small enough to read: at most maxRootLines lines
// of non-test code and maxRootNames exported names. Run with -v to see the
// figures.
func TestTheRootStaysSmall(t *testing.T) {
	c := rootChecked(t)
	lines := 0
	for name := range c.files {
		data, err := os.ReadFile(name)
		require.NoError(t, err)
		lines += strings.Count(string(data), "\n")
	}
	names, all := exportedNames(c.files, false), exportedNames(c.files, true)
	t.Logf("%d lines of non-test code in %d files; %d exported names, %d counting interface methods",
		lines, len(c.files), len(names), len(all))
	assert.LessOrEqual(t, lines, maxRootLines, "lines of non-test code")
	assert.LessOrEqual(t, len(names), maxRootNames, "%s", strings.Join(names, " "))
}

// layers orders the root's files: each may use only what its own layer and
// the layers below declare. Contracts and guards first, then the types an
// engine reports, the options, the Compressor, and partial compaction,
// which drives any engine.
var layers = []struct {
	prefix string
	layer  int
}{
	{"message", 1}, {"validate", 1}, {"errors", 1}, {"summarizer", 1}, {"render", 1}, {"doc", 1},
	{"engine", 2},
	{"options", 3},
	{"compressor", 4}, {"extractive", 4},
	{"partial", 5},
}

func layerOf(file string) int {
	for _, l := range layers {
		if strings.HasPrefix(filepath.Base(file), l.prefix) {
			return l.layer
		}
	}
	return 0
}

// No file of the root uses a name declared in a file of a higher layer:
// not a function, type, constant or variable, exported or not, and not a
// method or field reached through a selector.
func TestLayersAreUsedOnlyDownward(t *testing.T) {
	c := rootChecked(t)
	for name := range c.files {
		require.NotZero(t, layerOf(name), "%s belongs to no layer", name)
	}
	check := func(at token.Pos, obj types.Object) {
		if obj == nil || obj.Pkg() != c.pkg || !obj.Pos().IsValid() {
			return
		}
		from := filepath.Base(c.fset.Position(at).Filename)
		decl := filepath.Base(c.fset.Position(obj.Pos()).Filename)
		assert.LessOrEqual(t, layerOf(decl), layerOf(from), "%s (layer %d) uses %s from %s (layer %d)", from, layerOf(from), obj.Name(), decl, layerOf(decl))
	}
	used := 0
	for id, obj := range c.info.Uses {
		if _, local := obj.(*types.Var); local && obj.Parent() != nil && obj.Parent() != c.pkg.Scope() {
			continue // a local variable or parameter
		}
		check(id.Pos(), obj)
		used++
	}
	for sel, s := range c.info.Selections {
		check(sel.Sel.Pos(), s.Obj())
		used++
	}
	assert.Greater(t, used, 1000, "the check saw the package's uses")
}

// ranks orders the module's packages by layer: a package imports only
// packages of a lower rank. A package not listed is above the root
// (session, openaicompat, compacttest, cmd, examples...) and may import
// anything but its own kind's internals.
var ranks = map[string]int{
	"redact":                      0,
	"models":                      0,
	"tokens/internal/bpe":         0,
	"tokens/internal/rankgen":     0,
	"tokens":                      1,
	"internal/english":            0,
	"internal/textcut":            1,
	"internal/cmdargs":            0,
	"internal/economy":            1,
	"internal/meter":              2,
	"internal/trigger":            2,
	"internal/msg":                2,
	"internal/memo":               0,
	"internal/extractive":         3,
	"internal/promptsize":         3,
	"prune":                       3,
	"handoff":                     3,
	"":                            4, // the root
	"internal/sharedtest":         0,
	"internal/racetest":           0,
	"internal/secrettest":         0,
	"internal/msgtest":            3,
	"internal/align":              5, // the SDK adapters' shared code, on the root
	"session/store":               5, // what a store implements; session is above it
	"session/internal/codec":      5,
	"session/internal/fleet":      6,
	"session/internal/legacy":     6,
	"session/internal/storebench": 6,
}

// rankOf is the rank of the package in dir (relative to the module), and
// whether it is one of the ranked layers.
func rankOf(dir string) (int, bool) {
	r, ok := ranks[dir]
	if !ok {
		return 5, false
	}
	return r, true
}

// The package graph keeps the layers: a ranked package imports only
// packages of a lower rank, and no package of the module imports one of a
// higher rank than its own. (Tests and the nested modules, adapt/ and
// bench/, are left out: they stand on top.)
func TestPackagesImportOnlyDownward(t *testing.T) {
	imports := map[string]map[string]bool{} // package dir -> imported dirs of ours
	err := filepath.WalkDir(".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if p != "." && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata" || p == "adapt" || p == "bench") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), p, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		dir := filepath.ToSlash(filepath.Dir(p))
		if dir == "." {
			dir = ""
		}
		if imports[dir] == nil {
			imports[dir] = map[string]bool{}
		}
		for _, imp := range f.Imports {
			path := strings.Trim(imp.Path.Value, `"`)
			if path == modulePath {
				imports[dir][""] = true
			} else if rest, ok := strings.CutPrefix(path, modulePath+"/"); ok {
				imports[dir][rest] = true
			}
		}
		return nil
	})
	require.NoError(t, err)
	for dir := range ranks {
		if dir != "" {
			assert.Contains(t, imports, dir, "ranked package %q exists", dir)
		}
	}
	for dir, deps := range imports {
		from, ranked := rankOf(dir)
		for dep := range deps {
			to, _ := rankOf(dep)
			assert.False(t, to >= from && (ranked || to > from), "%q (rank %d) imports %q (rank %d)", dir, from, dep, to)
		}
	}
}

// Each constructor takes only its own option type: an option of one part
// handed to another does not compile. (The extractive summarizer takes
// no options: a settings struct, ExtractiveOptions.)
func TestEachConstructorTakesOnlyItsOwnOptions(t *testing.T) {
	c := rootChecked(t)
	pkgs := map[string]*types.Package{"compact": c.pkg}
	for _, imp := range c.pkg.Imports() {
		switch imp.Path() {
		case modulePath + "/tokens", modulePath + "/prune":
			pkgs[imp.Name()] = imp
		}
	}
	require.Len(t, pkgs, 3)

	// options are the exported functions named With*, by package.
	type option struct {
		name string
		typ  types.Type
	}
	var options []option
	for pname, p := range pkgs {
		for _, n := range p.Scope().Names() {
			f, ok := p.Scope().Lookup(n).(*types.Func)
			if !ok || !f.Exported() || !strings.HasPrefix(n, "With") {
				continue
			}
			// Per-call options (CompressOption) are another grammar.
			if res := f.Type().(*types.Signature).Results(); res.Len() == 1 && !strings.HasSuffix(res.At(0).Type().String(), ".CompressOption") {
				options = append(options, option{pname + "." + n, res.At(0).Type()})
			}
		}
	}
	constructors := []struct {
		pkg, name string
		want      func(opt string) bool
	}{
		{"compact", "New", func(o string) bool { return strings.HasPrefix(o, "compact.") }},
		{"tokens", "ForModel", func(o string) bool { return strings.HasPrefix(o, "tokens.") }},
		{"tokens", "ForEncoding", func(o string) bool { return strings.HasPrefix(o, "tokens.") }},
		{"prune", "New", func(o string) bool { return strings.HasPrefix(o, "prune.") }},
		{"prune", "Apply", func(o string) bool { return strings.HasPrefix(o, "prune.") }},
	}
	for _, k := range constructors {
		f, ok := pkgs[k.pkg].Scope().Lookup(k.name).(*types.Func)
		require.True(t, ok, "%s.%s", k.pkg, k.name)
		sig := f.Type().(*types.Signature)
		require.True(t, sig.Variadic(), "%s.%s takes options", k.pkg, k.name)
		param := sig.Params().At(sig.Params().Len() - 1).Type().(*types.Slice).Elem()
		for _, o := range options {
			assert.Equal(t, k.want(o.name), types.AssignableTo(o.typ, param),
				"%s.%s(%s) compiles", k.pkg, k.name, o.name)
		}
	}
	assert.Greater(t, len(options), 30)
}
