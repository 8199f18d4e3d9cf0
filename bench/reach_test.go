package bench

import (
	"go/types"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"golang.org/x/tools/go/callgraph"
	"golang.org/x/tools/go/callgraph/static"
	"golang.org/x/tools/go/packages"
	"golang.org/x/tools/go/ssa"
	"golang.org/x/tools/go/ssa/ssautil"
)

// rootModule is the import path of the module whose engine is measured.
const rootModule = "github.com/contextkit/compact"

// reach lists the functions of the root module that fn statically reaches:
// direct calls of functions and methods, and the closures they create, not
// calls through an interface or a function value. Functions of other
// modules and of the standard library are left out.
func reach(t *testing.T, typ, method string) []*ssa.Function {
	t.Helper()
	cfg := &packages.Config{Mode: packages.LoadAllSyntax, Dir: ".."}
	pkgs, err := packages.Load(cfg, rootModule)
	if err != nil {
		t.Fatal(err)
	}
	if packages.PrintErrors(pkgs) > 0 {
		t.Fatal("the root package does not load")
	}
	prog, _ := ssautil.AllPackages(pkgs, ssa.InstantiateGenerics)
	prog.Build()
	var root *ssa.Function
	for _, p := range prog.AllPackages() {
		if p.Pkg.Path() != rootModule {
			continue
		}
		named := p.Type(typ)
		if named == nil {
			t.Fatalf("no type %s", typ)
		}
		sel := prog.MethodSets.MethodSet(namedPointer(named.Type())).Lookup(p.Pkg, method)
		if sel == nil {
			t.Fatalf("no method %s.%s", typ, method)
		}
		root = prog.MethodValue(sel)
	}
	if root == nil {
		t.Fatalf("%s not found", rootModule)
	}
	cg := static.CallGraph(prog)
	seen := map[*ssa.Function]bool{}
	var out []*ssa.Function
	var walk func(n *callgraph.Node)
	walk = func(n *callgraph.Node) {
		if n == nil || seen[n.Func] {
			return
		}
		seen[n.Func] = true
		if ours(n.Func) {
			out = append(out, n.Func)
		}
		for _, e := range n.Out {
			walk(e.Callee)
		}
	}
	walk(cg.Nodes[root])
	return out
}

// ours reports whether fn is declared in the root module (any package).
func ours(fn *ssa.Function) bool {
	for f := fn; f != nil; f = f.Parent() {
		if f.Pkg != nil {
			path := f.Pkg.Pkg.Path()
			return path == rootModule || strings.HasPrefix(path, rootModule+"/")
		}
		if f.Origin() != nil {
			return ours(f.Origin())
		}
	}
	return false
}

// maxCompressReach bounds what Compressor.Compress statically reaches
// (issue 22): the engine reaches the summarizers, the renderer, the
// redactor, pruning and the handoff writer through interfaces New fills in.
const maxCompressReach = 180

// Compressor.Compress statically reaches at most maxCompressReach of the
// module's functions. Run with -v to see the figure and where they live.
func TestCompressStaticReach(t *testing.T) {
	if testing.Short() {
		t.Skip("loads and builds the whole program")
	}
	fns := reach(t, "Compressor", "Compress")
	repo, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]int{}
	inRoot := 0
	for _, fn := range fns {
		pos := fn.Prog.Fset.Position(fn.Pos())
		if !pos.IsValid() {
			continue
		}
		name, err := filepath.Rel(repo, pos.Filename)
		if err != nil {
			t.Fatal(err)
		}
		files[name]++
		if !strings.Contains(name, "/") {
			inRoot++
		}
	}
	names := make([]string, 0, len(files))
	for f := range files {
		names = append(names, f)
	}
	sort.Strings(names)
	for _, f := range names {
		t.Logf("%4d %s", files[f], f)
	}
	t.Logf("Compressor.Compress statically reaches %d functions of the module in %d files (%d of them in the root package)",
		len(fns), len(files), inRoot)
	if len(fns) > maxCompressReach {
		t.Errorf("Compressor.Compress statically reaches %d functions, more than %d", len(fns), maxCompressReach)
	}
}

// namedPointer returns *T for a named type T, whose method set holds the
// pointer methods too.
func namedPointer(t types.Type) types.Type { return types.NewPointer(t) }
