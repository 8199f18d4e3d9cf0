//go:build race

package compact

// raceEnabled reports whether the race detector is on: it makes sync.Pool
// drop what is put in it now and then, so reuse cannot be asserted.
const raceEnabled = true
