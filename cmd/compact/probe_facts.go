package main

import (
	"encoding/json"
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/contextkit/compact"
	"github.com/contextkit/compact/internal/msg"
)

// This file finds, in a transcript, the facts the fidelity probe looks for
// after a compaction. It is written apart from the extractive summarizer,
// with its own rules, so the probe does not grade the summarizer by the
// summarizer's own idea of what matters.

// facts are what a successor needs from a transcript.
type facts struct {
	ask      string   // the latest real user message
	paths    []string // every path a tool call named, first seen first
	modified []string // every path a tool call modified, first seen first
	ids      []string // every identifier a tool call passed, first seen first
	errors   []string // every error line of tool output, first seen first
	command  string   // the last shell command run
	// mentions holds, per input message, the text it shows a model (its
	// content and tool calls), to decide which facts lived only in turns
	// that were summarised.
	mentions []string
}

// pathKeys are argument names whose string values are paths, even bare
// names (Makefile).
var pathKeys = wordSet(`path paths file files filename file_name file_path filepath target_file
	old_path new_path`)

// looseKeys are argument names whose values are paths when they read as
// one (a slash or a file extension): a "destination" may be an airport.
var looseKeys = wordSet(`source destination dest src dst dir directory`)

// commandKeys are argument names whose values are shell commands or code,
// searched for paths.
var commandKeys = []string{"command", "cmd", "script", "code"}

// shellTool matches the names of tools that run shell commands.
var shellTool = regexp.MustCompile(`(?i)bash|shell|terminal|exec|^run$|^cmd$`)

// maxFactPath bounds a path; longer words are data.
const maxFactPath = 256

// pathWord matches a word with a file extension: name.ext, the extension
// starting with a letter (so 1.2.3 and 3.14 are not paths).
var pathWord = regexp.MustCompile(`^[\w@+~-][\w.@+~-]*\.([A-Za-z][A-Za-z0-9]{0,7})$`)

// fileExts are the extensions that make a bare word in a command a file
// name (np.array is a call, setup.py a file).
var fileExts = wordSet(`c h cc cpp cxx hpp hh go rs py pyi pyx js mjs cjs ts tsx jsx java kt kts
		scala rb php cs fs swift m mm sh bash zsh fish ps1 bat md rst txt adoc json jsonl yaml yml toml ini cfg conf
		xml html htm css scss less sql proto pony lock mod sum csv tsv log out patch diff ipynb r jl lua pl pm dart
		vue svelte gradle properties env tf hcl nix el ex exs erl hs ml mli clj cljs zig v sv vhd asm s cmake mk
		gemspec podspec sbt cabal rake tex bib svg png jpg jpeg gif pdf zip gz tgz tar whl egg so dll dylib a o
		class jar war wasm db sqlite pem crt key pub cert csr`)

// wordSet returns the set of the words in s.
func wordSet(s string) map[string]bool {
	set := map[string]bool{}
	for _, w := range strings.Fields(s) {
		set[w] = true
	}
	return set
}

// sedExpr matches the start of a sed or tr expression: s/, y/, 3s/, 1,5s/.
var sedExpr = regexp.MustCompile(`^[\d,$]*[sy]/`)

// errorLine matches a line of tool output that reports an error: it starts
// (after pytest's "E" margin and an optional file:line: location) with an
// error word (followed by a space, a colon, a bracket or "!", so
// panic(err) is code), a FAIL marker or an exception name followed by a colon; or it
// is a compiler diagnostic (file:line:column: message) that is not a
// warning or a note.
var errorLine = regexp.MustCompile(`^(?:E\s+)?(?:[\w./@+-]+:\d+(?::\d+)?:\s*)?` +
	`(?:(?i:error|fatal|panic|failed|failure)(?:[\s:\[!]|$)|FAIL\b|--- FAIL|npm ERR!|[A-Za-z_][\w.]*(?:Error|Exception)(?::|$))`)

// diagnostic matches a compiler diagnostic's location prefix.
var diagnostic = regexp.MustCompile(`^[\w./@+-]+\.\w+:\d+:\d+: `)

// errorPhrase matches errors that a shell or the system reports mid-line;
// a numbered listing's line (cat -n, an editor's view) is code, not one.
var errorPhrase = regexp.MustCompile(`(?i)command not found|no such file or directory|permission denied|segmentation fault|syntax error`)

// numbered matches a line of a numbered file listing.
var numbered = regexp.MustCompile(`^\d+\t`)

