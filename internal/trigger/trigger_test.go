package trigger

import (
	"testing"

	"github.com/contextkit/compact/tokens"
	openai "github.com/sashabaranov/go-openai"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var limits = Limits{Threshold: 1000, Tail: 200, Strikes: 2}

// A report of a counted request teaches what counting misses; every later
// count carries it, and a compaction does not make it stale.
func TestAReportOfACountedRequestRaisesEveryLaterCount(t *testing.T) {
	var g Gauge
	g.Counts(600)
	g.Report(900, g.Counted(), limits)
	assert.Equal(t, 300, g.Unseen())
	assert.Equal(t, 1000, g.Estimate(700), "the report plus what was appended")
	g.Compacted(300, limits)
	assert.Equal(t, 600, g.Last(), "the request the provider will see")
	assert.Equal(t, 650, g.Estimate(350))

	g.Counts(700)
	g.Report(650, g.Counted(), limits)
	assert.Zero(t, g.Unseen(), "a report under the count never lowers it")
	assert.Equal(t, 700, g.Estimate(700))
}

// A report of a request nobody counted is the least the next request
// takes, until a compaction makes it stale.
func TestAReportOfAnUncountedRequestIsAFloorUntilACompaction(t *testing.T) {
	var g Gauge
	g.Report(1200, g.Counted(), limits)
	assert.Equal(t, 1200, g.Estimate(500))
	assert.Equal(t, 1300, g.Estimate(1300))
	g.Compacted(400, limits)
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
	g.Compacted(1100, limits)
	assert.Equal(t, 1, g.Strikes())
	g.Compacted(900, limits)
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

	g.Compacted(1100, limits)
	g.Compacted(1100, limits)
	g.See(999, limits)
	paused, _ = g.Paused()
	assert.False(t, paused, "usage dropped")

	g.Compacted(500, limits)
	g.See(400, limits)
	assert.Zero(t, g.Strikes(), "a compaction that worked clears the strikes")
}

// The pause point counts what the reports count: with what counting
// misses, a report the size of the compacted request keeps the pause.
func TestThePausePointCountsWhatReportsCount(t *testing.T) {
	var g Gauge
	g.Counts(900)
	g.Report(1400, g.Counted(), limits) // 500 the count cannot see
	g.Compacted(600, limits)
	g.Compacted(600, limits)
	paused, _ := g.Paused()
	require.True(t, paused)
	g.Report(1150, g.Counted(), limits)
	paused, _ = g.Paused()
	assert.True(t, paused, "the request the pause began at, grown by 50")
}

// Restart forgets the pause and what reports taught, keeping the last
// size for Status.
func TestRestart(t *testing.T) {
	var g Gauge
	g.Counts(100)
	g.Report(1500, g.Counted(), limits)
	g.Compacted(900, limits)
	g.Compacted(900, limits)
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

// Whatever the sequence of counts, reports and compactions: a request is
// never judged smaller than its count, never smaller than a fresh report
// of a request nobody counted, and a pause comes only with the strikes
// that make it.
func FuzzGauge(f *testing.F) {
	f.Add([]byte{0, 10, 1, 20, 2, 5, 2, 5, 3, 30})
	f.Fuzz(func(t *testing.T, ops []byte) {
		var g Gauge
		for i := 0; i+1 < len(ops); i += 2 {
			n := int(ops[i+1]) * 10
			switch ops[i] % 4 {
			case 0:
				assert.GreaterOrEqual(t, g.Counts(n), n)
			case 1:
				counted := g.Counted()
				g.Report(n, counted, limits)
				if counted == 0 {
					assert.GreaterOrEqual(t, g.Estimate(0), n, "a report nobody counted is a floor")
				}
			case 2:
				g.Compacted(n, limits)
				assert.Equal(t, n+g.Unseen(), g.Last())
			case 3:
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
