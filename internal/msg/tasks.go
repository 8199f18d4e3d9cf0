package msg

import (
	"strings"

	"github.com/contextkit/compact/internal/textcut"
)

// OpenTasksHeading heads the section of a summary that lists the tasks the
// host tracks as not done (compact.WithOpenTasks).
const OpenTasksHeading = "## Open tasks"

// WithOpenTasks returns body with its open-tasks section replaced by one
// listing tasks, or removed when there are none. The host's list is always
// the current one: an earlier summary's list is never carried forward.
func WithOpenTasks(body string, tasks []string) string {
	if i := strings.Index(body, OpenTasksHeading); i >= 0 {
		end := len(body)
		if j := strings.Index(body[i+len(OpenTasksHeading):], "\n## "); j >= 0 {
			end = i + len(OpenTasksHeading) + j + 1
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
	return strings.TrimSpace(body + "\n\n" + OpenTasksHeading + b.String())
}
