//go:build race

package racetest

// Enabled reports whether the race detector is on (see the package doc).
const Enabled = true
