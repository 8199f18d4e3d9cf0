package extractive

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestErrorLinesOpeningWithAFailureWord(t *testing.T) {
	tests := []struct {
		name, out string
		want      []string
	}{
		{"error and a message", "Error with HTTPResponseCode: 1 validation error for Foo\n",
			[]string{"Error with HTTPResponseCode: 1 validation error for Foo"}},
		{"failed", "Failed to compile.\n", []string{"Failed to compile."}},
		{"failure in capitals", "FAILURE: Build failed with an exception.\n", []string{"FAILURE: Build failed with an exception."}},
		{"fatal", "Fatal: no config found\n", []string{"Fatal: no config found"}},
		{"a bare word is no error", "Error\nFailed\n", nil},
		{"lower case prose is none", "error handling is done in a.go\nfailed attempts are retried\n", nil},
		{"indented is none", "  Error with x\n", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, errorLines(tt.out))
		})
	}
}

func TestCommandWords(t *testing.T) {
	type got struct {
		p string
		g int
	}
	tests := []struct {
		name, cmd string
		want      []got
	}{
		{"a relative directory", "ls src/libponyc/options", []got{{"src/libponyc/options", fileReferenced}}},
		{"a scoped package", "npm install @octokit/rest", []got{{"@octokit/rest", fileReferenced}}},
		{"a package pattern", "go test ./internal/timeutil/...", []got{{"./internal/timeutil/...", fileReferenced}}},
		{"a root directory", "ls -R /workspace", []got{{"/workspace", fileReferenced}}},
		{"the verb gives the group", "rm -r build/tmp", []got{{"build/tmp", fileModified}}},
		{"cd's directory", "cd /repo/app && make", []got{{"/repo/app", fileReferenced}}},
		{"a relative cd", "cd src/lib && ls", []got{{"src/lib", fileReferenced}}},
		{"paths textPaths takes are left to it", "cat src/a.go /etc/hosts.conf", nil},
		{"no flags, URLs, sed expressions, devices or shell syntax",
			"grep -rn --include=*.go https://x.io/a/b s/a/b/ 1,5s/x/y/ >/dev/null $HOME/x src/*.go", nil},
		{"a quoted word is read without its quotes", `grep -n "api/v2" main.go`, []got{{"api/v2", fileReferenced}}},
		{"no slash, no letter", "echo 1/2 ./... build", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out []got
			commandWords(tt.cmd, func(p string, g int) { out = append(out, got{p, g}) })
			assert.Equal(t, tt.want, out)
		})
	}
}

func TestCodeWords(t *testing.T) {
	var out []string
	codeWords("import { Octokit } from '@octokit/rest';\nreturn <div>{x}</div>;\nfetch('api/v1/users')", func(p string) { out = append(out, p) })
	assert.Equal(t, []string{"@octokit/rest", "api/v1/users"}, out, "modules and routes, no closing tags")
}

func TestWithAt(t *testing.T) {
	assert.Equal(t, "@printenv.pl", withAt(`curl -F "file=@printenv.pl" http://x`, "printenv.pl"))
	assert.Equal(t, "a.py", withAt("mail user@a.py", "a.py"), "an @ inside a word is an address")
	assert.Equal(t, "a.py", withAt("cat a.py", "a.py"))
}
