package extractive

import "strings"

// This file recognises file paths in free text (assistant prose, user
// messages, shell commands, tool output) for the extractive summarizer. The
// rule favours precision: a word is a path when it is absolute (/a/b), starts
// with ./ ../ or ~/, or ends in an extension that source trees actually use.
// URLs, abbreviations (e.g.), version numbers (1.2.3), method calls
// (strings.Join, np.sum(...)) and framework names (Node.js) are not paths.

// maxPathLen bounds a path worth listing; longer words are data, not paths.
const maxPathLen = 256

// isPathByte reports whether c may appear inside a path word. Anything else
// (spaces, quotes, brackets, commas, non-ASCII) ends the word.
func isPathByte(c byte) bool { return pathBytes[c]&pathByte != 0 }

// Classes of pathBytes: what textPaths asks of every byte of every text
// the scan reads, in one look-up.
const (
	pathByte  = 1 << iota // isPathByte
	pathSep               // '/' or '.'
	pathColon             // ':'
)

// pathBytes holds the classes of every byte.
var pathBytes = func() (t [256]uint8) {
	for c := 0; c < 256; c++ {
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' ||
			c == '_' || c == '-' || c == '.' || c == '/' || c == '~' || c == '@' || c == '+' || c == ':' {
			t[c] = pathByte
		}
	}
	t['/'] |= pathSep
	t['.'] |= pathSep
	t[':'] |= pathColon
	return t
}()

// textPaths calls add for every path in s, in order, with any :line or
// :line:col suffix removed. With withLine set, only words that carry such a
// suffix count (file.go:12), which is how tool output names a location
// without listing every file a directory listing shows.
func textPaths(s string, withLine bool, add func(string)) {
	if withLine {
		// Every word taken holds a colon: look only around the colons.
		for i := 0; ; {
			k := strings.IndexByte(s[i:], ':')
			if k < 0 {
				return
			}
			start, end := i+k, i+k+1
			for start > 0 && pathBytes[s[start-1]] != 0 {
				start--
			}
			class := uint8(pathColon)
			for end < len(s) && pathBytes[s[end]] != 0 {
				class |= pathBytes[s[end]]
				end++
			}
			for j := start; j < k+i; j++ {
				class |= pathBytes[s[j]]
			}
			pathWord(s, start, end, class, true, add)
			i = end
		}
	}
	for i := 0; i < len(s); {
		if pathBytes[s[i]] == 0 {
			i++
			continue
		}
		j := i
		var class uint8
		for ; j < len(s) && pathBytes[s[j]] != 0; j++ {
			class |= pathBytes[s[j]]
		}
		pathWord(s, i, j, class, false, add)
		i = j
	}
}

// pathWord calls add for the word s[i:j] (a whole run of path bytes, whose
// pathBytes classes are class) when textPaths takes it for a path.
func pathWord(s string, i, j int, class uint8, withLine bool, add func(string)) {
	word, next, prev := s[i:j], byte(0), byte(0)
	if j < len(s) {
		next = s[j]
	}
	if i > 0 {
		prev = s[i-1]
	}
	if next == '(' || prev == '$' || prev == ')' || prev == '}' || prev == '<' {
		return // a call such as np.sum(x), a path under a variable ($(dir)/x), a closing tag
	}
	if class&pathSep == 0 {
		// Most words: a path needs a slash or a dot, or is a build file.
		// Of the punctuation trimTrailing drops, such a word can end only
		// in colons.
		if withLine {
			return
		}
		w := word
		for w != "" && w[len(w)-1] == ':' {
			w = w[:len(w)-1]
		}
		if isBareFileName(w) {
			add(w)
		}
		return
	}
	if withLine && class&pathColon == 0 {
		return
	}
	if p, hasLine := cleanPathWord(word); p != "" && (hasLine || !withLine) && isTextPath(p) {
		add(p)
	}
}

// cleanPathWord trims what surrounds a path in prose and splits off a
// :line[:col] suffix. It returns "" for words that cannot be paths.
func cleanPathWord(w string) (path string, hasLine bool) {
	if strings.Contains(w, "://") || strings.HasSuffix(w, "...") || strings.HasPrefix(w, "//") {
		return "", false
	}
	w = trimTrailing(w)
	for w != "" && (w[0] == ':' || w[0] == '@') {
		w = w[1:]
	}
	// file.go:12, file.go:12:5 and grep's file.go:12:text all locate
	// file.go. Any other colon (scp host:path, 09:56, C:) is no path.
	if k := strings.IndexByte(w, ':'); k >= 0 {
		rest := w[k+1:]
		n := 0
		for n < len(rest) && rest[n] >= '0' && rest[n] <= '9' {
			n++
		}
		if n == 0 || n < len(rest) && rest[n] != ':' {
			return "", false
		}
		w, hasLine = w[:k], true
	}
	return w, hasLine
}

// trimTrailing drops the punctuation that ends a sentence or a clause.
func trimTrailing(w string) string {
	for w != "" {
		switch w[len(w)-1] {
		case '.', ',', ';', ':', '!', '?':
			w = w[:len(w)-1]
			continue
		}
		return w
	}
	return w
}

