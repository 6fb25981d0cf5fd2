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
// to a live CSC, until the CSC has written 20 heartbeats (about 20 s):
// its readers fill, a short queue overflows, and both are counted in the
// stats, but nothing is logged at WARN or above, since the application
// reads none of those queues. (Slow, not timed: it waits for the
// heartbeats, however long they take, and asserts what was logged.)
func TestIdleRemote_Quiet(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: this test watches an idle Remote for about 20 s")
	}
	b, capture := capturedBus(t)
	startCSC(t, b, 1)
	r := newRemote(t, b, 1)
	short := newRemote(t, b, 1, remote.WithQueueLen(10), remote.WithReadOnly())
	hb := r.MustEvent("heartbeat")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for hb.Stats().Queued < 20 || short.MustEvent("heartbeat").Stats().Overflow == 0 {
		_ = r.MustEvent("summaryState").Get() // the README's use
		select {
		case <-tick.C:
		case <-ctx.Done():
			t.Fatalf("heartbeat readers after 2 min: %+v and %+v; want 20 queued, and the 10-record queue overflowing", hb.Stats(), short.MustEvent("heartbeat").Stats())
		}
	}
	if s := short.MustEvent("heartbeat").Stats(); s.Queued != 10 {
		t.Errorf("a 10-record heartbeat queue nobody reads: overflow %d, queued %d: want the drops counted", s.Overflow, s.Queued)
	}
	// franz-go's own lines ("kafka: ...") are left out: on a real broker
	// a topic just created may lack a leader for a moment.
	var got []string
	for _, l := range capture.records(slog.LevelWarn) {
		if !strings.Contains(l, " kafka: ") {
			got = append(got, l)
		}
	}
	if len(got) > 0 {
		t.Errorf("an idle Remote logged %d records at WARN or above:\n%s", len(got), strings.Join(got, "\n"))
	}
}
