package compact

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The public guards carry what internal/msg finds: a ValidationError names
// the message and the rule and unwraps to ErrInvalidHistory; a Repair names
// what was done. (internal/msg's tests check every rule and repair.)
func TestGuardsReportInThePackagesOwnTypes(t *testing.T) {
	bad := []Message{user("u"), result("c9", "x"), {Role: "function", Content: "x"}}
	err := Validate(bad)
	require.Error(t, err)
	assert.True(t, errors.Is(err, ErrInvalidHistory))
	var ve *ValidationError
	require.ErrorAs(t, err, &ve)
	assert.Equal(t, 1, ve.Index)
	assert.Equal(t, "tool result without a call", ve.Rule.String())
	assert.Equal(t, `message 1: tool result "c9" answers no earlier unanswered call`, err.Error())

	ps := Problems(bad)
	require.Len(t, ps, 2)
	assert.Equal(t, []int{1, 2}, []int{ps[0].Index, ps[1].Index})
	assert.Equal(t, "unknown role", ps[1].Rule.String())
	assert.Nil(t, Problems([]Message{user("u")}))
	assert.NoError(t, Validate([]Message{user("u")}))

	fixed, repairs := RepairToolPairs(bad[:2])
	assert.Equal(t, []Message{user("u")}, fixed)
	require.Len(t, repairs, 1)
	assert.Equal(t, Repair{Index: 1, Kind: repairs[0].Kind, ToolCallID: "c9", Detail: repairs[0].Detail}, repairs[0])
	assert.Equal(t, "dropped orphan tool result", repairs[0].Kind.String())
	_, none := RepairToolPairs([]Message{user("u")})
	assert.Nil(t, none)

	assert.Equal(t, "Rule(99)", Rule(99).String())
	assert.Equal(t, "RepairKind(0)", RepairKind(0).String())
}
