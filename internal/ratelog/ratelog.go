// Package ratelog logs repeated problems at most once per interval and
// kind, saying how many were suppressed in between: the SDK's rule for
// every log line that can repeat (bad records, drops, retries).
package ratelog

import (
	"context"
	"log/slog"
	"sync"
	"time"
)

// Limiter logs each kind of repeated problem at most once per interval.
// It is safe for concurrent use.
type Limiter struct {
	l        *slog.Logger
	mu       sync.Mutex
	interval time.Duration
	clock    func() time.Time
	last     map[string]time.Time
	skipped  map[string]int
}

// New returns a Limiter logging to l at most once per interval per kind.
func New(l *slog.Logger, interval time.Duration) *Limiter {
	return &Limiter{l: l, interval: interval, clock: time.Now, last: map[string]time.Time{}, skipped: map[string]int{}}
}

// SetClock replaces the interval and the clock (nil: time.Now); tests
// move a fake clock by hand to decide when an interval has passed.
func (r *Limiter) SetClock(interval time.Duration, clock func() time.Time) {
	if clock == nil {
		clock = time.Now
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.interval, r.clock = interval, clock
}

// Log logs msg with args at level unless a record of the same kind was
// logged less than an interval ago; the first record after a quiet spell
// carries "suppressed" = how many were skipped. It reports whether it
// logged.
func (r *Limiter) Log(level slog.Level, kind, msg string, args ...any) bool {
	r.mu.Lock()
	t := r.clock()
	if last, ok := r.last[kind]; ok && t.Sub(last) < r.interval {
		r.skipped[kind]++
		r.mu.Unlock()
		return false
	}
	n := r.skipped[kind]
	r.last[kind] = t
	r.skipped[kind] = 0
	r.mu.Unlock()
	if n > 0 {
		args = append(args, "suppressed", n)
	}
	r.l.Log(context.Background(), level, msg, args...)
	return true
}
