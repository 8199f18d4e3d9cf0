package compact

import (
	"strings"

	"github.com/contextkit/compact/internal/textcut"
)

// earlier is what a history's existing summaries hold.
type earlier struct {
	bodies  []string // summary bodies, oldest first
	carried []string // user messages they carried, oldest first
}

// previousSummary is the text a summarizer updates.
func (e earlier) previousSummary() string {
	return strings.Join(e.bodies, "\n\n")
}

// openTasksHeading heads the section of a summary that lists the tasks the
// host tracks as not done (WithOpenTasks).
const openTasksHeading = "## Open tasks"

// withOpenTasks returns body with its open-tasks section replaced by one
// listing tasks, or removed when there are none. The host's list is always
// the current one: an earlier summary's list is never carried forward.
func withOpenTasks(body string, tasks []string) string {
	if i := strings.Index(body, openTasksHeading); i >= 0 {
		end := len(body)
		if j := strings.Index(body[i+len(openTasksHeading):], "\n## "); j >= 0 {
			end = i + len(openTasksHeading) + j + 1
		}
		body = strings.TrimSpace(body[:i] + body[end:])
	}
	var b strings.Builder
	for _, t := range tasks {
		if t = textcut.OneLine(t); t != "" {
			b.WriteString("\n- " + t)
		}
	}
	if b.Len() == 0 {
		return body
	}
	return strings.TrimSpace(body + "\n\n" + openTasksHeading + b.String())
}
