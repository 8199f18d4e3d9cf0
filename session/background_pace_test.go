package session

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

// The adaptive soft mark leaves room for what the requests sent while a
// compaction runs add, with a margin, and stays between half the threshold
// and the threshold.
func TestSoftMarkAdapts(t *testing.T) {
	const threshold = 90_000
	tests := []struct {
		name     string
		requests int           // requests seen
		growth   int           // tokens each adds
		interval time.Duration // between requests
		took     time.Duration // each compaction seen; 0: none yet
		want     int
	}{
		{name: "before four requests, four fifths of the threshold", requests: 3, growth: 600, interval: 2 * time.Second,
			want: 72_000},
		{name: "no compaction seen: planned at 30 s", requests: 10, growth: 600, interval: 2 * time.Second,
			want: threshold - int(1.5*600*(15+1))},
		{name: "a 20 s summarizer, a request every 2 s", requests: 10, growth: 600, interval: 2 * time.Second, took: 20 * time.Second,
			want: threshold - int(1.5*600*(10+1))},
		{name: "a person typing: a request a minute", requests: 10, growth: 600, interval: time.Minute, took: 20 * time.Second,
			want: threshold - int(1.5*600*(1.0/3+1))},
		{name: "a slow summarizer: no lower than half", requests: 10, growth: 600, interval: 2 * time.Second, took: 200 * time.Second,
			want: threshold / 2},
		{name: "requests with no time between: half", requests: 10, growth: 600, took: 20 * time.Second,
			want: threshold / 2},
		{name: "nothing grows: the threshold", requests: 10, interval: 2 * time.Second, took: 20 * time.Second,
			want: threshold},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var p pace
			at := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
			for i := 0; i <= tt.requests; i++ {
				p.observe(at, 1000+i*tt.growth, 0)
				at = at.Add(tt.interval)
			}
			if tt.took > 0 {
				p.compacted(tt.took)
			}
			assert.InDelta(t, tt.want, p.softMark(threshold), 1)
		})
	}
}

// Growth across a compaction is not growth: a request after one is
// measured from there on.
func TestPaceSkipsCompactions(t *testing.T) {
	var p pace
	at := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	p.observe(at, 50_000, 0)
	p.observe(at.Add(time.Second), 10_000, 1) // compacted in between
	p.observe(at.Add(2*time.Second), 10_500, 1)
	f := p.figures()
	assert.Equal(t, 500, f.Growth)
	assert.Equal(t, time.Second, f.Interval)
	assert.Equal(t, 3, f.Requests)
}

// The mark plans for the longest of the recent compactions, and forgets
// one that was slow once after a few faster ones.
func TestPaceRemembersRecentCompactions(t *testing.T) {
	var p pace
	p.compacted(90 * time.Second)
	for range recentCompactions - 1 {
		p.compacted(10 * time.Second)
	}
	assert.Equal(t, 90*time.Second, p.figures().CompactionTime)
	p.compacted(10 * time.Second)
	assert.Equal(t, 10*time.Second, p.figures().CompactionTime)
}

// Issue 32.8: Messages is the one getter that counts as a request (the
// host sends what it returns); reading the session otherwise does not
// move the pace.
func TestOnlyMessagesCountsAsARequest(t *testing.T) {
	s := newTestSession(t, "pace", &recorder{})
	mustAppend(t, s, chatHistory("pace", 6)...)
	_, _, _, _ = s.Len(), s.Tokens(), s.Status(), s.Tools()
	_ = s.ShouldCompress()
	_ = s.Engine()
	assert.Zero(t, s.Status().Pace.Requests, "reading the session is not a request")
	_ = s.Messages()
	_ = s.Messages()
	assert.Equal(t, 2, s.Status().Pace.Requests, "each call of Messages is one")
}
