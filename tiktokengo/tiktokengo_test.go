package tiktokengo

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/contextkit/compact"
	"github.com/contextkit/compact/tokens"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestEncodingsMatchPublishedTokenIDs checks the oracle itself against
// token ids published by tiktoken and its ports.
func TestEncodingsMatchPublishedTokenIDs(t *testing.T) {
	tests := []struct {
		encoding, text, source string
		want                   []int
	}{
		{tokens.EncodingCL100KBase, "hello world", "openai/tiktoken tests/test_encoding.py test_simple", []int{15339, 1917}},
		{tokens.EncodingCL100KBase, "'rer", "openai/tiktoken tests/test_encoding.py test_simple_regex", []int{2351, 81}},
		{tokens.EncodingCL100KBase, "today\n  \n", "openai/tiktoken tests/test_encoding.py test_simple_regex", []int{31213, 14211}},
		{tokens.EncodingCL100KBase, " \u00850", "openai/tiktoken tests/test_encoding.py test_basic_encode", []int{220, 126, 227, 15}},
		{tokens.EncodingCL100KBase, "👍", "openai/tiktoken tests/test_encoding.py test_encode_surrogate_pairs", []int{9468, 239, 235}},
		{tokens.EncodingCL100KBase, "antidisestablishmentarianism", "OpenAI cookbook, How to count tokens with tiktoken", []int{519, 85342, 34500, 479, 8997, 2191}},
		{tokens.EncodingCL100KBase, "お誕生日おめでとう", "OpenAI cookbook, How to count tokens with tiktoken", []int{33334, 45918, 243, 21990, 9080, 33334, 62004, 16556, 78699}},
		{tokens.EncodingO200KBase, "hello world", "o200k_base ids as reproduced by its ports, e.g. Hugging Face Xenova/gpt-4o", []int{24912, 2375}},
	}
	for _, tt := range tests {
		c, err := New(tt.encoding)
		require.NoError(t, err)
		assert.Equal(t, tt.want, c.Encode(tt.text), "%s %q (%s)", tt.encoding, tt.text, tt.source)
		assert.Equal(t, len(tt.want), c.CountText(tt.text), "%s %q", tt.encoding, tt.text)
	}
}

func TestNewRejectsUnknownEncodings(t *testing.T) {
	for _, name := range []string{"", "p50k_base", "r50k_base", "gpt2", "O200K_BASE"} {
		c, err := New(name)
		assert.Nil(t, c, name)
		assert.ErrorIs(t, err, tokens.ErrUnknownEncoding, name)
	}
}

// TestCountsLikeTheRootCounter checks that messages count by the same
// rules as the root package's counter: the cookbook's example request is
// what OpenAI's API reported for it.
func TestCountsLikeTheRootCounter(t *testing.T) {
	msgs := []compact.Message{
		{Role: "system", Content: "You are a helpful, pattern-following assistant that translates corporate jargon into plain English."},
		{Role: "system", Name: "example_user", Content: "New synergies will help drive top-line growth."},
		{Role: "system", Name: "example_assistant", Content: "Things working well together will increase revenue."},
		{Role: "system", Name: "example_user", Content: "Let's circle back when we have more bandwidth to touch base on opportunities for increased leverage."},
		{Role: "system", Name: "example_assistant", Content: "Let's talk later when we're less busy about how to do better."},
		{Role: "user", Content: "This late pivot means we don't have time to boil the ocean for the client deliverable."},
	}
	for enc, want := range map[string]int{tokens.EncodingO200KBase: 124, tokens.EncodingCL100KBase: 129} {
		c, err := New(enc)
		require.NoError(t, err)
		assert.Equal(t, enc, c.Encoding())
		assert.Equal(t, want, tokens.CountMessages(c, msgs), enc)
		root, err := tokens.ForEncoding(enc)
		require.NoError(t, err)
		for _, m := range msgs {
			assert.Equal(t, root.CountMessage(m), c.CountMessage(m), "%s %+v", enc, m)
		}
	}
}

// TestNoNetworkIsNeeded builds both encodings with every proxy pointed at
// a closed port and an empty tiktoken cache: were anything to download
// ranks, it would fail. It builds them directly, because the shared ones
// may already exist, and then in a fresh process through New.
func TestNoNetworkIsNeeded(t *testing.T) {
	if os.Getenv("TIKTOKENGO_TEST_OFFLINE_CHILD") == "1" {
		for _, enc := range []string{tokens.EncodingO200KBase, tokens.EncodingCL100KBase} {
			c, err := New(enc)
			require.NoError(t, err)
			require.Equal(t, 2, c.CountText("hello world"), "%s: hello world", enc)
		}
		return
	}
	env := map[string]string{
		"HTTP_PROXY": "http://127.0.0.1:9", "HTTPS_PROXY": "http://127.0.0.1:9",
		"http_proxy": "http://127.0.0.1:9", "https_proxy": "http://127.0.0.1:9",
		"NO_PROXY": "", "no_proxy": "",
		"TIKTOKEN_CACHE_DIR": t.TempDir(), "DATA_GYM_CACHE_DIR": t.TempDir(),
	}
	for k, v := range env {
		t.Setenv(k, v)
	}
	for _, spec := range []struct {
		name, pattern string
		special       map[string]int
	}{
		{tokens.EncodingO200KBase, O200KBasePattern, map[string]int{"<|endoftext|>": o200kEndOfText}},
		{tokens.EncodingCL100KBase, CL100KBasePattern, map[string]int{"<|endoftext|>": cl100kEndOfText}},
	} {
		enc, err := build(spec.name, spec.pattern, spec.special)
		require.NoError(t, err, spec.name)
		assert.Len(t, enc.EncodeOrdinary("hello world"), 2, spec.name)
	}

	cmd := exec.Command(os.Args[0], "-test.run=^TestNoNetworkIsNeeded$", "-test.count=1")
	cmd.Env = append(os.Environ(), "TIKTOKENGO_TEST_OFFLINE_CHILD=1")
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "fresh process, no network:\n%s", out)
}

// TestNeverUsesTiktokensGlobalLoader checks the package's source: it must
// not call tiktoken-go's functions that load ranks through its global,
// network-capable loader, nor change that loader.
func TestNeverUsesTiktokensGlobalLoader(t *testing.T) {
	forbidden := map[string]bool{"NewDefaultBpeLoader": true, "SetBpeLoader": true, "GetEncoding": true, "EncodingForModel": true}
	files, err := filepath.Glob("*.go")
	require.NoError(t, err)
	fset := token.NewFileSet()
	uses := 0
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		require.NoError(t, err)
		tiktokenName := ""
		for _, imp := range f.Imports {
			if imp.Path.Value == `"github.com/pkoukk/tiktoken-go"` {
				tiktokenName = "tiktoken"
				if imp.Name != nil {
					tiktokenName = imp.Name.Name
				}
			}
		}
		if tiktokenName == "" {
			continue
		}
		ast.Inspect(f, func(n ast.Node) bool {
			if sel, ok := n.(*ast.SelectorExpr); ok {
				if id, ok := sel.X.(*ast.Ident); ok && id.Name == tiktokenName {
					uses++
					assert.False(t, forbidden[sel.Sel.Name], "%s: uses tiktoken.%s", fset.Position(sel.Pos()), sel.Sel.Name)
				}
			}
			return true
		})
	}
	assert.Positive(t, uses, "the check found the package's uses of tiktoken-go")
}
