package extractive

import (
	"path"
	"strings"

	"github.com/contextkit/compact/internal/textcut"
)

// This file reads tool calls for the extractive summarizer: what kind of
// tool a name denotes, whether a file operation reads or modifies, the
// command line of a shell call, and which files a command line touches.

// toolKind is what the summary makes of a tool call.
type toolKind int

const (
	toolOther  toolKind = iota // listed under tool calls
	toolShell                  // listed under commands, with its status
	toolThink                  // its thought may hold decisions; not listed
	toolFinish                 // its message is the latest state; not listed
)

// toolWords splits a tool name into lower-case words at underscores,
// dashes, dots and camelCase humps: "str_replace_editor" → str, replace,
// editor; "runTerminalCmd" → run, terminal, cmd.
func toolWords(name string) []string { return appendToolWords(nil, name) }

// maxWordsOnStack is how many words a caller's array of toolWords holds
// before appendToolWords allocates.
const maxWordsOnStack = 8

// appendToolWords appends the words of toolWords(name) to words.
func appendToolWords(words []string, name string) []string {
	start := -1
	for i := 0; i <= len(name); i++ {
		var c byte
		if i < len(name) {
			c = name[i]
		}
		alnum := c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c >= 'A' && c <= 'Z'
		hump := c >= 'A' && c <= 'Z' && i > 0 && name[i-1] >= 'a' && name[i-1] <= 'z'
		if start >= 0 && (!alnum || hump) {
			words = append(words, strings.ToLower(name[start:i]))
			start = -1
		}
		if alnum && start < 0 {
			start = i
		}
	}
	return words
}

func hasWord(words []string, set func(string) bool) bool {
	for _, w := range words {
		if set(w) {
			return true
		}
	}
	return false
}

func isShellWord(w string) bool {
	switch w {
	case "bash", "shell", "sh", "zsh", "terminal", "exec", "execute", "run", "command", "cmd",
		"console", "ipython", "python", "powershell", "pwsh", "cli", "subprocess":
		return true
	}
	return false
}

func isEditorWord(w string) bool {
	switch w {
	case "edit", "editor", "file", "files", "notebook":
		return true
	}
	return false
}

// isModifyVerb and isReadVerb classify a file tool by the words of its
// name or by an editor's sub-command.
func isModifyVerb(w string) bool {
	switch w {
	case "edit", "write", "create", "replace", "str_replace", "patch", "apply", "insert", "append",
		"modify", "save", "delete", "remove", "rm", "rename", "move", "mv", "mkdir", "touch",
		"undo", "undo_edit", "overwrite", "multiedit":
		return true
	}
	return false
}

func isReadVerb(w string) bool {
	switch w {
	case "read", "view", "cat", "open", "show", "get", "load", "head", "tail", "preview", "print":
		return true
	}
	return false
}

// classifyTool says what kind of tool name denotes. A tool that does not
// look like a shell but takes a command line with spaces in a command or cmd
// argument (and is no editor, whose "command" is a sub-command) is a shell.
func classifyTool(name string, args map[string]any) toolKind {
	var buf [maxWordsOnStack]string
	words := appendToolWords(buf[:0], name)
	switch {
	case len(words) == 1 && words[0] == "think":
		return toolThink
	case hasWord(words, func(w string) bool { return w == "finish" || w == "submit" || w == "completion" }):
		return toolFinish
	case hasWord(words, isShellWord):
		return toolShell
	case hasWord(words, isEditorWord):
		return toolOther
	}
	if c := firstString(args, "command", "cmd"); strings.ContainsAny(strings.TrimSpace(c), " \t") {
		return toolShell
	}
	return toolOther
}

// fileGroupOf says whether a file tool modifies or reads the files in its
// arguments: an editor's single-word sub-command decides first (view,
// create, str_replace), then the words of the tool's name.
func fileGroupOf(name string, args map[string]any) int {
	if sub := firstString(args, "command", "action", "operation", "mode"); sub != "" && !strings.ContainsAny(sub, " \t\n") {
		sub = strings.ToLower(sub)
		switch {
		case isReadVerb(sub):
			return fileRead
		case isModifyVerb(sub) || hasWord(toolWords(sub), isModifyVerb):
			return fileModified
		}
	}
	var buf [maxWordsOnStack]string
	words := appendToolWords(buf[:0], name)
	switch {
	case hasWord(words, isModifyVerb):
		return fileModified
	case hasWord(words, isReadVerb):
		return fileRead
	}
	return fileReferenced
}

// commandOf returns the command line of a shell call: its command, cmd,
// code, script or input argument; an argv list joined with spaces (the
// script of bash -c / -lc alone); or the raw arguments when they are not
// JSON or name no command.
func commandOf(args map[string]any, raw string) string {
	for _, k := range [...]string{"command", "cmd", "code", "script", "input", "commands"} {
		switch v := args[k].(type) {
		case string:
			if strings.TrimSpace(v) != "" {
				return strings.TrimSpace(v)
			}
		case []any:
			var argv []string
			for _, x := range v {
				if s, ok := x.(string); ok {
					argv = append(argv, s)
				}
			}
			if n := len(argv); n >= 3 && isShellWord(path.Base(argv[0])) && strings.HasPrefix(argv[n-2], "-") && strings.Contains(argv[n-2], "c") {
				return strings.TrimSpace(argv[n-1])
			}
			if len(argv) > 0 {
				return strings.Join(argv, " ")
			}
		}
	}
	return strings.TrimSpace(raw)
}

