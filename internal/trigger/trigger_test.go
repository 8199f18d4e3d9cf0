package trigger

import (
	"testing"
	"time"

	"github.com/contextkit/compact/tokens"
	openai "github.com/sashabaranov/go-openai"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var limits = Limits{Threshold: 1000, Tail: 200, Strikes: 2}

// t0 is a time for compactions and checks.
var t0 = time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)

// A report of a counted request teaches what counting misses; every later
// count carries it, and a compaction does not make it stale.
func TestAReportOfACountedRequestRaisesEveryLaterCount(t *testing.T) {
	var g Gauge
	g.Counts(600)
	g.Report(900, time.Time{}, nil, limits)
	assert.Equal(t, 300, g.Unseen())
	assert.Equal(t, 1000, g.Estimate(700), "the report plus what was appended")
	g.Compacted(300, t0, limits)
	assert.Equal(t, 600, g.Last(), "the request the provider will see")
	assert.Equal(t, 650, g.Estimate(350))

	g.Counts(700)
	g.Report(650, time.Time{}, nil, limits)
	assert.Zero(t, g.Unseen(), "a report under the count never lowers it")
	assert.Equal(t, 700, g.Estimate(700))
}

// A report of a request nobody counted is the least the next request
// takes, until a compaction makes it stale.
func TestAReportOfAnUncountedRequestIsAFloorUntilACompaction(t *testing.T) {
	var g Gauge
	g.Report(1200, time.Time{}, nil, limits)
	assert.Equal(t, 1200, g.Estimate(500))
	assert.Equal(t, 1300, g.Estimate(1300))
	g.Compacted(400, t0, limits)
	assert.Equal(t, 500, g.Estimate(500))
}

// A Measure alone (a Session's): Stale forgets a report as a least size
// and keeps what counting misses and the count a report will be compared
// with (a request handed out before a compaction may be reported after it).
func TestMeasureStaleKeepsWhatCountingMisses(t *testing.T) {
	var m Measure
	assert.Equal(t, 500, m.Estimate(500), "the zero Measure: a request is its count")
	m.Learn(800, 0)
	assert.Equal(t, 800, m.Estimate(500))
	m.Stale()
	assert.Equal(t, 500, m.Estimate(500))

	assert.Equal(t, 600, m.Counts(600))
	m.Learn(720, m.Counted())
	m.Counts(700)
	m.Stale()
	assert.Equal(t, 700, m.Counted(), "the count of the request handed out")
	assert.Equal(t, 120, m.Unseen())
	assert.Equal(t, 420, m.Estimate(300))
}

// Two compactions in a row that leave the request over the threshold
// pause; the pause holds while the request grows less than a tail's
// budget, and lifts when usage drops or it grows that much.
func TestStrikesPauseAndWhatLiftsThePause(t *testing.T) {
	var g Gauge
	g.Compacted(1100, t0, limits)
	assert.Equal(t, 1, g.Strikes())
	g.Compacted(900, t0, limits)
	g.See(1050, limits)
	paused, why := g.Paused()
	require.True(t, paused)
	assert.Contains(t, why, "2 times in a row")
	assert.Equal(t, 1050, g.Last())

	g.See(1050+199, limits)
	paused, _ = g.Paused()
	assert.True(t, paused, "grown less than a tail's budget")
	g.See(1050+200, limits)
	paused, _ = g.Paused()
	assert.False(t, paused, "grown a tail's budget")
	assert.Zero(t, g.Strikes())

	g.Compacted(1100, t0, limits)
	g.Compacted(1100, t0, limits)
	g.See(999, limits)
	paused, _ = g.Paused()
	assert.False(t, paused, "usage dropped")

	g.Compacted(500, t0, limits)
	g.See(400, limits)
	assert.Zero(t, g.Strikes(), "a compaction that worked clears the strikes")
}

// The pause point counts what the reports count: with what counting
// misses, a report the size of the compacted request keeps the pause.
func TestThePausePointCountsWhatReportsCount(t *testing.T) {
	var g Gauge
	g.Counts(900)
	g.Report(1400, time.Time{}, nil, limits) // 500 the count cannot see
	g.Compacted(600, t0, limits)
	g.Compacted(600, t0, limits)
	paused, _ := g.Paused()
	require.True(t, paused)
	g.Report(1150, time.Time{}, nil, limits)
	paused, _ = g.Paused()
	assert.True(t, paused, "the request the pause began at, grown by 50")
}

