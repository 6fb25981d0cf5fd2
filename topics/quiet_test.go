package topics_test

import (
	"context"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/lsst-sal/salgo/internal/embedded"
	"github.com/lsst-sal/salgo/topics"
	salxml "github.com/lsst-sal/salgo/xml"
)

// TestReader_QueueWarningsOnlyWhenConsumed: a reader nobody takes records
// from (only Get) fills and overflows its queue silently, the drops
// counted; the same flood on a reader the application consumed with
// Next, TryNext or a callback logs the fill warning and the overflow
// (for Next and TryNext, at the next read).
func TestReader_QueueWarningsOnlyWhenConsumed(t *testing.T) {
	for _, c := range []struct {
		name    string
		consume func(r *topics.Reader, release <-chan struct{})
		warns   bool
	}{
		{"Get only", func(r *topics.Reader, release <-chan struct{}) { r.Get() }, false},
		{"TryNext", func(r *topics.Reader, release <-chan struct{}) { r.TryNext() }, true},
		{"Next", func(r *topics.Reader, release <-chan struct{}) {
			ctx, cancel := context.WithCancel(context.Background())
			cancel() // Next returns at once: nothing is queued yet
			r.Next(ctx)
		}, true},
		{"a callback", func(r *topics.Reader, release <-chan struct{}) {
			// The callback holds the first record until the test releases it.
			r.SetCallback(func(map[string]any) { <-release })
		}, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			logs := newLogCapture()
			d := newDomainLogging(t, logs)
			comp := example(t, d)
			ctx := ctxT(t)
			tp := comp.Telemetry("scalars")
			in, rs := startInstance(t, d, comp, 1, topics.ReaderOptions{QueueLen: 10}, tp)
			r := rs[0]
			release := make(chan struct{})
			c.consume(r, release)
			_, w := startWriter(t, d, comp, 1, tp)
			for i := range 25 {
				if _, err := w.Write(ctx, map[string]any{"int0": int32(i)}); err != nil {
					t.Fatal(err)
				}
			}
			waitFor(t, ctx, "25 records delivered", func() bool { return r.Stats().Delivered == 25 })
			if s := r.Stats(); s.Overflow == 0 {
				t.Errorf("no overflow counted: %+v", s)
			}
			if c.name == "Next" || c.name == "TryNext" {
				r.TryNext() // the read that reports what the queue went through
			}
			close(release)
			in.Close() // no more records: the log is complete
			var fill, full int
			for _, l := range logs.lines(readerWarning) {
				switch {
				case strings.Contains(l.msg, "queue filling up"):
					fill++
				case strings.Contains(l.msg, "queue is full"), strings.Contains(l.msg, "queue was full"):
					full++
				default:
					t.Errorf("unexpected: %s %s %v", l.level, l.msg, l.attrs)
				}
			}
			if c.warns && (fill == 0 || full == 0) {
				t.Errorf("consumed with %s: %d fill and %d overflow warnings, want both", c.name, fill, full)
			}
			if !c.warns && fill+full > 0 {
				t.Errorf("read with Get only: %d fill and %d overflow warnings, want none", fill, full)
			}
		})
	}
}

// readerWarning picks the lines at WARN or above that are not franz-go's
// own ("kafka: ..."): on a real broker a topic just created may lack a
// leader for a moment, which the client logs and retries.
func readerWarning(l logLine) bool {
	return l.level >= slog.LevelWarn && !strings.HasPrefix(l.msg, "kafka: ")
}

