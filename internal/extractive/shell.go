package extractive

import (
	"path"
	"strings"
)

// shellSeg is one segment of a shell line (see shellSegments), read once
// for both commandPaths and commandWords.
type shellSeg struct {
	text   string
	fields []string // its words, without leading assignments and prefix commands (sudo, env)
	group  int      // the file group its verb gives (verbGroup); fileReferenced with no words
}

// splitShell splits a shell line into its segments.
func splitShell(cmd string) []shellSeg {
	texts := shellSegments(cmd)
	segs := make([]shellSeg, len(texts))
	for i, seg := range texts {
		fields := strings.Fields(seg)
		for len(fields) > 0 && (isAssignment(fields[0]) || isPrefixCommand(fields[0])) {
			fields = fields[1:]
		}
		g := fileReferenced
		if len(fields) > 0 {
			g = verbGroup(path.Base(fields[0]), fields[1:])
		}
		segs[i] = shellSeg{text: seg, fields: fields, group: g}
	}
	return segs
}