// factsOf finds the facts of msgs.
func factsOf(msgs []compact.Message) facts {
	var f facts
	seenPath, seenMod, seenID, seenErr := map[string]bool{}, map[string]bool{}, map[string]bool{}, map[string]bool{}
	addPath := func(p string) {
		p = strings.TrimPrefix(p, "./")
		if !seenPath[p] {
			seenPath[p] = true
			f.paths = append(f.paths, p)
		}
	}
	addMod := func(p string) {
		p = strings.TrimPrefix(p, "./")
		addPath(p)
		if !seenMod[p] {
			seenMod[p] = true
			f.modified = append(f.modified, p)
		}
	}
	addID := func(id string) {
		if !seenID[id] {
			seenID[id] = true
			f.ids = append(f.ids, id)
		}
	}
	unnamed := map[string]bool{} // calls that edit the file their output names
	f.mentions = make([]string, len(msgs))
	for i, m := range msgs {
		f.mentions[i] = compact.Text(m) + "\n" + msg.ToolCallText(m)
		switch m.Role {
		case compact.RoleUser:
			if compact.IsRealUser(m) {
				if t := strings.TrimSpace(compact.Text(m)); t != "" {
					f.ask = t
				}
			}
		case compact.RoleAssistant:
			for _, c := range m.ToolCalls {
				var args map[string]any
				if json.Unmarshal([]byte(c.Function.Arguments), &args) != nil {
					continue
				}
				argPaths(args, addPath)
				if modifiedBy(c.Function.Name, args, addMod) && c.ID != "" {
					unnamed[c.ID] = true
				}
				factIDs(args, "", addID)
				if cmd := shellCommand(c.Function.Name, args); cmd != "" {
					f.command = cmd
				}
			}
		case compact.RoleTool:
			text := compact.Text(m)
			if unnamed[m.ToolCallID] {
				delete(unnamed, m.ToolCallID)
				if h := fileHeader.FindStringSubmatch(text); h != nil {
					addMod(h[1])
				}
			}
			for _, line := range toolErrorLines(text) {
				if !seenErr[line] {
					seenErr[line] = true
					f.errors = append(f.errors, line)
				}
			}
		}
	}
	return f
}

// argPaths calls add for each path in a call's arguments: values of path
// keys, and path-like words in commands and code.
func argPaths(args map[string]any, add func(string)) {
	for k, v := range args {
		k = strings.ToLower(k)
		if !pathKeys[k] && !looseKeys[k] {
			continue
		}
		vals, _ := v.([]any)
		if s, ok := v.(string); ok {
			vals = []any{s}
		}
		for _, x := range vals {
			if s, ok := x.(string); ok && looksLikePath(strings.TrimSpace(s), pathKeys[k]) {
				add(strings.TrimSpace(s))
			}
		}
	}
	for _, k := range commandKeys {
		s, ok := args[k].(string)
		if !ok {
			continue
		}
		// A closing tag in code (</div>) is markup, not a root directory.
		s = strings.ReplaceAll(s, "</", "<")
		for _, w := range strings.FieldsFunc(s, isWordBreak) {
			w = strings.TrimRight(w, ".,:")
			if looksLikePath(w, false) {
				add(w)
			}
		}
	}
}

// isWordBreak splits commands into words: spaces, quotes, shell operators
// and brackets.
func isWordBreak(r rune) bool {
	return strings.ContainsRune(" \t\r\n'\"`;|&<>(){}[],=", r)
}

// looksLikePath reports whether w reads as a file path: a word with a
// slash and a letter, or a name with an extension. A value given under a
// path key (keyed) may be a bare name without either.
func looksLikePath(w string, keyed bool) bool {
	if w == "" || len(w) > maxFactPath || strings.HasPrefix(w, "-") || strings.HasPrefix(w, "#") ||
		strings.Contains(w, "://") || strings.ContainsAny(w, " \t\n$*?\\") || strings.Trim(w, "./") == "" {
		return false
	}
	if strings.Contains(w, "/") {
		// Not a sed expression (s/a/b/, 3s/^/x/), not a device (/dev/null).
		return strings.IndexFunc(w, isLetter) >= 0 && !sedExpr.MatchString(w) && !strings.HasPrefix(w, "/dev/")
	}
	if keyed {
		return strings.IndexFunc(w, isLetter) >= 0
	}
	m := pathWord.FindStringSubmatch(w)
	return m != nil && fileExts[strings.ToLower(m[1])]
}

func isLetter(r rune) bool { return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' }

// shellCommand returns the command a shell tool call runs, "" for other
// calls.
func shellCommand(tool string, args map[string]any) string {
	if !shellTool.MatchString(tool) {
		return ""
	}
	for _, k := range []string{"command", "cmd", "script"} {
		if s, ok := args[k].(string); ok && strings.TrimSpace(s) != "" {
			return strings.TrimSpace(s)
		}
	}
	return ""
}

// toolErrorLines returns the error lines of one tool output, trimmed.
func toolErrorLines(text string) []string {
	var out []string
	for _, line := range strings.Split(text, "\n") {
		t := strings.TrimSpace(line)
		if t == "" {
			continue
		}
		if errorLine.MatchString(t) || errorPhrase.MatchString(t) && !numbered.MatchString(t) {
			out = append(out, t)
			continue
		}
		if loc := diagnostic.FindString(t); loc != "" {
			msg := strings.ToLower(t[len(loc):])
			if !strings.HasPrefix(msg, "warning") && !strings.HasPrefix(msg, "note") {
				out = append(out, t)
			}
		}
	}
	return out
}

// keptPrefix is how much of a long fact must survive for it to count as
// kept: a summary that quotes a long error line or command shortened still
// names it.
const keptPrefix = 80

// survives reports whether fact is in text (both whitespace-normalised):
// whole, or for a fact longer than keptPrefix bytes, its first keptPrefix
// bytes.
func survives(fact, text string) bool {
	fact = normSpace(fact)
	if fact == "" {
		return true
	}
	if strings.Contains(text, fact) {
		return true
	}
	if len(fact) > keptPrefix {
		head := fact[:keptPrefix]
		for !utf8.ValidString(head) {
			head = head[:len(head)-1]
		}
		return strings.Contains(text, head)
	}
	return false
}

// normSpace collapses runs of white space to one space.
func normSpace(s string) string {
	return strings.Join(strings.Fields(s), " ")
}
