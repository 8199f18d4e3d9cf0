package extractive

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
)

func collectPaths(s string, withLine bool) []string {
	var out []string
	textPaths(s, withLine, func(p string) { out = append(out, p) })
	return out
}

func TestTextPathsFindsPaths(t *testing.T) {
	tests := []struct {
		name, text string
		want       []string
	}{
		{"relative with extension", "edit src/foo/bar.go now", []string{"src/foo/bar.go"}},
		{"dot slash", "run ./x.py first", []string{"./x.py"}},
		{"dot slash without extension", "then ./configure", []string{"./configure"}},
		{"absolute", "see /abs/path.rs", []string{"/abs/path.rs"}},
		{"absolute directory", "cd into /workspace/project", []string{"/workspace/project"}},
		{"home", "in ~/go/bin/tool", []string{"~/go/bin/tool"}},
		{"line suffix dropped", "at file.py:123 and main.go:4:2", []string{"file.py", "main.go"}},
		{"grep location", "duration.go:14:func", []string{"duration.go"}},
		{"unknown extension", "at file.ext:123", nil},
		{"bare file name", "open setup.py", []string{"setup.py"}},
		{"build file", "the Makefile target", []string{"Makefile"}},
		{"in backticks and quotes", "`a/b.ts` and \"c.json\" and 'd.yaml'", []string{"a/b.ts", "c.json", "d.yaml"}},
		{"sentence end", "I changed README.md.", []string{"README.md"}},
		{"in parentheses", "(see docs/guide.md)", []string{"docs/guide.md"}},
		{"go.mod by name", "update go.mod", []string{"go.mod"}},
		{"ambiguous extension with a directory", "tail logs/app.log", []string{"logs/app.log"}},
		{"parent", "../type/alias.h", []string{"../type/alias.h"}},
		{"upper-case extension", "docs/README.MD", []string{"docs/README.MD"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, collectPaths(tt.text, false))
		})
	}
}

func TestTextPathsIgnoresLookalikes(t *testing.T) {
	tests := []struct{ name, text string }{
		{"URL", "see https://github.com/org/repo/blob/main/src/x.py#L10"},
		{"URL without path", "visit https://errors.pydantic.dev/2.11/v/missing"},
		{"file URL", "Obtaining file:///testbed"},
		{"abbreviations", "e.g. this, i.e. that, etc."},
		{"version numbers", "v1.2.3 and 3.13.0 and python3.9 and 0.5%"},
		{"method calls", "strings.Fields splits; time.ParseDuration fails; td_field.serialize"},
		{"call with a file-like name", "np.sum(x) and response.json()"},
		{"console.log", "use console.log to debug"},
		{"framework names", "built with Node.js and Vue.js"},
		{"module path", "pydantic.alias_generators and os.path"},
		{"prose slash", "input/output and and/or"},
		{"slash command", "/run python x and /clear"},
		{"closing tag", "</uploaded_files>"},
		{"make variable", "$(srcDir)/build/build_$(config)"},
		{"times", "Apr 30 09:56"},
		{"comment", "// TODO"},
		{"go package pattern", "go test ./internal/timeutil/..."},
		{"dev null", "2>/dev/null"},
		{"airport codes and ids", "BOS to LAX on HAT028"},
		{"domain", "example.com and www.test.org"},
		{"glob", "*.py"},
		{"dotfile alone", ".env"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Empty(t, collectPaths(tt.text, false))
		})
	}
}

func TestTextPathsWithLineOnlyTakesLocations(t *testing.T) {
	out := "-rw-r--r-- 1 root root 9336 Apr 30 09:56 BUILD.md\n" +
		"internal/timeutil/duration.go:14:func ParseDuration\n" +
		"src/lib.rs:4:5: error\n" +
		"    at run (/app/server.js:10:3)\n"
	assert.Equal(t, []string{"internal/timeutil/duration.go", "src/lib.rs", "/app/server.js"}, collectPaths(out, true))
}

