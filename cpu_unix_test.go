//go:build unix

package compact

import (
	"syscall"
	"time"
)

// cpuTime is the CPU time the process has spent, user and system: a
// benchmark on a shared machine reports it beside the wall time.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