// TestReader_NextWarnsAtRead: a reader read with Next that is not read
// for a while (a paused script's telemetry reader) fills and overflows
// its queue without a word, the drops counted; the next read logs the
// fill warning and one error saying how many records were dropped before
// it, as ts_salobj warns inside next(). It used to log the overflow as an
// error every 10 s while nobody read.
func TestReader_NextWarnsAtRead(t *testing.T) {
	logs := newLogCapture()
	d := newDomainLogging(t, logs)
	comp := example(t, d)
	ctx := ctxT(t)
	tp := comp.Telemetry("scalars")
	in, rs := startInstance(t, d, comp, 1, topics.ReaderOptions{QueueLen: 10}, tp)
	r := rs[0]
	r.TryNext() // read once: the reader is consumed with Next
	_, w := startWriter(t, d, comp, 1, tp)
	for i := range 25 {
		if _, err := w.Write(ctx, map[string]any{"int0": int32(i)}); err != nil {
			t.Fatal(err)
		}
	}
	waitFor(t, ctx, "25 records delivered", func() bool { return r.Stats().Delivered == 25 })
	warned := func() []logLine { return logs.lines(readerWarning) }
	if got := warned(); len(got) > 0 {
		t.Errorf("%d warnings while nobody read, want none: %v", len(got), got)
	}
	rec := r.TryNext()
	if rec == nil || rec["int0"] != int32(15) {
		t.Fatalf("read %v, want the oldest record kept (int0 15)", rec)
	}
	in.Close()
	var fill, full int
	for _, l := range warned() {
		switch {
		case strings.Contains(l.msg, "queue filling up") && l.level == slog.LevelWarn:
			fill++
		case l.msg == "topics: reader queue was full; the oldest records were dropped before this read" && l.level == slog.LevelError:
			full++
			if got := l.attrs["dropped"]; got != "15" {
				t.Errorf("overflow error says dropped=%v, want 15", got)
			}
		default:
			t.Errorf("unexpected: %s %s %v", l.level, l.msg, l.attrs)
		}
	}
	if fill != 1 || full != 1 {
		t.Errorf("at the read: %d fill warnings and %d overflow errors, want 1 and 1", fill, full)
	}
}

// debugCapture counts, at every level, the records whose message holds
// one of two texts.
type debugCapture struct {
	mu       sync.Mutex
	attempts int // "opening connection to broker" (debug)
	warnings int // "unable to open connection to broker" (warn)
}

func (h *debugCapture) Enabled(context.Context, slog.Level) bool { return true }
func (h *debugCapture) WithAttrs([]slog.Attr) slog.Handler       { return h }
func (h *debugCapture) WithGroup(string) slog.Handler            { return h }
func (h *debugCapture) Handle(_ context.Context, r slog.Record) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	switch {
	case strings.Contains(r.Message, "unable to open connection to broker"):
		h.warnings++
	case strings.Contains(r.Message, "opening connection to broker"):
		h.attempts++
	}
	return nil
}

func (h *debugCapture) counts() (attempts, warnings int) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.attempts, h.warnings
}

// TestDomain_BrokerAwayLogsOnce: when the broker goes away, the Domain's
// producer and the instance's consumer try to reconnect again and again,
// but the broker's absence is warned of once per interval: the Domain's
// Kafka clients share one limit.
func TestDomain_BrokerAwayLogsOnce(t *testing.T) {
	cluster, err := embedded.Start(embedded.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer cluster.Close()
	h := &debugCapture{}
	d, err := topics.NewDomain(ctxT(t), topics.Config{
		Brokers: cluster.Brokers(), RegistryURL: cluster.RegistryURL(), Subname: "away", Embedded: true,
		Definitions: salxml.Embedded(), Logger: slog.New(h),
	})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	topics.SetDomainLogClock(d, time.Hour, nil) // one interval for the whole test
	comp := example(t, d)
	startInstance(t, d, comp, 1, topics.ReaderOptions{}, comp.Telemetry("scalars"))
	cluster.Close()
	ctx := ctxT(t)
	waitFor(t, ctx, "5 reconnect attempts", func() bool { a, _ := h.counts(); return a >= 5 })
	if a, w := h.counts(); w > 1 {
		t.Errorf("%d reconnect attempts logged %d warnings, want at most 1", a, w)
	}
}
