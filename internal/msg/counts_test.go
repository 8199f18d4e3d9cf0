package msg_test

import (
	"testing"

	"github.com/contextkit/compact/internal/msg"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A carried message of one byte says "1 byte", and the section reads back
// that, the plural of longer ones, and the "1 bytes" summaries written
// before said; a unit that is neither is not a carried section.
func TestACarriedEntryOfOneByteSaysByte(t *testing.T) {
	text := msg.SummaryText("the body", []string{"y", "yes"})
	assert.Contains(t, text, "[user message, 1 byte]\ny")
	assert.Contains(t, text, "[user message, 3 bytes]\nyes")
	body, carried := msg.SplitCarried(msg.StripSummaryPrefix(text))
	assert.Equal(t, "the body", body)
	assert.Equal(t, []string{"y", "yes"}, carried)

	old := "the body\n\n" + msg.CarriedHeader + "\n[user message, 1 bytes]\ny\n[user message, 3 bytes]\nyes"
	body, carried = msg.SplitCarried(old)
	assert.Equal(t, "the body", body, "as summaries written before the singular")
	assert.Equal(t, []string{"y", "yes"}, carried)

	foreign := "the body\n\n" + msg.CarriedHeader + "\n[user message, 1 bite]\ny"
	body, carried = msg.SplitCarried(foreign)
	assert.Equal(t, foreign, body)
	assert.Nil(t, carried)
}

// A repair that drops a tool result of one byte says "1 byte dropped".
func TestARepairCountsOneByteInTheSingular(t *testing.T) {
	_, repairs := msg.RepairToolPairs([]msg.Message{
		{Role: msg.RoleUser, Content: "go"},
		{Role: msg.RoleTool, ToolCallID: "x", Content: "0"},
		{Role: msg.RoleTool, ToolCallID: "z", Content: "00"},
	})
	require.Len(t, repairs, 2)
	assert.Contains(t, repairs[0].Detail, "(1 byte dropped)")
	assert.Contains(t, repairs[1].Detail, "(2 bytes dropped)")
}