func TestArgPaths(t *testing.T) {
	tests := []struct {
		name, args string
		want       []string
	}{
		{"path", `{"command":"view","path":"/repo/a.go"}`, []string{"/repo/a.go"}},
		{"several keys in key order", `{"target_file":"b.py","file_path":"a.py"}`, []string{"a.py", "b.py"}},
		{"list", `{"paths":["x.go","y.go"]}`, []string{"x.go", "y.go"}},
		{"directory-like path key", `{"path":"/testbed"}`, []string{"/testbed"}},
		{"no extension needed under a path key", `{"filename":"Makefile"}`, []string{"Makefile"}},
		{"dot is nothing", `{"path":"."}`, nil},
		{"URL is not a path", `{"file":"https://x.test/a.py"}`, nil},
		{"multi-line value is content", `{"path":"a\nb"}`, nil},
		{"dir keys are left out", `{"dir":"src","file_name":"fields.py"}`, []string{"fields.py"}},
		{"loose key with a non-path", `{"origin":"MCO","destination":"BOS"}`, nil},
		{"loose key with a path", `{"source":"a/b.txt","dest":"c.txt"}`, []string{"c.txt", "a/b.txt"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var args map[string]any
			assert.NoError(t, json.Unmarshal([]byte(tt.args), &args))
			assert.Equal(t, tt.want, argPaths(args))
		})
	}
}

func TestCommandPathsGroups(t *testing.T) {
	type got struct {
		p string
		g int
	}
	tests := []struct {
		name, cmd string
		code      bool
		want      []got
	}{
		{"read", "cat src/a.go", false, []got{{"src/a.go", fileRead}}},
		{"sed -n reads", "sed -n '1,20p' a.py", false, []got{{"a.py", fileRead}}},
		{"sed -i modifies", "sed -i 's/x/y/' a.py", false, []got{{"a.py", fileModified}}},
		{"redirect modifies", "echo hi > out/log.txt", false, []got{{"out/log.txt", fileModified}, {"out/log.txt", fileReferenced}}},
		{"stderr redirect is no target", "go test ./... 2>&1 | tee build.log", false, nil}, // .log needs a directory
		{"cd resolves what follows", "cd /repo/app && python run.py && cat ../b.go /abs/c.go", false,
			[]got{{"/repo/app/run.py", fileReferenced}, {"/repo/b.go", fileRead}, {"/abs/c.go", fileRead}}},
		{"a relative cd stops resolving", "cd /repo && cd sub && cat a.go", false, []got{{"a.go", fileRead}}},
		{"rm", "rm -f /tmp/x.py", false, []got{{"/tmp/x.py", fileModified}}},
		{"git checkout", "git checkout -- a.go", false, []got{{"a.go", fileModified}}},
		{"env prefix", "FOO=1 sudo cat b.txt", false, []got{{"b.txt", fileRead}}},
		{"code: the first path is the target", "edit_file_by_replace(\n'/w/App.tsx',\nto_replace=\"import './App.css'\")", true,
			[]got{{"/w/App.tsx", fileModified}, {"./App.css", fileReferenced}}},
		{"code: open reads", "open_file('/w/App.css')", true, []got{{"/w/App.css", fileRead}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out []got
			commandPaths(tt.cmd, tt.code, func(p string, g int) { out = append(out, got{p, g}) })
			assert.Equal(t, tt.want, out)
		})
	}
}

func TestClassifyTool(t *testing.T) {
	tests := []struct {
		name, args string
		want       toolKind
	}{
		{"bash", `{"command":"ls"}`, toolShell},
		{"execute_bash", `{"command":"ls"}`, toolShell},
		{"run_ipython", `{"code":"print(1)"}`, toolShell},
		{"terminal", `{"command":"pwd"}`, toolShell},
		{"runTerminalCmd", `{}`, toolShell},
		{"str_replace_editor", `{"command":"view","path":"/a"}`, toolOther},
		{"my_tool", `{"cmd":"make test"}`, toolShell},
		{"truncate_text", `{"text":"x"}`, toolOther},
		{"think", `{"thought":"x"}`, toolThink},
		{"finish", `{"message":"done"}`, toolFinish},
		{"get_user_details", `{"user_id":"u1"}`, toolOther},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var args map[string]any
			_ = json.Unmarshal([]byte(tt.args), &args)
			assert.Equal(t, tt.want, classifyTool(tt.name, args))
		})
	}
}

