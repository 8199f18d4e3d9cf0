package session

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// maxSessionNames bounds what go doc ./session shows a host: top-level
// names, the methods of exported types and each constant of a group (as
// the root's layout test counts them). Issue 32 set 60, moving what only
// a store's writer uses to package session/store; a name that only a
// store needs goes there, not here.
const maxSessionNames = 60

// sessionNames lists the exported names of the package's non-test files.
func sessionNames(t *testing.T) []string {
	t.Helper()
	entries, err := os.ReadDir(".")
	require.NoError(t, err)
	var names []string
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".go") || strings.HasSuffix(e.Name(), "_test.go") {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), e.Name(), nil, parser.SkipObjectResolution)
		require.NoError(t, err)
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
						if s.Name.IsExported() {
							names = append(names, s.Name.Name)
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

// go doc ./session shows what a host uses: at most maxSessionNames names.
// Run with -v to see them.
func TestSessionShowsAHostAtMost60Names(t *testing.T) {
	names := sessionNames(t)
	t.Logf("%d exported names: %s", len(names), strings.Join(names, " "))
	assert.Greater(t, len(names), 20, "the count saw the package")
	assert.LessOrEqual(t, len(names), maxSessionNames, "%s", strings.Join(names, " "))
}
