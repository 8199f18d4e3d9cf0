package main

import (
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// This file holds the probe's rules for two more kinds of fact: the
// identifiers a tool call passes (a reservation code, a user id, an issue
// number) and the files a tool call modifies. Like the rest of the probe's
// rules they are written apart from the extractive summarizer's.

// idValue is the shape of an identifier: one token of letters, digits and
// a few joiners, 2 to 64 bytes.
var idValue = regexp.MustCompile(`^[A-Za-z0-9#][A-Za-z0-9_.:#@-]{1,63}$`)

// locator matches a record locator: six upper-case letters or digits
// (an airline booking code such as HATHAU or ZFA04Y).
var locator = regexp.MustCompile(`^[A-Z0-9]{6}$`)

// notAnID matches mixed letters and digits that measure or date something
// rather than name it: 2024-05-15, 2024-05-15T10:00:00Z, 10px, 1.5GB, 30s,
// v1.2.3, 1h30m.
var notAnID = regexp.MustCompile(`^(?:\d{4}-\d{2}-\d{2}(?:[T ][\d:.]+Z?)?|\d+(?:\.\d+)?[A-Za-z]{1,3}|v?\d+(?:\.\d+)+[a-z]?\d*|(?:\d+[hms])+)$`)

// idKey matches argument names that say their value names an entity.
var idKey = regexp.MustCompile(`(?i)(?:^|_|-)(?:id|ids|uuid|sha|commit|issue|pr|pull|ticket|order|number|no|locator|pnr|confirmation)$|[a-z]Id$`)

// countKey matches argument names whose numbers count or place something
// rather than name it: line_number, page_number.
var countKey = regexp.MustCompile(`(?i)line|col|page|count|limit|offset|size|amount|total|port|timeout|max|min|step|index|status|exit`)

// textKeys are arguments holding prose or code, never identifiers.
var textKeys = wordSet(`command cmd code script content text old_str new_str file_text query thought thoughts
	message description body title summary prompt pattern regex reason note comment answer final_answer
	expression input search replace insert patch diff`)

// factIDs calls add with each identifier in a call's arguments, searched
// to any depth: the innermost key names what a value is.
func factIDs(args any, key string, add func(string)) {
	switch v := args.(type) {
	case map[string]any:
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			if textKeys[strings.ToLower(k)] || pathKeys[strings.ToLower(k)] {
				continue
			}
			factIDs(v[k], k, add)
		}
	case []any:
		for _, x := range v {
			factIDs(x, key, add)
		}
	case string:
		if s := strings.TrimSpace(v); isFactID(s, key) {
			add(s)
		}
	case float64:
		if v == float64(int64(v)) && v > 0 && idKey.MatchString(key) && !countKey.MatchString(key) {
			add(strconv.FormatInt(int64(v), 10))
		}
	}
}

// isFactID reports whether s, given under key, is an identifier: a token
// that mixes letters and digits (and measures or dates nothing), a record
// locator, an issue reference (#123), or a token under a key that says it
// names an entity.
func isFactID(s, key string) bool {
	if !idValue.MatchString(s) || strings.Contains(s, "/") {
		return false
	}
	letter := strings.IndexFunc(s, isLetter) >= 0
	digit := strings.IndexFunc(s, func(r rune) bool { return r >= '0' && r <= '9' }) >= 0
	switch {
	case locator.MatchString(s):
		return true
	case strings.HasPrefix(s, "#"):
		return digit && !letter
	case letter && digit:
		return !notAnID.MatchString(s)
	}
	return idKey.MatchString(key) && !countKey.MatchString(key) && (digit || len(s) >= 4)
}

// modifyWord matches a tool name or an editor sub-command that changes
// files.
var modifyWord = regexp.MustCompile(`(?i)write|edit|create|replace|insert|patch|append|delete|remove|rename|move|save|undo`)

// modifyVerbs are shell commands that change the files they name.
var modifyVerbs = wordSet(`touch rm mv cp mkdir tee truncate patch install ln chmod`)

// redirect matches an output redirection and its target: > f, >> f, 2> f.
var redirect = regexp.MustCompile(`(?:^|[^<>&0-9])\d?>>?\s*([^\s;&|<>()'"]+)`)

// codeWrite matches a code call that writes the file named by its first
// argument: edit_file_by_replace('/a.py', ...), create_file("b.txt").
var codeWrite = regexp.MustCompile(`\b(?:create|edit|append|insert|write|replace)\w*\(\s*['"]([^'"\n]+)['"]`)

// fileHeader matches the header SWE-agent style editors print, naming the
// file they act on: [File: /repo/a.py (12 lines total)].
var fileHeader = regexp.MustCompile(`^\[File: ([^\s\]]+)`)

// modifiedBy calls add with each file a tool call modifies: its path
// arguments when its name or sub-command says it writes; redirection
// targets and the operands of touch, rm, mv, sed -i... in a shell command;
// the file a code call writes. It reports whether the call writes without
// naming a file (an editor acting on the file it has open).
func modifiedBy(tool string, args map[string]any, add func(string)) (unnamed bool) {
	sub, _ := args["command"].(string)
	if sub == "" {
		sub, _ = args["action"].(string)
	}
	writes := modifyWord.MatchString(tool) && !shellTool.MatchString(tool)
	if s := strings.TrimSpace(sub); s != "" && !strings.ContainsAny(s, " \t\n") && !shellTool.MatchString(tool) {
		writes = modifyWord.MatchString(s)
	}
	named := false
	if writes {
		for k, v := range args {
			if !pathKeys[strings.ToLower(k)] {
				continue
			}
			vals, _ := v.([]any)
			if s, ok := v.(string); ok {
				vals = []any{s}
			}
			for _, x := range vals {
				if s, ok := x.(string); ok && looksLikePath(strings.TrimSpace(s), true) {
					add(strings.TrimSpace(s))
					named = true
				}
			}
		}
	}
	if cmd := shellCommand(tool, args); cmd != "" {
		shellModified(cmd, add)
	}
	if code, ok := args["code"].(string); ok {
		for _, m := range codeWrite.FindAllStringSubmatch(code, -1) {
			if looksLikePath(m[1], true) {
				add(m[1])
			}
		}
	}
	return writes && !named
}

// shellSep splits a command line into simple commands.
var shellSep = regexp.MustCompile(`&&|\|\||[;|\n]`)

// shellModified calls add with the files a shell command line changes.
func shellModified(cmd string, add func(string)) {
	for _, m := range redirect.FindAllStringSubmatch(cmd, -1) {
		if t := m[1]; looksLikePath(t, false) || strings.Contains(t, ".") && looksLikePath(t, true) {
			add(t)
		}
	}
	for _, seg := range shellSep.Split(cmd, -1) {
		words := strings.Fields(seg)
		for len(words) > 0 && (words[0] == "sudo" || strings.Contains(words[0], "=")) {
			words = words[1:]
		}
		if len(words) < 2 {
			continue
		}
		verb, rest := words[0], words[1:]
		inPlace := (verb == "sed" || verb == "perl") && hasFlagPrefix(rest, "-i", "-pi")
		if !modifyVerbs[verb] && !inPlace {
			continue
		}
		for i, w := range rest {
			w = strings.Trim(w, `'"`)
			if verb == "cp" && i < len(rest)-1 {
				continue // cp changes only its destination
			}
			if looksLikePath(w, false) {
				add(w)
			}
		}
	}
}

func hasFlagPrefix(words []string, prefixes ...string) bool {
	for _, w := range words {
		for _, p := range prefixes {
			if strings.HasPrefix(w, p) {
				return true
			}
		}
	}
	return false
}
