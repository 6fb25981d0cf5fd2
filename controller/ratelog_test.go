package controller_test

import (
	"context"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/lsst-sal/salgo/controller"
	"github.com/lsst-sal/salgo/internal/testbus"
)

// logWatch is a slog.Handler that keeps the records whose message holds a
// text and signals each one.
type logWatch struct {
	text string
	mu   sync.Mutex
	recs []slog.Record
	ch   chan struct{}
}

func newLogWatch(text string) *logWatch { return &logWatch{text: text, ch: make(chan struct{}, 100)} }

func (h *logWatch) Enabled(context.Context, slog.Level) bool { return true }
func (h *logWatch) WithAttrs([]slog.Attr) slog.Handler       { return h }
func (h *logWatch) WithGroup(string) slog.Handler            { return h }
func (h *logWatch) Handle(_ context.Context, r slog.Record) error {
	if !strings.Contains(r.Message, h.text) {
		return nil
	}
	h.mu.Lock()
	h.recs = append(h.recs, r.Clone())
	h.mu.Unlock()
	select {
	case h.ch <- struct{}{}:
	default:
	}
	return nil
}

// wait waits for the nth record.
func (h *logWatch) wait(t *testing.T, n int) slog.Record {
	t.Helper()
	ctx := testbus.Ctx(t)
	for {
		h.mu.Lock()
		if len(h.recs) >= n {
			r := h.recs[n-1]
			h.mu.Unlock()
			return r
		}
		h.mu.Unlock()
		select {
		case <-h.ch:
		case <-ctx.Done():
			t.Fatalf("waiting for log record %d %q: %v", n, h.text, ctx.Err())
		}
	}
}

// TestCSC_HeartbeatFailuresRateLimited: a heartbeat that cannot be
// written (here: its topics closed under it) fails every second, but is
// logged once per interval, the next line saying how many were held back.
func TestCSC_HeartbeatFailuresRateLimited(t *testing.T) {
	watch := newLogWatch("heartbeat not written")
	cfg, _ := testbus.Config(t, nil)
	cfg.Logger = slog.New(watch)
	d := testbus.Connect(t, cfg)
	csc := startCSC(t, d, 1)
	// An interval of 1.5 heartbeats: the second line must hold back at
	// least one failure.
	controller.SetCSCLogClock(csc, 1500*time.Millisecond, nil)
	controller.CloseCSCTopics(csc)
	first := watch.wait(t, 1)
	second := watch.wait(t, 2)
	suppressed := func(r slog.Record) int64 {
		var n int64
		r.Attrs(func(a slog.Attr) bool {
			if a.Key == "suppressed" {
				n = a.Value.Int64()
			}
			return true
		})
		return n
	}
	if n := suppressed(second); n < 1 {
		t.Errorf("the second heartbeat failure line, %s after the first, holds back %d failures: want each failure logged at most once per interval",
			second.Time.Sub(first.Time).Round(time.Millisecond), n)
	}
}