// isCodeArg reports a call whose command is program code (run_ipython's
// code), read as one statement rather than as shell segments.
func isCodeArg(args map[string]any) bool {
	_, cmd := args["command"]
	_, code := args["code"].(string)
	return code && !cmd
}

// commandPaths calls add for each path in a command line with the file
// group the command puts it in. A shell line is read segment by segment
// (split at newlines, ;, |, &&): the segment's verb decides (sed -i, tee,
// touch, rm, mv, cp, git apply... modify; cat, head, tail, sed -n... read;
// anything else references), a redirection target is modified, and cd's
// directory is left out but resolves the relative paths after it (cd /repo
// && cat a.go reads /repo/a.go; a cd to anywhere but an absolute directory
// stops the resolving). Code is one statement whose verb is its first
// call and whose first path is the file that call acts on.
func commandPaths(cmd string, code bool, add func(p string, group int)) {
	if code {
		// The first path is what the call acts on; later ones are in the
		// content it writes (imports, strings) and only referenced.
		g := verbGroup(leadingIdent(cmd), nil)
		textPaths(cmd, false, func(p string) { add(p, g); g = fileReferenced })
		return
	}
	shellPaths(splitShell(cmd), add)
}

// shellPaths is commandPaths of a shell line split by splitShell.
func shellPaths(segs []shellSeg, add func(p string, group int)) {
	cwd := ""
	resolve := func(p string, g int) {
		if cwd != "" && !strings.HasPrefix(p, "/") && !strings.HasPrefix(p, "~") {
			p = path.Join(cwd, p)
		}
		add(p, g)
	}
	for _, s := range segs {
		seg, fields := s.text, s.fields
		if len(fields) > 0 && (fields[0] == "cd" || fields[0] == "pushd") {
			cwd = ""
			if len(fields) == 2 && strings.HasPrefix(fields[1], "/") && isArgPath(fields[1]) {
				cwd = path.Clean(strings.Trim(fields[1], `'"`))
			}
			continue
		}
		if len(fields) == 0 {
			continue
		}
		g := s.group
		for i, f := range fields {
			if t := strings.TrimLeft(f, "0123456789"); strings.HasPrefix(t, ">") && !strings.HasPrefix(t, ">&") {
				target := strings.TrimLeft(t, ">|")
				if target == "" && i+1 < len(fields) {
					target = fields[i+1]
				}
				target = strings.Trim(target, `'"`)
				if isTextPath(target) || strings.HasPrefix(target, "/") && isAbsPath(target) {
					resolve(target, fileModified)
				}
			}
		}
		textPaths(seg, false, func(p string) { resolve(withAt(seg, p), g) })
	}
}

// withAt returns p as seg writes it when an @ opens it there (curl's
// -F file=@x.pl, npm's @scope/name): the word a command was given.
func withAt(seg, p string) string {
	for off := 0; ; {
		k := strings.IndexByte(seg[off:], '@')
		if k < 0 {
			return p
		}
		k += off
		if !strings.HasPrefix(seg[k+1:], p) {
			off = k + 1
			continue
		}
		if k == 0 || !isPathByte(seg[k-1]) || seg[k-1] == ':' {
			return "@" + p
		}
		off = k + 1
	}
}

// commandWords calls add for what a command line names that textPaths
// does not take for a path: the directory a cd enters, and words with a
// slash and a letter (src/lib, @octokit/rest, ./pkg/...), each with the
// group its command's verb gives. They are written as the command wrote
// them. Flags, URLs, sed expressions, devices and words holding shell
// syntax ($, *, ?, redirections) are none.
func commandWords(cmd string, add func(p string, group int)) { shellWords(splitShell(cmd), add) }

// shellWords is commandWords of a shell line split by splitShell.
func shellWords(segs []shellSeg, add func(p string, group int)) {
	for _, s := range segs {
		fields := s.fields
		if len(fields) == 0 {
			continue
		}
		if fields[0] == "cd" || fields[0] == "pushd" {
			if len(fields) == 2 {
				if d := strings.Trim(fields[1], `'"`); isArgPath(d) && hasLetter(d) && (d[0] == '/' || strings.Contains(d, "/")) {
					add(strings.TrimRight(d, "/"), fileReferenced)
				}
			}
			continue
		}
		for _, f := range fields[1:] {
			if w := slashWord(f); w != "" {
				add(w, s.group)
			}
		}
	}
}

