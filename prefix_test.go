package compact

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestWithSummaryPrefixNeverDoubles(t *testing.T) {
	once := PrefixSummary("the body")
	assert.Equal(t, SummaryPrefix+"\n\nthe body", once)
	assert.Equal(t, once, PrefixSummary(once), "re-prefixing a prefixed summary")
	assert.Equal(t, once, PrefixSummary(SummaryPrefix+"\n\n"+once), "a stacked prefix collapses")
	assert.Equal(t, SummaryPrefix, PrefixSummary("  "), "an empty body leaves the prefix alone")
	assert.Equal(t, 1, strings.Count(PrefixSummary(once+"\n"), summaryHeader))
}

func TestStripSummaryPrefix(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"plain text unchanged", "no prefix here", "no prefix here"},
		{"current prefix", SummaryPrefix + "\n\nbody", "\n\nbody"},
		{"leading whitespace", "\n  " + SummaryPrefix + " body", " body"},
		{"stacked prefixes", SummaryPrefix + "\n\n" + SummaryPrefix + "\n\nbody", "\n\nbody"},
		{"an older wording under the same header", summaryHeader + " Some earlier preamble.\n\nbody", "body"},
		{"a header with nothing after it", summaryHeader, ""},
		{"header mentioned later is text", "see " + summaryHeader, "see " + summaryHeader},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, StripSummaryPrefix(tt.in))
		})
	}
}

func TestIsSummary(t *testing.T) {
	s := PrefixSummary("notes")
	tests := []struct {
		name string
		msg  Message
		want bool
	}{
		{"user summary", user(s), true},
		{"assistant summary", asst(s), true},
		{"summary as first text part", partsMsg(RoleUser, s, "img:https://x.test/a.png"), true},
		{"real user text", user("please fix the bug"), false},
		{"a tool output quoting a summary is not one", result("c", s), false},
		{"a system prompt is not one", sys(s), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, IsSummary(tt.msg))
		})
	}
}

func TestSplitMergedRoundTrip(t *testing.T) {
	tests := []struct {
		name string
		orig Message
	}{
		{"string content", user("the real question")},
		{"content starting with blank lines", user("\n\nindented question")},
		{"parts content", partsMsg(RoleUser, "look at", "img:https://x.test/a.png")},
		{"assistant with tool calls", call("checking", "c1", "bash")},
		{"content quoting the end marker", user("what does " + summaryEnd + " mean?")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			summary := "earlier we did X; it mentions " + summaryEnd + " too"
			merged := prependText(tt.orig, mergedSummaryText(summary), mergedSummarySep)
			assert.True(t, IsSummary(merged))
			got, rest, ok := splitMerged(merged)
			assert.True(t, ok)
			assert.Contains(t, got, "earlier we did X")
			assert.True(t, equalMessage(tt.orig, rest), "the merged message comes apart into the original: %#v", rest)
			if tt.orig.Role == RoleUser {
				assert.True(t, IsRealUser(merged), "a summary merged into a real user turn leaves it real")
			}
		})
	}
}

func TestIsRealUser(t *testing.T) {
	assert.True(t, IsRealUser(user("hi")))
	assert.False(t, IsRealUser(user(PrefixSummary("notes"))), "a standalone summary is not a real turn")
	assert.False(t, IsRealUser(asst("hi")))
}

func TestSplitSummary(t *testing.T) {
	_, rest, ok := splitSummary("plain")
	assert.False(t, ok)
	assert.Equal(t, "plain", rest)

	summary, rest, ok := splitSummary(PrefixSummary("just notes"))
	assert.True(t, ok)
	assert.Equal(t, "just notes", summary)
	assert.Equal(t, "", rest)
}

func TestCompactionNote(t *testing.T) {
	assert.False(t, hasCompactionNote("You are helpful."))
	assert.True(t, hasCompactionNote("You are helpful."+compactionNoteSep+CompactionNote))
	assert.True(t, hasCompactionNote("You are helpful."+compactionNoteSep+CompactionNote+"\nHost edit after it."))
}
