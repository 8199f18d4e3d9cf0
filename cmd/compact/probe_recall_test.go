package main

import (
	"context"
	"strings"
	"testing"

	openai "github.com/sashabaranov/go-openai"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/contextkit/compact"
)

func TestRecallerFindsFactsVerbatim(t *testing.T) {
	long := "E   AssertionError: " + strings.Repeat("é long diff ", 120)
	msgs := []compact.Message{
		{Role: compact.RoleSystem, Content: "agent"},
		{Role: compact.RoleUser, Content: "Fix it."},
		{Role: compact.RoleAssistant, ToolCalls: []openai.ToolCall{
			toolCall("c1", "bash", `{"command":"grep -rn \"def parse\" src/ | head\necho ok"}`)}},
		{Role: compact.RoleTool, ToolCallID: "c1", Content: "src/p.py:3: def parse(x):\n" + long + "\nok"},
	}
	r, err := newRecaller(context.Background(), msgs)
	require.NoError(t, err)
	for fact, want := range map[string]bool{
		"grep -rn \"def parse\" src/ | head\necho ok": true, // a command as it ran, quotes and line break decoded
		"src/p.py:3: def parse(x):":                   true,
		long:                                          true, // searched by its first 1,000 bytes
		"Fix it.":                                     true,
		"never said":                                  false,
	} {
		got, err := r.finds(context.Background(), fact)
		require.NoError(t, err)
		assert.Equal(t, want, got, "%.60q", fact)
	}
}

func TestProbeRecallCountsTheLostFacts(t *testing.T) {
	r, err := newRecaller(context.Background(), []compact.Message{{Role: compact.RoleUser, Content: "a/b.go failed"}})
	require.NoError(t, err)
	paths := score{missing: []string{"a/b.go", "c/d.go"}}
	errs := score{missing: []string{"failed"}}
	rc, err := probeRecall(context.Background(), r, &paths, &errs)
	require.NoError(t, err)
	assert.Equal(t, recall{lost: 3, found: 2, missing: []string{"c/d.go"}}, rc)
	assert.Equal(t, "2/3", rc.cell())
	assert.Equal(t, "-", recall{}.cell())
}
