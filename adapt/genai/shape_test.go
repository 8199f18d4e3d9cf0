package genai

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	sdk "google.golang.org/genai"

	"github.com/contextkit/compact"
)

// sharedHistory is a long history whose last request (a text part, an
// inline image and a file) comes back after the summary: its function responses are
// too large for the tail to reach back to it.
func sharedHistory(t *testing.T) (History, *sdk.Content) {
	h := longHistory(t, 12)
	h.Contents = h.Contents[:len(h.Contents)-1] // it ends with "Part 11 read."
	n := len(h.Contents)
	req := user(text("Which flags did v2 remove?"), &sdk.Part{InlineData: &sdk.Blob{MIMEType: "image/png", Data: []byte("PNG")}},
		&sdk.Part{FileData: &sdk.FileData{FileURI: "gs://b/notes.pdf", MIMEType: "application/pdf"}})
	h.Contents[n-4] = req
	h.Contents[n-2] = user(sdk.NewPartFromFunctionResponse("read_file", map[string]any{"output": strings.Repeat("func big() {}\n", 900)}),
		sdk.NewPartFromFunctionResponse("read_file", map[string]any{"error": "open: permission denied"}))
	require.NoError(t, Validate(h))
	return h, req
}

// A compacted history opens on the user's content (compact's contract 10)
// with no content of this package's own: the summary, which would
// otherwise open it as the model's, is a text part leading the user
// content after it, whose own parts come back as they were. Compacted
// again, the new summary takes the old one's place.
func TestACompactedHistoryOpensOnTheUsersContent(t *testing.T) {
	h, req := sharedHistory(t)
	engine := func() compact.ContextEngine {
		return compact.New(compact.WithContextWindow(6000), compact.WithHeadMessages(0))
	}
	out, _, err := Compress(context.Background(), engine(), h, compact.Force())
	require.NoError(t, err)
	require.NoError(t, Validate(out))
	first := out.Contents[0]
	require.Equal(t, sdk.RoleUser, first.Role)
	require.Len(t, first.Parts, 4)
	assert.True(t, strings.HasPrefix(first.Parts[0].Text, "[Context handoff]"), "the summary leads")
	assert.Equal(t, jsonOf(t, req.Parts), jsonOf(t, first.Parts[1:]), "the request's own parts, as they were")
	assert.NotContains(t, string(encode(t, out)), continuationText)

	for i := range 6 { // more work on the same request
		out.Contents = append(out.Contents,
			model(sdk.NewPartFromFunctionCall("grep", map[string]any{"q": fmt.Sprint("flag", i)})),
			user(sdk.NewPartFromFunctionResponse("grep", map[string]any{"output": strings.Repeat("flag.go: -legacy\n", 120)})),
			model(text("Found it.")))
	}
	again, _, err := Compress(context.Background(), engine(), out, compact.Force())
	require.NoError(t, err)
	first = again.Contents[0]
	require.Len(t, first.Parts, 4, "one summary, in place of the old one")
	assert.Equal(t, jsonOf(t, req.Parts), jsonOf(t, first.Parts[1:]))
}

// compact.WithUserFirst(false) keeps the earlier shape: the summary is the
// model's, and a short user content of this package's opens the history.
func TestTheEarlierShapeOpensOnAContinuationContent(t *testing.T) {
	h, _ := sharedHistory(t)
	engine := compact.New(compact.WithContextWindow(6000), compact.WithHeadMessages(0), compact.WithUserFirst(false))
	out, _, err := Compress(context.Background(), engine, h, compact.Force())
	require.NoError(t, err)
	require.NoError(t, Validate(out))
	assert.Equal(t, continuationText, out.Contents[0].Parts[0].Text)
	assert.Equal(t, sdk.RoleModel, out.Contents[1].Role)
}