// codeWords calls add for each word with a slash that program code names
// and textPaths does not take for a path: a module (@octokit/rest), a
// directory, a route. A closing tag (</div>) is markup, not a directory:
// the slash after a "<" breaks words as the "<" does. Words are found from
// their slashes, so code without one costs a search.
func codeWords(code string, add func(p string)) {
	for i := 0; ; {
		k := strings.IndexByte(code[i:], '/')
		if k < 0 {
			return
		}
		k += i
		if isCodeBreakAt(code, k) {
			i = k + 1
			continue
		}
		start, end := k, k+1
		for start > 0 && !isCodeBreakAt(code, start-1) {
			start--
		}
		for end < len(code) && !codeBreak[code[end]] {
			end++
		}
		if p := slashWord(code[start:end]); p != "" {
			add(p)
		}
		i = end
	}
}

// isCodeBreakAt reports whether code[i] ends a word of code: a byte of
// codeBreak, or the slash of a closing tag.
func isCodeBreakAt(code string, i int) bool {
	return codeBreak[code[i]] || code[i] == '/' && i > 0 && code[i-1] == '<'
}

// codeBreak holds the bytes that end a word of code: white space and
// control bytes, quotes, brackets and operators other than the path's own.
// No byte of a multi-byte character is one.
var codeBreak = func() (c [256]bool) {
	for b := 0; b <= ' '; b++ {
		c[b] = true
	}
	for _, b := range []byte("'\"`()[]{},;=<>|+*%!&^") {
		c[b] = true
	}
	return c
}()

// slashWord returns a command's word that names a path textPaths does not
// take (no extension, no leading /), or "".
func slashWord(f string) string {
	f = strings.Trim(f, `'"`)
	if strings.HasPrefix(f, "-") || strings.ContainsAny(f, "$*?<>|\\=(){}[]`,;") || strings.Contains(f, "://") ||
		strings.HasPrefix(f, "/dev/") || isSedExpr(f) {
		return ""
	}
	if !strings.HasSuffix(f, "/...") {
		f = trimTrailing(f)
	}
	if !strings.Contains(f, "/") || !hasLetter(f) || len(f) > maxPathLen {
		return ""
	}
	if p, _ := cleanPathWord(f); p != "" && isTextPath(p) {
		return "" // textPaths lists it
	}
	return f
}

// isSedExpr reports a sed or tr expression: s/a/b/, y/ab/cd/, 3s/^/x/, 1,5s/x/y/.
func isSedExpr(f string) bool {
	i := 0
	for i < len(f) && (f[i] >= '0' && f[i] <= '9' || f[i] == ',') {
		i++
	}
	return i+1 < len(f) && (f[i] == 's' || f[i] == 'y') && f[i+1] == '/'
}

// shellSegments splits a command line at newlines, ;, |, || and && (a &
// that belongs to a redirection such as 2>&1 does not split).
func shellSegments(cmd string) []string {
	var segs []string
	start := 0
	for i := 0; i < len(cmd); i++ {
		switch c := cmd[i]; {
		case c == '\n' || c == ';' || c == '|' || c == '&' && (i == 0 || cmd[i-1] != '>') && (i+1 == len(cmd) || cmd[i+1] != '>'):
			if s := strings.TrimSpace(cmd[start:i]); s != "" {
				segs = append(segs, s)
			}
			start = i + 1
		}
	}
	if s := strings.TrimSpace(cmd[start:]); s != "" {
		segs = append(segs, s)
	}
	return segs
}

func isAssignment(f string) bool {
	k := strings.IndexByte(f, '=')
	return k > 0 && !strings.ContainsAny(f[:k], "/-.")
}

func isPrefixCommand(f string) bool {
	switch f {
	case "sudo", "time", "nohup", "env", "exec", "command", "nice", "timeout":
		return true
	}
	return false
}

// leadingIdent returns the identifier code starts with: open_file in
// open_file('/x'), edit_file_by_replace in edit_file_by_replace(...).
func leadingIdent(code string) string {
	code = strings.TrimSpace(code)
	i := 0
	for i < len(code) && (textcut.IsLetter(code[i]) || code[i] == '_' || i > 0 && code[i] >= '0' && code[i] <= '9') {
		i++
	}
	return code[:i]
}

// verbGroup is the file group of a command verb with its arguments.
func verbGroup(verb string, args []string) int {
	switch verb {
	case "sed", "perl":
		for _, a := range args {
			if strings.HasPrefix(a, "-i") || strings.HasPrefix(a, "-pi") {
				return fileModified
			}
		}
		return fileRead
	case "tee", "touch", "rm", "rmdir", "mv", "cp", "mkdir", "patch", "truncate", "ln", "chmod",
		"chown", "install", "apply_patch", "dd":
		return fileModified
	case "git":
		if len(args) > 0 {
			switch args[0] {
			case "apply", "checkout", "restore", "rm", "mv", "am":
				return fileModified
			}
		}
		return fileReferenced
	case "cat", "head", "tail", "less", "more", "nl", "bat", "view", "open", "wc", "stat", "file",
		"xxd", "hexdump", "od", "open_file", "read_file", "view_file", "goto_line":
		return fileRead
	}
	for _, p := range [...]string{"edit_file", "create_file", "append_file", "write_file", "insert_content", "replace_in_file"} {
		if strings.HasPrefix(verb, p) {
			return fileModified
		}
	}
	return fileReferenced
}
