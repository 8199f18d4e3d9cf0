package main

import (
	"regexp"
	"strings"

	"golang.org/x/mod/semver"
)

// nextSections is the CHANGELOG text that tells hosts what changed since
// the release base: the sections before the first version heading, when
// their heading starts with "Unreleased", and that version's section when
// the version is newer than base. It also returns the headings it took.
//
//	## Unreleased: ...   (counts)
//	## v0.2.0            (counts when base is v0.1.0)
//	## v0.1.0            (the release base: stops here)
func nextSections(changelog, base string) (text string, headings []string) {
	var b strings.Builder
	in, last := false, false
	for line := range strings.Lines(changelog) {
		if h, ok := strings.CutPrefix(line, "## "); ok {
			if last {
				break
			}
			h = strings.TrimSpace(h)
			v := strings.TrimRight(strings.Fields(h + " x")[0], ":,.;")
			switch {
			case strings.HasPrefix(strings.ToLower(h), "unreleased"):
			case semver.IsValid(v) && semver.Compare(v, base) > 0:
				last = true // the next version's own section ends the text
			default:
				return b.String(), headings
			}
			in = true
			headings = append(headings, h)
			continue
		}
		if in {
			b.WriteString(line)
		}
	}
	return b.String(), headings
}

// named reports whether text names the symbol k: pkg.Name for a
// package-level name (compact.New), Type.Member for a field or method
// (Compressor.Compress, (*session.Session).Record, Result.Messages).
func named(text string, k key) bool {
	var pattern string
	if k.member == "" {
		pattern = regexp.QuoteMeta(packageName(k.pkg) + "." + k.name)
	} else {
		pattern = regexp.QuoteMeta(k.name) + `\)?\.` + regexp.QuoteMeta(k.member)
	}
	return regexp.MustCompile(`(^|\W)` + pattern + `($|\W)`).MatchString(text)
}

// namesPackage reports whether text names the package at pkgPath, by its
// import path or by the path below the repository's root module (rootPath).
func namesPackage(text, pkgPath, rootPath string) bool {
	for _, p := range []string{pkgPath, strings.TrimPrefix(pkgPath, rootPath+"/")} {
		if regexp.MustCompile(`(^|[^\w./])` + regexp.QuoteMeta(p) + `($|[^\w/])`).MatchString(text) {
			return true
		}
	}
	return false
}