// Restart forgets the pause and what reports taught, keeping the last
// size for Status.
func TestRestart(t *testing.T) {
	var g Gauge
	g.Counts(100)
	g.Report(1500, time.Time{}, nil, limits)
	g.Compacted(900, t0, limits)
	g.Compacted(900, t0, limits)
	g.Restart()
	paused, _ := g.Paused()
	assert.False(t, paused)
	assert.Zero(t, g.Unseen())
	assert.Zero(t, g.Strikes())
	assert.Equal(t, 2300, g.Last())
}

// Calibration moves by the square root of a report's ratio, within its
// bounds, returns the count at the new factor, and never moves an exact
// counter.
func TestCalibrate(t *testing.T) {
	base, err := tokens.ForEncoding(tokens.EncodingO200KBase)
	require.NoError(t, err)
	m := openai.ChatCompletionMessage{Role: "user", Content: "the quick brown fox jumps over the lazy dog"}
	c := NewCounter(base, tokens.EncodingO200KBase, 1.2, true)
	n := c.CountMessage(m)
	assert.Equal(t, 1.2, c.Factor())
	got := c.Calibrate(4*n, n)
	assert.InDelta(t, 2.4, c.Factor(), 1e-9, "the square root of a ratio of 4")
	assert.Equal(t, 2*n, got, "the count at the new factor")
	c.Calibrate(1000*n, n)
	assert.Equal(t, MaxCalibration, c.Factor())
	c.Calibrate(1, 1000)
	assert.Equal(t, MinCalibration, c.Factor())

	exact := NewCounter(base, tokens.EncodingO200KBase, 1, false)
	assert.Equal(t, 50, exact.Calibrate(100, 50))
	assert.Equal(t, 1.0, exact.Factor())
	assert.Equal(t, base.CountText("hello"), exact.CountText("hello"))
	assert.Equal(t, tokens.EncodingO200KBase, exact.Encoding())
}

// A report of a request sent before the last compaction committed judges
// nothing: no strike though it is over the threshold, no least size, not
// the last size seen; the first report of a request sent after it judges
// the compaction, as ever.
func TestAReportSentBeforeTheCompactionJudgesNothing(t *testing.T) {
	var g Gauge
	g.Check(1200, t0, limits)
	g.Compacted(600, t0.Add(time.Minute), limits)
	g.Report(1300, t0, nil, limits)
	assert.Zero(t, g.Strikes(), "the request it describes is gone")
	assert.Equal(t, 600, g.Last())
	assert.Equal(t, 650, g.Estimate(550), "no least size; what counting misses: 100")

	g.Report(1100, time.Time{}, nil, limits)
	assert.Equal(t, 1, g.Strikes(), "the next report judges the compaction")
	assert.Equal(t, 500, g.Unseen(), "compared with the compacted request's count")

	g.Check(1050, t0.Add(2*time.Minute), limits)
	g.Compacted(900, t0.Add(3*time.Minute), limits)
	g.Report(1000, t0.Add(3*time.Minute), nil, limits)
	paused, _ := g.Paused()
	require.True(t, paused, "sent as the compaction committed: after it")

	g.Report(10, t0.Add(2*time.Minute), nil, limits)
	paused, _ = g.Paused()
	assert.True(t, paused, "a report sent before the compaction lifts no pause")
	g.Report(10, time.Time{}, nil, limits)
	paused, _ = g.Paused()
	assert.False(t, paused)
}

