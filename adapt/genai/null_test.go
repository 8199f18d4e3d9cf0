package genai

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	sdk "google.golang.org/genai"

	"github.com/contextkit/compact"
)

// A nil part of a function response encodes as null, as a nil part does;
// Validate passed it and Convert read it as "[part]" (issue 35's class of
// typed nil parts, here in genai's FunctionResponse.Parts).
func TestANilPartOfAFunctionResponseIsAnError(t *testing.T) {
	call := &sdk.Content{Role: sdk.RoleModel, Parts: []*sdk.Part{{FunctionCall: &sdk.FunctionCall{ID: "c1", Name: "screenshot"}}}}
	response := &sdk.Content{Role: sdk.RoleUser, Parts: []*sdk.Part{{FunctionResponse: &sdk.FunctionResponse{ID: "c1", Name: "screenshot",
		Response: map[string]any{"output": "taken"},
		Parts:    []*sdk.FunctionResponsePart{{InlineData: &sdk.FunctionResponseBlob{MIMEType: "image/png", Data: []byte{1}}}, nil}}}}}
	h := History{Contents: []*sdk.Content{sdk.NewContentFromText("Take one.", sdk.RoleUser), call, response}}

	_, err := Convert(h)
	require.ErrorIs(t, err, compact.ErrInvalidHistory)
	assert.Equal(t, `genai: content 2: compact: invalid history: part 0: function response "screenshot": part 1 is nil`, err.Error())

	var se *ShapeError
	require.ErrorAs(t, Validate(h), &se, "Validate passes a part that encodes as null")
	assert.Equal(t, RuleNil, se.Rule)
	assert.Equal(t, [2]int{2, 0}, [2]int{se.Index, se.Part})

	_, _, err = Compress(context.Background(), compact.New(compact.WithContextWindow(4000)), h, compact.Force())
	require.ErrorIs(t, err, compact.ErrInvalidHistory)

	_, err = Convert(History{System: &sdk.Content{Parts: response.Parts}, Contents: h.Contents[:1]})
	require.ErrorIs(t, err, compact.ErrInvalidHistory, "in the system instruction too")
}