func TestFileGroupOf(t *testing.T) {
	tests := []struct {
		name, args string
		want       int
	}{
		{"str_replace_editor", `{"command":"view"}`, fileRead},
		{"str_replace_editor", `{"command":"create"}`, fileModified},
		{"str_replace_editor", `{"command":"str_replace"}`, fileModified},
		{"str_replace_editor", `{"command":"undo_edit"}`, fileModified},
		{"read_file", `{}`, fileRead},
		{"open", `{}`, fileRead},
		{"edit_file", `{}`, fileModified},
		{"apply_patch", `{}`, fileModified},
		{"write", `{}`, fileModified},
		{"find_file", `{}`, fileReferenced},
	}
	for _, tt := range tests {
		t.Run(tt.name+tt.args, func(t *testing.T) {
			var args map[string]any
			_ = json.Unmarshal([]byte(tt.args), &args)
			assert.Equal(t, tt.want, fileGroupOf(tt.name, args))
		})
	}
}

func TestContainsFold(t *testing.T) {
	tests := []struct {
		s, lower string
		want     bool
	}{
		{"Fix the DATABASE migration", "database", true},
		{"make migrate-Database", "database", true},
		{"data base", "database", false},
		{"", "x", false},
		{"ends with dAtA", "data", true},
		{"Ärger mit ÄPFELN", "äpfeln", true},
		{"apfel", "äpfel", false},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, containsFold(tt.s, tt.lower), "%q in %q", tt.lower, tt.s)
	}
}

// textPathsBefore is textPaths as it was first written: one loop over
// every byte, for both modes.
func textPathsBefore(s string, withLine bool, add func(string)) {
	for i := 0; i < len(s); {
		if !isPathByte(s[i]) {
			i++
			continue
		}
		j := i
		slashOrDot, colon := false, false
		for ; j < len(s) && isPathByte(s[j]); j++ {
			switch s[j] {
			case '/', '.':
				slashOrDot = true
			case ':':
				colon = true
			}
		}
		word, next := s[i:j], byte(0)
		if j < len(s) {
			next = s[j]
		}
		prev := byte(0)
		if i > 0 {
			prev = s[i-1]
		}
		i = j
		if next == '(' || prev == '$' || prev == ')' || prev == '}' || prev == '<' {
			continue
		}
		if !slashOrDot {
			if w := trimTrailing(word); !withLine && isBareFileName(w) {
				add(w)
			}
			continue
		}
		if withLine && !colon {
			continue
		}
		if p, hasLine := cleanPathWord(word); p != "" && (hasLine || !withLine) && isTextPath(p) {
			add(p)
		}
	}
}

// FuzzTextPaths holds textPaths, which reads only around the colons when
// it wants a line, to textPathsBefore.
func FuzzTextPaths(f *testing.F) {
	for _, s := range []string{
		"", "see main.go:12 and pkg/x_test.go:3:4: bad", "Makefile go.mod", "$(dir)/x.go:1 np.sum(x) </a.b:2>",
		"::a/b:1:: c.d:: :e.f:9", "http://x.y/z:80 file.py:12:text", "a.go:1.", "@src/a.ts:4", "x:1 y.go:",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, withLine := range []bool{false, true} {
			var got, want []string
			textPaths(s, withLine, func(p string) { got = append(got, p) })
			textPathsBefore(s, withLine, func(p string) { want = append(want, p) })
			if !slices.Equal(got, want) {
				t.Fatalf("textPaths(%q, %v) = %q, want %q", s, withLine, got, want)
			}
		}
	})
}
