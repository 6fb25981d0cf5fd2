// Package cputime reads the CPU time the process has used, for benchmarks
// that report CPU per record beside wall-clock rates.
package cputime

import (
	"syscall"
	"time"
)

// Process is the process's user plus system CPU time so far, or 0 where
// the system does not say.
func Process() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
