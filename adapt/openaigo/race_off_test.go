//go:build !race

package openaigo

// raceEnabled reports whether the race detector is on. The properties over
// generated histories run no goroutines of their own, so under the
// detector (which makes them several times slower) they run over fewer.
const raceEnabled = false