// isTextPath reports whether a cleaned word is a path.
func isTextPath(p string) bool {
	if len(p) < 2 || len(p) > maxPathLen {
		return false
	}
	switch {
	case p[0] == '/':
		return isAbsPath(p)
	case strings.HasPrefix(p, "./"), strings.HasPrefix(p, "../"), strings.HasPrefix(p, "~/"):
		return len(strings.Trim(p, "./~")) > 0
	}
	base := p
	if k := strings.LastIndexByte(p, '/'); k >= 0 {
		base = p[k+1:]
	}
	if isBareFileName(base) {
		return true
	}
	dot := strings.LastIndexByte(base, '.')
	if dot <= 0 || dot == len(base)-1 {
		return false // no extension, or a dotfile such as .env with no directory
	}
	stem, ext := base[:dot], strings.ToLower(base[dot+1:])
	if !hasLetter(stem) || isFrameworkName(strings.ToLower(base)) {
		return false
	}
	switch {
	case isSourceExt(ext):
		return true
	case isAmbiguousExt(ext):
		// console.log, np.sum, obj.in: only with a directory, except the
		// files everyone knows by name.
		return strings.IndexByte(p, '/') >= 0 || base == "go.mod" || base == "go.sum"
	}
	return false
}

// isAbsPath accepts /a/b and /a.c and rejects /, //x, /1, /dev/null and a
// lone /word, which in prose is more often a slash command (/run, /clear)
// than a root directory.
func isAbsPath(p string) bool {
	seg := p[1:]
	k := strings.IndexByte(seg, '/')
	if k >= 0 {
		seg = seg[:k]
	}
	if seg == "" || !hasLetter(seg) || strings.HasPrefix(p, "/dev/") {
		return false
	}
	return k >= 0 && len(strings.Trim(p[k+1:], "/")) > 0 || strings.IndexByte(seg, '.') > 0
}

func hasLetter(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' {
			return true
		}
	}
	return false
}

// isBareFileName reports build files that carry no extension.
func isBareFileName(base string) bool {
	switch base {
	case "Makefile", "makefile", "GNUmakefile", "Dockerfile", "Containerfile", "Gemfile",
		"Rakefile", "Jenkinsfile", "Procfile", "Vagrantfile", "Justfile", "BUILD", "WORKSPACE":
		return true
	}
	return false
}

// isFrameworkName reports library names that look like JavaScript files.
func isFrameworkName(base string) bool {
	switch base {
	case "node.js", "vue.js", "next.js", "nuxt.js", "react.js", "three.js", "express.js",
		"d3.js", "chart.js", "ember.js", "backbone.js", "angular.js", "moment.js",
		"p5.js", "alpine.js", "nest.js", "svelte.js", "socket.io":
		return true
	}
	return false
}

// isSourceExt reports extensions that name a file wherever they appear.
func isSourceExt(ext string) bool {
	switch ext {
	case "go", "py", "pyi", "pyx", "ipynb", "rs", "c", "h", "cc", "cpp", "cxx", "hpp", "hh",
		"java", "kt", "kts", "scala", "groovy", "gradle", "rb", "php", "cs", "fs", "swift",
		"js", "mjs", "cjs", "jsx", "ts", "tsx", "vue", "svelte", "dart", "lua", "pl", "pm",
		"ex", "exs", "erl", "hrl", "hs", "ml", "mli", "clj", "cljs", "zig", "nim", "sol",
		"pony", "jl", "elm", "tf", "proto", "sql", "graphql", "sh", "bash", "zsh", "fish",
		"ps1", "bat", "cmd", "md", "rst", "txt", "adoc", "tex", "json", "jsonl", "yaml", "yml",
		"toml", "ini", "cfg", "conf", "properties", "xml", "html", "htm", "css", "scss",
		"sass", "less", "csv", "tsv", "lock", "patch", "diff", "mk", "cmake", "dockerfile",
		"svg", "png", "jpg", "jpeg", "gif", "webp", "pdf", "whl", "gz", "tgz", "zip", "tar",
		"so", "dll", "dylib", "exe", "wasm", "template", "tmpl", "tpl", "j2", "sqlite", "db":
		return true
	}
	return false
}

// isAmbiguousExt reports extensions that are also common method or field
// names, so they count only in a path with a directory.
func isAmbiguousExt(ext string) bool {
	switch ext {
	case "log", "sum", "mod", "d", "m", "r", "s", "v", "o", "a", "t", "in", "out", "bin", "env", "test", "spec":
		return true
	}
	return false
}

// isArgPath reports whether a value given under a path-like argument key is
// worth listing: one line, not a URL, not "." or "..".
func isArgPath(v string) bool {
	v = strings.TrimSpace(v)
	if v == "" || len(v) > maxPathLen || strings.ContainsAny(v, "\n\r") || strings.Contains(v, "://") {
		return false
	}
	return strings.Trim(v, "./") != ""
}

// isPathKey reports whether a tool argument named key holds a file path.
// Directory keys (dir, cwd) are left out: they say where, not what.
func isPathKey(key string) bool {
	k := strings.ToLower(key)
	switch k {
	case "path", "paths", "file", "files", "filename", "file_name", "filepath", "file_path",
		"file_paths", "filenames", "target_file", "old_path", "new_path", "notebook_path",
		"relative_path", "absolute_path", "module_path":
		return true
	}
	return isLooseKey(k) || strings.HasSuffix(k, "_path") || strings.HasSuffix(k, "_file") || strings.HasSuffix(k, "filename")
}

// isLooseKey reports path keys that other tools use for other things (a
// flight's destination, a message's source): their value counts only when
// it reads as a path by itself.
func isLooseKey(k string) bool {
	switch strings.ToLower(k) {
	case "source", "src", "dest", "destination", "dst":
		return true
	}
	return false
}
