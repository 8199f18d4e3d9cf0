// Package racetest tells tests whether the race detector is on: it adds
// allocations of its own, makes sync.Pool drop what is put in it now and
// then, and slows some code tenfold, so neither allocation counts nor
// reuse can be asserted under it, and slow oracles check a sample.
package racetest
