package compact

import "strings"

// earlier is what a history's existing summaries hold.
type earlier struct {
	bodies  []string // summary bodies, oldest first
	carried []string // user messages they carried, oldest first
}

// previousSummary is the text a summarizer updates.
func (e earlier) previousSummary() string {
	return strings.Join(e.bodies, "\n\n")
}
