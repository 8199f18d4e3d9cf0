//go:build !unix

package bench

// cpuClock reports no CPU time where the system does not offer it.
type cpuClock struct{}

func startCPU() cpuClock { return cpuClock{} }

func (cpuClock) seconds() float64 { return 0 }
