package controller

import (
	"context"
	"time"
)

// SetLogClock makes c's rate-limited log use interval and clock (nil:
// time.Now), so that tests decide when an interval has passed.
func SetLogClock(c *Controller, interval time.Duration, clock func() time.Time) {
	c.rl.SetClock(interval, clock)
}

// SetCSCLogClock is SetLogClock for a CSC's controller.
func SetCSCLogClock(s *CSC, interval time.Duration, clock func() time.Time) {
	s.c.rl.SetClock(interval, clock)
}

// CloseCSCTopics closes a CSC's topics under it, as a bus gone away would,
// leaving the CSC itself running.
func CloseCSCTopics(s *CSC) { s.c.in.Close() }

// SetLogWrite replaces how c writes a logMessage record (before Start).
func SetLogWrite(c *Controller, f func(ctx context.Context, rec map[string]any) error) {
	c.logs.write = f
}

// SetLogWait sets how long c's logMessage writer waits for each record to
// be written (logWriteWait, 10 s) (before Start).
func SetLogWait(c *Controller, d time.Duration) {
	c.logs.writeWait = d
}

// The plumbing of internal/plumb, for the tests.
var (
	WriteSeq      = writeSeq
	WriteSeqAsync = writeSeqAsync
)

// CancelRun is the first half of Script.Close: Run's context is cancelled,
// the commands' contexts are not yet.
func CancelRun(s *Script) { s.cancelRun() }
