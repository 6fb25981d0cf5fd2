package topics

import (
	"context"
	"log/slog"
	"sync"
	"time"
)

// rateLog logs each kind of repeated problem at most once per interval,
// saying how many were suppressed in between.
type rateLog struct {
	l        *slog.Logger
	interval time.Duration
	clock    func() time.Time // nil: now (tests set it, with the interval, through export_test.go)
	mu       sync.Mutex
	last     map[string]time.Time
	skipped  map[string]int
}

func newRateLog(l *slog.Logger, interval time.Duration) *rateLog {
	return &rateLog{l: l, interval: interval, last: map[string]time.Time{}, skipped: map[string]int{}}
}

func (r *rateLog) log(level slog.Level, kind, msg string, args ...any) {
	r.mu.Lock()
	t := now()
	if r.clock != nil {
		t = r.clock()
	}
	if last, ok := r.last[kind]; ok && t.Sub(last) < r.interval {
		r.skipped[kind]++
		r.mu.Unlock()
		return
	}
	n := r.skipped[kind]
	r.last[kind] = t
	r.skipped[kind] = 0
	r.mu.Unlock()
	if n > 0 {
		args = append(args, "suppressed", n)
	}
	r.l.Log(context.Background(), level, msg, args...)
}
