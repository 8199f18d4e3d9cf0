package main

import (
	"fmt"
	"strings"
)

// A key names the symbol a line of an API file describes: a package-level
// name, or a member (a field, a method, an interface's method) of a type.
// Two lines with one key are the same symbol: one changed into the other.
type key struct {
	pkg    string // import path
	name   string // package-level name
	member string // field or method of name; empty for name itself
}

func (k key) String() string {
	if k.member != "" {
		return packageName(k.pkg) + "." + k.name + "." + k.member
	}
	return packageName(k.pkg) + "." + k.name
}

// parseLine finds the key of one line as packageAPI writes it:
//
//	pkg P, const|var|func NAME ...
//	pkg P, method (RECV) NAME(...) ...
//	pkg P, type NAME[TPARAMS] ...
//	pkg P, type NAME struct, FIELD T   (or: embedded T)
//	pkg P, type NAME interface, METHOD(...) ...
func parseLine(line string) (key, error) {
	bad := func() (key, error) { return key{}, fmt.Errorf("not a line of an API file: %q", line) }
	rest, ok := strings.CutPrefix(line, "pkg ")
	if !ok {
		return bad()
	}
	pkg, rest, ok := strings.Cut(rest, ", ")
	if !ok {
		return bad()
	}
	kind, rest, ok := strings.Cut(rest, " ")
	if !ok {
		return bad()
	}
	k := key{pkg: pkg}
	switch kind {
	case "const", "var", "func":
		k.name = ident(rest)
	case "method":
		recv, after, ok := strings.Cut(strings.TrimPrefix(rest, "("), ") ")
		if !ok {
			return bad()
		}
		k.name, k.member = ident(strings.TrimPrefix(recv, "*")), ident(after)
	case "type":
		k.name = ident(rest)
		after := rest[len(k.name):]
		if f, ok := strings.CutPrefix(after, " struct, "); ok {
			if t, ok := strings.CutPrefix(f, "embedded "); ok {
				// The field's name is its type's, without pointer,
				// package or type arguments.
				t = strings.TrimPrefix(t, "*")
				if i := strings.IndexByte(t, '['); i >= 0 {
					t = t[:i]
				}
				if i := strings.LastIndexByte(t, '.'); i >= 0 {
					t = t[i+1:]
				}
				f = t
			}
			k.member = ident(f)
		} else if m, ok := strings.CutPrefix(after, " interface, "); ok {
			k.member = ident(m)
		}
	default:
		return bad()
	}
	if k.name == "" {
		return bad()
	}
	return k, nil
}

// ident is the Go identifier s starts with.
func ident(s string) string {
	for i, r := range s {
		if r != '_' && !('a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9' || r > 0x7f) {
			return s[:i]
		}
	}
	return s
}

// index maps each line of an API file to its key. Comment lines (#) and
// blank lines are skipped.
func index(lines []string) (map[key]string, error) {
	m := make(map[key]string, len(lines))
	for _, l := range lines {
		if l == "" || strings.HasPrefix(l, "#") {
			continue
		}
		k, err := parseLine(l)
		if err != nil {
			return nil, err
		}
		if prev, dup := m[k]; dup {
			return nil, fmt.Errorf("two lines name %s: %q and %q", k, prev, l)
		}
		m[k] = l
	}
	return m, nil
}
