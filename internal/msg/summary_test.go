package msg_test

import (
	"strings"
	"testing"

	"github.com/contextkit/compact/internal/msg"
	"github.com/contextkit/compact/internal/msgtest"
	"github.com/stretchr/testify/assert"
)

func TestWithSummaryPrefixNeverDoubles(t *testing.T) {
	once := msg.PrefixSummary("the body")
	assert.Equal(t, msg.SummaryPrefix+"\n\nthe body", once)
	assert.Equal(t, once, msg.PrefixSummary(once), "re-prefixing a prefixed summary")
	assert.Equal(t, once, msg.PrefixSummary(msg.SummaryPrefix+"\n\n"+once), "a stacked prefix collapses")
	assert.Equal(t, msg.SummaryPrefix, msg.PrefixSummary("  "), "an empty body leaves the prefix alone")
	assert.Equal(t, 1, strings.Count(msg.PrefixSummary(once+"\n"), msg.SummaryHeader))
}

func TestStripSummaryPrefix(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"plain text unchanged", "no prefix here", "no prefix here"},
		{"current prefix", msg.SummaryPrefix + "\n\nbody", "\n\nbody"},
		{"leading whitespace", "\n  " + msg.SummaryPrefix + " body", " body"},
		{"stacked prefixes", msg.SummaryPrefix + "\n\n" + msg.SummaryPrefix + "\n\nbody", "\n\nbody"},
		{"an older wording under the same header", msg.SummaryHeader + " Some earlier preamble.\n\nbody", "body"},
		{"a header with nothing after it", msg.SummaryHeader, ""},
		{"header mentioned later is text", "see " + msg.SummaryHeader, "see " + msg.SummaryHeader},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, msg.StripSummaryPrefix(tt.in))
		})
	}
}

func TestIsSummary(t *testing.T) {
	s := msg.PrefixSummary("notes")
	tests := []struct {
		name string
		msg  msg.Message
		want bool
	}{
		{"user summary", msgtest.User(s), true},
		{"assistant summary", msgtest.Asst(s), true},
		{"summary as first text part", msgtest.Parts(msg.RoleUser, s, "img:https://x.test/a.png"), true},
		{"real user text", msgtest.User("please fix the bug"), false},
		{"a tool output quoting a summary is not one", msgtest.Result("c", s), false},
		{"a system prompt is not one", msgtest.Sys(s), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, msg.IsSummary(tt.msg))
		})
	}
}

func TestSplitMergedRoundTrip(t *testing.T) {
	tests := []struct {
		name string
		orig msg.Message
	}{
		{"string content", msgtest.User("the real question")},
		{"content starting with blank lines", msgtest.User("\n\nindented question")},
		{"parts content", msgtest.Parts(msg.RoleUser, "look at", "img:https://x.test/a.png")},
		{"assistant with tool calls", msgtest.Call("checking", "c1", "bash")},
		{"content quoting the end marker", msgtest.User("what does " + msg.SummaryEnd + " mean?")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			summary := "earlier we did X; it mentions " + msg.SummaryEnd + " too"
			merged := msg.PrependText(tt.orig, msg.MergedSummaryText(summary), msg.MergedSummarySep)
			assert.True(t, msg.IsSummary(merged))
			got, rest, ok := msg.SplitMerged(merged)
			assert.True(t, ok)
			assert.Contains(t, got, "earlier we did X")
			assert.True(t, msg.EqualMessage(tt.orig, rest), "the merged message comes apart into the original: %#v", rest)
			if tt.orig.Role == msg.RoleUser {
				assert.True(t, msg.IsRealUser(merged), "a summary merged into a real user turn leaves it real")
			}
		})
	}
}

func TestIsRealUser(t *testing.T) {
	assert.True(t, msg.IsRealUser(msgtest.User("hi")))
	assert.False(t, msg.IsRealUser(msgtest.User(msg.PrefixSummary("notes"))), "a standalone summary is not a real turn")
	assert.False(t, msg.IsRealUser(msgtest.Asst("hi")))
}

func TestSplitSummary(t *testing.T) {
	_, rest, ok := msg.SplitSummary("plain")
	assert.False(t, ok)
	assert.Equal(t, "plain", rest)

	summary, rest, ok := msg.SplitSummary(msg.PrefixSummary("just notes"))
	assert.True(t, ok)
	assert.Equal(t, "just notes", summary)
	assert.Equal(t, "", rest)
}

func TestCompactionNote(t *testing.T) {
	assert.False(t, msg.HasCompactionNote("You are helpful."))
	assert.True(t, msg.HasCompactionNote("You are helpful."+msg.CompactionNoteSep+msg.CompactionNote))
	assert.True(t, msg.HasCompactionNote("You are helpful."+msg.CompactionNoteSep+msg.CompactionNote+"\nHost edit after it."))
}
