//go:build race

package compact

// raceEnabled reports a build with the race detector, which adds
// allocations of its own.
const raceEnabled = true
