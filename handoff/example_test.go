package handoff_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/contextkit/compact/handoff"
)

// A packet is plain Markdown: what a fresh context needs, redacted and
// bounded.
func ExampleBuild() {
	packet := handoff.Build(handoff.Input{
		SessionID:   "sess-7",
		Model:       "gpt-4o",
		Compactions: 2,
		Note:        "Release after the fix.",
		Summary:     "The importer skips blank lines. DB_PASSWORD=hunter2 was used for the test database.",
		Messages: []handoff.Message{
			{Role: "user", Content: "Now tag v1.2.0."},
		},
		OpenTasks: []string{"Tag v1.2.0"},
	})
	fmt.Println(packet[:strings.Index(packet, "## How to continue")])
	// Output:
	// # Handoff packet
	//
	// A compact record of a conversation, written so that a fresh context can continue it.
	//
	// ## Session
	//
	// - Session: sess-7
	// - Model: gpt-4o
	// - Compactions so far: 2
	//
	// ## Operator note
	//
	// > Release after the fix.
	//
	// ## Open tasks
	//
	// - [ ] Tag v1.2.0
	//
	// ## Latest summary
	//
	// ```markdown
	// The importer skips blank lines. DB_PASSWORD=[REDACTED] was used for the test database.
	// ```
	//
	// ## Latest user request
	//
	// ```text
	// Now tag v1.2.0.
	// ```
}

// Write never writes outside its root and never overwrites.
func ExampleWrite() {
	root, _ := os.MkdirTemp("", "handoff")
	defer os.RemoveAll(root)

	first, _ := handoff.Write(root, "packets", "p.md", []byte("one"))
	second, _ := handoff.Write(root, "packets", "p.md", []byte("two"))
	fmt.Println(filepath.Base(first), filepath.Base(second))

	_, err := handoff.Write(root, "../elsewhere", "p.md", []byte("three"))
	fmt.Println(errors.Is(err, handoff.ErrUnsafePath))
	// Output:
	// p.md p-2.md
	// true
}

// ParseCommand reads the command a host offers for a packet by hand.
func ExampleParseCommand() {
	for _, in := range []string{"/handoff-packet wrap up the release", "/handoff-packet", "/handoff"} {
		note, ok := handoff.ParseCommand(in)
		fmt.Printf("%q %v\n", note, ok)
	}
	// Output:
	// "wrap up the release" true
	// "" true
	// "" false
}

// A continuation is the system prompt as the host wrote it, and the packet.
func ExampleContinuation() {
	history := []handoff.Message{
		{Role: "system", Content: "You are a coding agent."},
		{Role: "user", Content: "Make the importer skip blank lines."},
	}
	cont, err := handoff.Continuation(history, "", "# Handoff packet\n...")
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, m := range cont {
		fmt.Printf("%s: %s\n", m.Role, strings.SplitN(m.Content, "\n", 2)[0])
	}
	// Output:
	// system: You are a coding agent.
	// user: # Handoff packet
}

// Resolve fills a policy's defaults in and says which bounds it raised.
func ExamplePolicy_Resolve() {
	p, adjusted := handoff.Policy{Enabled: true, MaxBytes: 4096}.Resolve()
	fmt.Println(p.AfterCompactions, p.MaxPerSession, p.MaxBytes, p.MaxMessages, p.MessageBytes)
	fmt.Println(adjusted)
	// Output:
	// 2 1 8192 8 2048
	// [MaxBytes(4096): below 8192, 8192 kept]
}

// Deliver writes a packet under the policy's root; in FreshSession mode it
// also builds the continuation a new session starts from.
func ExampleDeliver() {
	root, _ := os.MkdirTemp("", "handoff")
	defer os.RemoveAll(root)
	history := []handoff.Message{
		{Role: "system", Content: "You are a coding agent."},
		{Role: "user", Content: "Fix the importer."},
	}
	p := handoff.Policy{Mode: handoff.FreshSession, Root: root, Dir: "handoffs"}
	r, err := handoff.Deliver(context.Background(), p, handoff.Input{SessionID: "s1", Messages: history}, history, "", "s1-1.md")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(filepath.Base(r.Path), len(r.Continuation), r.Continuation[0].Content)
	// Output: s1-1.md 2 You are a coding agent.
}
