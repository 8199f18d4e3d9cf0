package compact_test

import (
	"fmt"
	"strings"

	"github.com/contextkit/compact"
)

func ExampleSummaryPrompt() {
	req := compact.SummaryRequest{
		Turns: []compact.Message{
			{Role: compact.RoleUser, Content: "Also rename the flag to --dry-run."},
			{Role: compact.RoleAssistant, Content: "Renamed in cmd/main.go."},
		},
		PreviousSummary: "## Task\nAdd a preview flag to the CLI.",
		Focus:           "the CLI flags",
		TargetTokens:    800,
	}
	instructions, material := compact.SummaryPrompt(req)
	fmt.Println(strings.HasPrefix(instructions, "You are condensing"))
	fmt.Println(material)
	// Output:
	// true
	// <previous-summary>
	// ## Task
	// Add a preview flag to the CLI.
	// </previous-summary>
	//
	// <focus>
	// the CLI flags
	// </focus>
	//
	// <conversation>
	// [user]
	// Also rename the flag to --dry-run.
	//
	// [assistant]
	// Renamed in cmd/main.go.
	// </conversation>
	//
	// Write the updated handoff note now, in about 800 tokens.
}
