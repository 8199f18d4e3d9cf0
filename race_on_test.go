//go:build race

package compact

// raceEnabled reports whether the race detector is on: it adds
// allocations of its own, and makes sync.Pool drop what is put in it now
// and then, so neither allocation counts nor reuse can be asserted.
const raceEnabled = true