// A report sent before the compaction says what counting misses, and
// tunes the calibration, only against a check of that request: the last
// count before the compaction, made no later than the request was sent.
func TestAReportSentBeforeTheCompactionLearnsOnlyFromItsOwnCount(t *testing.T) {
	base, err := tokens.ForEncoding(tokens.EncodingO200KBase)
	require.NoError(t, err)
	sent, done := t0, t0.Add(time.Minute)
	for _, tc := range []struct {
		name  string
		count func(g *Gauge)
		learn bool
	}{
		{"a check before it was sent", func(g *Gauge) { g.Check(800, sent.Add(-time.Second), limits) }, true},
		{"a check as it was sent", func(g *Gauge) { g.Check(800, sent, limits) }, true},
		{"a check after it was sent", func(g *Gauge) { g.Check(800, sent.Add(time.Second), limits) }, false},
		{"a count with no time (a compaction's own)", func(g *Gauge) { g.Counts(800) }, false},
		{"a check, then a count", func(g *Gauge) { g.Check(800, sent, limits); g.Counts(800) }, false},
		{"nothing counted", func(*Gauge) {}, false},
		{"a check a report consumed", func(g *Gauge) {
			g.Check(800, sent, limits)
			g.Report(800, sent, nil, limits)
		}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var g Gauge
			cal := NewCounter(base, tokens.EncodingO200KBase, 1, true)
			tc.count(&g)
			g.Compacted(400, done, limits)
			g.Report(1000, sent, cal, limits)
			if tc.learn {
				assert.Equal(t, 1000-int(800*cal.Factor()+0.5), g.Unseen())
				assert.Greater(t, cal.Factor(), 1.0, "calibrated")
			} else {
				assert.Zero(t, g.Unseen())
				assert.Equal(t, 1.0, cal.Factor(), "not calibrated")
			}
			g.Report(500, time.Time{}, nil, limits)
			assert.Equal(t, 100, g.Unseen(), "the next report is compared with the compacted request's count")
		})
	}
}

// Whatever the sequence of counts, checks, reports and compactions: a
// request is never judged smaller than its count, never smaller than a
// fresh report of a request nobody counted, a pause comes only with the
// strikes that make it, and a report of a request sent before the last
// compaction changes neither the strikes, the pause nor the last size.
func FuzzGauge(f *testing.F) {
	f.Add([]byte{0, 10, 1, 20, 2, 5, 2, 5, 3, 30})
	f.Add([]byte{1, 120, 4, 60, 3, 130, 2, 110, 1, 105, 4, 90, 3, 100, 5, 1})
	f.Fuzz(func(t *testing.T, ops []byte) {
		var g Gauge
		now, compacted := t0, time.Time{}
		pending := false // a count is waiting for the report of its request
		for i := 0; i+1 < len(ops); i += 2 {
			now = now.Add(time.Second)
			n := int(ops[i+1]) * 10
			switch ops[i] % 6 {
			case 0:
				assert.GreaterOrEqual(t, g.Counts(n), n)
				pending = n > 0
			case 1:
				assert.GreaterOrEqual(t, g.Check(n, now, limits), n)
				pending = n > 0
			case 2:
				g.Report(n, time.Time{}, nil, limits)
				if !pending {
					assert.GreaterOrEqual(t, g.Estimate(0), n, "a report nobody counted is a floor")
				}
				pending = false
			case 3:
				sent := now.Add(-time.Duration(ops[i+1]%8) * time.Second)
				strikes, last, floor := g.Strikes(), g.Last(), g.Estimate(0)
				paused, _ := g.Paused()
				g.Report(n, sent, nil, limits)
				if sent.Before(compacted) {
					p, _ := g.Paused()
					assert.Equal(t, paused, p)
					assert.Equal(t, strikes, g.Strikes())
					assert.Equal(t, last, g.Last())
					assert.LessOrEqual(t, g.Estimate(0), max(floor, g.Unseen()), "no least size")
				} else {
					pending = false
				}
			case 4:
				g.Compacted(n, now, limits)
				compacted, pending = now, n > 0
				assert.Equal(t, n+g.Unseen(), g.Last())
			case 5:
				g.See(n, limits)
			}
			assert.GreaterOrEqual(t, g.Estimate(n), n)
			assert.GreaterOrEqual(t, g.Unseen(), 0)
			if paused, _ := g.Paused(); paused {
				assert.GreaterOrEqual(t, g.Strikes(), limits.Strikes)
			}
		}
	})
}

// A pause after one strike says "1 time in a row".
func TestAPauseAfterOneStrikeSaysOneTime(t *testing.T) {
	var g Gauge
	g.Compacted(1100, t0, Limits{Threshold: 1000, Tail: 200, Strikes: 1})
	paused, why := g.Paused()
	require.True(t, paused)
	assert.Contains(t, why, "over the threshold 1 time in a row;")
	g.Restart()
	g.Compacted(1100, t0, limits)
	g.Compacted(1100, t0, limits)
	_, why = g.Paused()
	assert.Contains(t, why, "over the threshold 2 times in a row;")
}
