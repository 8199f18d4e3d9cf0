//go:build unix

package bench

import (
	"syscall"
	"time"
)

// cpuClock measures the CPU time the process spends, user and system.
type cpuClock struct{ start time.Duration }

func startCPU() cpuClock { return cpuClock{cpuTime()} }

// seconds returns the CPU seconds spent since start.
func (c cpuClock) seconds() float64 { return (cpuTime() - c.start).Seconds() }

func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
