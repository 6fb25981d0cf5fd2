package sal_test

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/lsst-sal/salgo/remote"
	"github.com/lsst-sal/salgo/sal"
	salxml "github.com/lsst-sal/salgo/xml"
)

// logCapture is a slog.Handler that keeps every record.
type logCapture struct {
	mu   *sync.Mutex
	recs *[]slog.Record
	with []slog.Attr
}

func newLogCapture() *logCapture { return &logCapture{mu: new(sync.Mutex), recs: new([]slog.Record)} }

func (h *logCapture) Enabled(context.Context, slog.Level) bool { return true }

func (h *logCapture) Handle(_ context.Context, r slog.Record) error {
	r = r.Clone()
	r.AddAttrs(h.with...)
	h.mu.Lock()
	*h.recs = append(*h.recs, r)
	h.mu.Unlock()
	return nil
}

func (h *logCapture) WithAttrs(as []slog.Attr) slog.Handler {
	c := *h
	c.with = append(append([]slog.Attr(nil), h.with...), as...)
	return &c
}

func (h *logCapture) WithGroup(string) slog.Handler { return h }

// records returns the records at level min or above, as text lines.
func (h *logCapture) records(min slog.Level) []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	var out []string
	for _, r := range *h.recs {
		if r.Level < min {
			continue
		}
		var b strings.Builder
		fmt.Fprintf(&b, "%s %s", r.Level, r.Message)
		r.Attrs(func(a slog.Attr) bool { fmt.Fprintf(&b, " %s=%v", a.Key, a.Value); return true })
		out = append(out, b.String())
	}
	return out
}

// capturedBus is a Bus for one test whose log goes to a logCapture.
func capturedBus(t *testing.T) (*sal.Bus, *logCapture) {
	t.Helper()
	capture := newLogCapture()
	subSeq++
	b, err := sal.Connect(ctxT(t),
		sal.WithSubname(fmt.Sprintf("t%d_%d_%s", os.Getpid(), subSeq, t.Name())),
		sal.WithDefinitions(salxml.Embedded()),
		sal.WithLogger(slog.New(capture)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	return b, capture
}

// TestIdleRemote_Quiet: a Remote used as the README shows (Get only) next
// to a live CSC, for 25 s: its readers fill (the heartbeat's 25 records),
// a short queue overflows, and both are counted in the stats, but nothing
// is logged at WARN or above, since the application reads none of those
// queues. (Slow, not timed: it asserts what was logged.)
func TestIdleRemote_Quiet(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: this test watches an idle Remote for 25 s")
	}
	b, capture := capturedBus(t)
	startCSC(t, b, 1)
	r := newRemote(t, b, 1)
	short := newRemote(t, b, 1, remote.WithQueueLen(10), remote.WithReadOnly())
	hb := r.MustEvent("heartbeat")
	deadline := time.Now().Add(25 * time.Second)
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for time.Now().Before(deadline) {
		_ = r.MustEvent("summaryState").Get() // the README's use
		<-tick.C
	}
	if s := hb.Stats(); s.Queued < 20 {
		t.Errorf("heartbeat reader: %d queued in 25 s, want the CSC's ~25 heartbeats (%+v)", s.Queued, s)
	}
	if s := short.MustEvent("heartbeat").Stats(); s.Overflow == 0 || s.Queued != 10 {
		t.Errorf("a 10-record heartbeat queue nobody reads: overflow %d, queued %d: want the drops counted", s.Overflow, s.Queued)
	}
	if got := capture.records(slog.LevelWarn); len(got) > 0 {
		t.Errorf("an idle Remote logged %d records at WARN or above:\n%s", len(got), strings.Join(got, "\n"))
	}
}
