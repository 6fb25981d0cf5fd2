package topics_test

import (
	"sync"
	"testing"
	"time"

	"github.com/lsst-sal/salgo/internal/codec"
	"github.com/lsst-sal/salgo/topics"
)

// fakeClock is a clock the test moves by hand.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *fakeClock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// TestReader_BadRecordLogRateLimited: a flood of bad records of one kind
// and a few of another are all counted, each kind is logged once per
// interval, and the first line after the interval says how many were
// held back.
func TestReader_BadRecordLogRateLimited(t *testing.T) {
	logs := newLogCapture()
	d := newDomainLogging(t, logs)
	comp := example(t, d)
	ctx := ctxT(t)
	tp := comp.Telemetry("scalars")
	in, rs := startInstance(t, d, comp, 1, topics.ReaderOptions{}, tp)
	r := rs[0]
	clock := &fakeClock{t: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	topics.SetLogClock(in, 10*time.Second, clock.now)

	id := schemaID(t, d, tp)
	p := peer{identity: "flood@host", origin: 7, index: 1}
	base := topics.TAI()
	valid := func(seq int32) []byte {
		return frame(t, tp, id, p.record(t, tp, map[string]any{"int0": seq}, seq, base+float64(seq)*1e-3))
	}
	noMagic := []byte{0xA5, 1, 2, 3, 4, 5, 6}
	full := valid(1)
	truncated := append(codec.AppendHeader(nil, id), full[codec.HeaderLen:codec.HeaderLen+3]...)

	const flood = 1000
	batch := make([][]byte, 0, flood+4)
	for range flood {
		batch = append(batch, noMagic)
	}
	batch = append(batch, truncated, truncated, truncated, valid(1))
	cl := rawProducer(t, d)
	produce(t, cl, kname(d, tp), batch...)
	if got := next(t, ctx, r); got["int0"] != int32(1) {
		t.Fatalf("valid record after the flood: int0=%v", got["int0"])
	}
	if s := r.Stats(); s.Undecodable != flood+3 || s.Received != flood+4 || s.Delivered != 1 {
		t.Errorf("stats %+v, want %d undecodable of %d received, 1 delivered", s, flood+3, flood+4)
	}
	kind := func(k string) func(logLine) bool {
		return func(l logLine) bool { return l.attrs["kind"] == k && l.attrs["topic"] == tp.String() }
	}
	framing, avro := logs.lines(kind("framing")), logs.lines(kind("avro"))
	if len(framing) != 1 || len(avro) != 1 {
		t.Fatalf("within one interval: %d framing and %d avro lines, want 1 and 1:\n%v\n%v", len(framing), len(avro), framing, avro)
	}
	if _, ok := framing[0].attrs["suppressed"]; ok {
		t.Errorf("first line says suppressed: %v", framing[0])
	}

	// After the interval, the next bad record is logged with the count of
	// those held back; the other kind, quiet since, is not logged again.
	clock.advance(11 * time.Second)
	produce(t, cl, kname(d, tp), noMagic, valid(2))
	if got := next(t, ctx, r); got["int0"] != int32(2) {
		t.Fatalf("valid record after the interval: int0=%v", got["int0"])
	}
	framing, avro = logs.lines(kind("framing")), logs.lines(kind("avro"))
	if len(framing) != 2 || len(avro) != 1 {
		t.Fatalf("after the interval: %d framing and %d avro lines, want 2 and 1:\n%v", len(framing), len(avro), framing)
	}
	if got := framing[1].attrs["suppressed"]; got != "999" {
		t.Errorf("line after the interval: suppressed=%q, want 999 (%v)", got, framing[1])
	}
	if s := r.Stats(); s.Undecodable != flood+4 {
		t.Errorf("undecodable %d, want %d", s.Undecodable, flood+4)
	}
}
