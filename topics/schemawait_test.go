package topics_test

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/lsst-sal/salgo/internal/codec"
	"github.com/lsst-sal/salgo/topics"
	salxml "github.com/lsst-sal/salgo/xml"
)

// stallingRegistry is a front to the registry at target that holds every
// lookup of a schema by id (GET /schemas/ids/…) until release is called
// (or the client gives up on it), then passes it on.
type stallingRegistry struct {
	URL     string
	arrived atomic.Int64 // lookups by id received
	gate    chan struct{}
	once    sync.Once
}

func newStallingRegistry(t *testing.T, target string) *stallingRegistry {
	t.Helper()
	u, err := url.Parse(target)
	if err != nil {
		t.Fatal(err)
	}
	s := &stallingRegistry{gate: make(chan struct{})}
	proxy := httputil.NewSingleHostReverseProxy(u)
	proxy.ErrorHandler = func(w http.ResponseWriter, _ *http.Request, _ error) { w.WriteHeader(http.StatusBadGateway) }
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.URL.Path, "/schemas/ids/") {
			s.arrived.Add(1)
			select {
			case <-s.gate:
			case <-r.Context().Done():
				return
			}
		}
		proxy.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	t.Cleanup(s.release)
	s.URL = srv.URL
	return s
}

func (s *stallingRegistry) release() { s.once.Do(func() { close(s.gate) }) }

// stallDomain is a Domain whose registry requests go through a
// stallingRegistry, with its log captured; timeout is its RegistryTimeout
// (0: the default).
func stallDomain(t *testing.T, timeout time.Duration) (*topics.Domain, *stallingRegistry, logCapture, string) {
	t.Helper()
	cfg := testConfig(t, salxml.Embedded())
	direct := cfg.RegistryURL
	stall := newStallingRegistry(t, direct)
	logs := newLogCapture()
	cfg.RegistryURL, cfg.RegistryTimeout, cfg.Logger = stall.URL, timeout, slog.New(logs)
	d, err := topics.NewDomain(ctxT(t), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	return d, stall, logs, direct
}

// newerScalars is another version of Example's scalars, one field added,
// registered (straight, not through the stall) under the topic's subject.
func newerScalars(t *testing.T, d *topics.Domain, registry string, tp *salxml.Topic) (*salxml.Topic, int32) {
	t.Helper()
	newer := copyTopic(tp, func(fs []*salxml.Field) []*salxml.Field {
		return append(fs, &salxml.Field{Name: "added", Type: salxml.Double, Count: 1, Units: "unitless", Description: "Added in a later version."})
	})
	subject := tp.Subject(d.Config().Subname)
	own := registerSchema(t, registry, subject, tp.AvroSchema())
	setCompatibility(t, registry, subject, "NONE")
	id := registerSchema(t, registry, subject, newer.AvroSchema())
	if id == own {
		t.Fatalf("the newer schema got the id of the topic's own (%d)", id)
	}
	return newer, id
}

// TestSchemaLookup_StallDelays: a record whose writer schema the reader
// has not seen, from a registry that takes longer than the lookup's bound
// to answer, is not lost: it and every record of its topic after it wait
// (in order) while the lookup is tried again, and the retries are counted
// and logged. Meanwhile another topic read by the same poll goroutine
// keeps flowing. Once the registry answers, all are delivered in order,
// none undecodable. With the default bounds the stall lasts two attempts
// (10 s); with RegistryTimeout 1 s, five.
func TestSchemaLookup_StallDelays(t *testing.T) {
	for _, tc := range []struct {
		name    string
		timeout time.Duration
		retries uint64
	}{
		{"default", 0, 2},
		// Not shorter: the Domain's own schema registrations at Start
		// share the bound, and timed out on a loaded machine (CI).
		{"RegistryTimeout_1s", time.Second, 5},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d, stall, logs, direct := stallDomain(t, tc.timeout)
			comp := example(t, d)
			ctx := ctxT(t)
			scalars, arrays := comp.Telemetry("scalars"), comp.Telemetry("arrays")
			in, rs := startInstance(t, d, comp, 1, topics.ReaderOptions{QueueLen: 1000}, scalars, arrays)
			topics.SetLogClock(in, time.Hour, nil)
			rA, rB := rs[0], rs[1]
			newer, idNewer := newerScalars(t, d, direct, scalars)
			own := registerSchema(t, direct, scalars.Subject(d.Config().Subname), scalars.AvroSchema())

			// 60 records, alternately of the newer schema (looked up) and
			// of the reader's own; the first is of the newer.
			const n = 60
			p := peer{identity: "Python@elsewhere", origin: 4242, index: 1}
			base := topics.TAI()
			vals := make([][]byte, n)
			for i := range vals {
				f := map[string]any{"int0": int32(i)}
				if i%2 == 0 {
					f["added"] = float64(i)
					vals[i] = frame(t, newer, idNewer, p.record(t, newer, f, int32(i+1), base+float64(i)*1e-3))
				} else {
					vals[i] = frame(t, scalars, own, p.record(t, scalars, f, int32(i+1), base+float64(i)*1e-3))
				}
			}
			produce(t, rawProducer(t, d), kname(d, scalars), vals...)
			waitFor(t, ctx, "the reader looks up the newer schema", func() bool { return stall.arrived.Load() > 0 })

			// The other topic flows while the lookup stalls.
			_, wB := startWriter(t, d, comp, 1, arrays)
			for i := range 20 {
				if _, err := wB.Write(ctx, map[string]any{"int0": []int32{int32(i), 0, 0, 0, 0}}); err != nil {
					t.Fatal(err)
				}
				if got := next(t, ctx, rB); got["int0"].([]int32)[0] != int32(i) {
					t.Fatalf("arrays: read %v, want %d", got["int0"], i)
				}
			}
			waitFor(t, ctx, "all the stalled topic's records held", func() bool { return rA.Stats().Held == n })
			if s := rA.Stats(); s.Delivered != 0 || s.Undecodable != 0 || s.Received != n {
				t.Fatalf("while the lookup stalls, scalars stats %+v: want all %d received and held", s, n)
			}
			waitFor(t, ctx, fmt.Sprintf("%d retries of the lookup", tc.retries), func() bool { return rA.Stats().SchemaRetries >= tc.retries })
			stall.release()

			for i := range n {
				got := next(t, ctx, rA)
				if got["int0"] != int32(i) || got["private_seqNum"] != int32(i+1) {
					t.Fatalf("record %d: int0 %v seqNum %v: out of order", i, got["int0"], got["private_seqNum"])
				}
			}
			s := rA.Stats()
			if s.Undecodable != 0 || s.Delivered != n || s.Held != 0 || s.SchemaRetries < tc.retries || s.Lost != 0 {
				t.Errorf("scalars stats %+v: want %d delivered, none undecodable or held, >= %d retries", s, n, tc.retries)
			}
			lines := logs.lines(func(l logLine) bool { return strings.Contains(l.msg, "no answer from the schema registry") })
			if len(lines) != 1 {
				t.Fatalf("%d log lines about the registry, want 1 (rate limited): %v", len(lines), lines)
			}
			want := `WARN "topics: no answer from the schema registry for a writer schema; the topic's records wait, retrying"`
			if l := lines[0]; !strings.HasPrefix(l.String(), want) || l.attrs["topic"] != scalars.String() ||
				l.attrs["schemaID"] != fmt.Sprint(idNewer) || !strings.Contains(l.attrs["err"], stall.URL) {
				t.Errorf("logged %v\nwant %s naming the topic, schema id %d and the registry", l, want, idNewer)
			}
			// A writer schema seen once is not looked up again.
			before := stall.arrived.Load()
			produce(t, rawProducer(t, d), kname(d, scalars), frame(t, newer, idNewer, p.record(t, newer, map[string]any{"int0": int32(n)}, n+1, topics.TAI())))
			if got := next(t, ctx, rA); got["int0"] != int32(n) || stall.arrived.Load() != before {
				t.Errorf("a later record of the newer schema: int0 %v, %d more lookups", got["int0"], stall.arrived.Load()-before)
			}
		})
	}
}

// TestSchemaLookup_HostileStall: a registry that stalls every lookup by
// id for 10 s while the bus sends a topic a record with a garbage schema
// id followed by far more records than a reader holds while it waits
// (1 MiB), and a few more garbage ids. The reader's goroutines stay
// bounded (one lookup at a time per topic), it holds at most its bound and
// pauses the partition past it, and afterwards every good record is
// delivered, in order; only the garbage is undecodable, with the
// registry's answer as the reason.
func TestSchemaLookup_HostileStall(t *testing.T) {
	const stallFor = 10 * time.Second
	// Attempts of 1 s: shorter ones made the Domain's own schema
	// registrations at Start time out on a loaded machine (CI).
	d, stall, logs, direct := stallDomain(t, time.Second)
	comp := example(t, d)
	ctx := ctxT(t)
	scalars, arrays := comp.Telemetry("scalars"), comp.Telemetry("arrays")
	const good = 12000
	in, rs := startInstance(t, d, comp, 1, topics.ReaderOptions{QueueLen: good + 10}, scalars, arrays)
	topics.SetLogClock(in, time.Hour, nil)
	rA, rB := rs[0], rs[1]
	newer, idNewer := newerScalars(t, d, direct, scalars)
	own := registerSchema(t, direct, scalars.Subject(d.Config().Subname), scalars.AvroSchema())
	garbage := func(id int32) []byte { return append(codec.AppendHeader(nil, id), 1, 2, 3) }

	p := peer{identity: "Python@elsewhere", origin: 4242, index: 1}
	base := topics.TAI()
	vals := [][]byte{garbage(7_000_000)}
	size, smallest := 0, 1<<20
	for i := range good {
		f := map[string]any{"int0": int32(i), "string0": "twenty bytes of text"}
		var v []byte
		if i%100 == 0 {
			f["added"] = 1.5
			v = frame(t, newer, idNewer, p.record(t, newer, f, int32(i+1), base+float64(i)*1e-5))
		} else {
			v = frame(t, scalars, own, p.record(t, scalars, f, int32(i+1), base+float64(i)*1e-5))
		}
		vals = append(vals, v)
		size, smallest = max(size, len(v)), min(smallest, len(v))
	}
	if good*(size+64) < 3<<20/2 {
		t.Fatalf("%d records of up to %d bytes do not overflow the 1 MiB a reader holds", good, size)
	}
	for i := range 5 {
		vals = append(vals, garbage(7_000_001+int32(i)))
	}
	_, wEnd := startWriter(t, d, comp, 1, scalars)

	runtime.GC()
	baseline := runtime.NumGoroutine()
	produce(t, rawProducer(t, d), kname(d, scalars), vals...)
	waitFor(t, ctx, "the reader looks up the garbage id", func() bool { return stall.arrived.Load() > 0 })
	end := time.Now().Add(stallFor)

	// While it stalls: the other topic flows, the goroutines stay few and
	// the records held within the bound.
	_, wB := startWriter(t, d, comp, 1, arrays)
	maxG, maxHeld := 0, 0
	for i := 0; time.Now().Before(end); i++ {
		if i < 50 {
			if _, err := wB.Write(ctx, map[string]any{"int0": []int32{int32(i), 0, 0, 0, 0}}); err != nil {
				t.Fatal(err)
			}
			if got := next(t, ctx, rB); got["int0"].([]int32)[0] != int32(i) {
				t.Fatalf("arrays: read %v, want %d", got["int0"], i)
			}
		}
		maxG = max(maxG, runtime.NumGoroutine())
		s := rA.Stats()
		maxHeld = max(maxHeld, s.Held)
		if held := uint64(s.Held); s.Delivered != 0 || s.Undecodable != 0 || held > s.Received+1 || s.Received > held+1 {
			t.Fatalf("while the registry stalls, scalars stats %+v: want every record received held", s)
		}
		time.Sleep(10 * time.Millisecond) // sampling, not synchronisation
	}
	// Attempts of 1 s, at least 100 ms apart, doubling up to 5 s: the
	// reader keeps retrying while the registry stalls. Waited for, not
	// timed: a loaded machine may fit fewer than five in 10 s.
	waitFor(t, ctx, "3 schema retries counted", func() bool { return rA.Stats().SchemaRetries >= 3 })
	s := rA.Stats()
	stall.release()
	t.Logf("stalled %s: %d lookups by id, %d retries counted, at most %d goroutines over %d before, at most %d records held (%d bytes each at most)",
		stallFor, stall.arrived.Load(), s.SchemaRetries, maxG-baseline, baseline, maxHeld, size)
	if maxG-baseline > 40 {
		t.Errorf("%d goroutines while the registry stalled, %d before: want at most 40 more", maxG, baseline)
	}
	if maxHeld == 0 || maxHeld*(smallest+64) > 1<<20+size+64 || maxHeld >= good {
		t.Errorf("at most %d records of %d to %d bytes held: want within 1 MiB, fewer than all %d", maxHeld, smallest, size, good)
	}

	for i := range good {
		got := next(t, ctx, rA)
		if got["int0"] != int32(i) || got["private_seqNum"] != int32(i+1) {
			t.Fatalf("record %d: int0 %v seqNum %v: lost or out of order (stats %+v)", i, got["int0"], got["private_seqNum"], rA.Stats())
		}
	}
	if _, err := wEnd.Write(ctx, map[string]any{"int0": int32(-1)}); err != nil {
		t.Fatal(err)
	}
	if got := next(t, ctx, rA); got["int0"] != int32(-1) {
		t.Fatalf("after the garbage, the SDK's record: int0 %v", got["int0"])
	}
	s = rA.Stats()
	if s.Undecodable != 6 || s.Delivered != good+1 || s.Held != 0 || s.Received != good+7 {
		t.Errorf("scalars stats %+v: want %d received, %d delivered, the 6 garbage undecodable, none held", s, good+7, good+1)
	}
	bad := logs.lines(func(l logLine) bool { return l.msg == "topics: undecodable record skipped" })
	if len(bad) != 1 || !strings.Contains(bad[0].attrs["err"], "schema id 7000000: HTTP 404") {
		t.Errorf("undecodable records logged as %v: want one line (rate limited) with the registry's 404 for schema id 7000000", bad)
	}
	held := logs.lines(func(l logLine) bool { return strings.Contains(l.msg, "partition paused") })
	want := `WARN "topics: records waiting for a writer schema fill their bound; partition paused"`
	if len(held) != 1 || !strings.HasPrefix(held[0].String(), want) || held[0].attrs["schemaID"] != "7000000" {
		t.Errorf("the full backlog logged as %v, want one line %s for schema id 7000000", held, want)
	}
}

// TestSchemaLookup_CloseWhileStalled: an instance closed while a lookup
// stalls and records wait returns, leaving no goroutine behind (checked
// by the package's leak test).
func TestSchemaLookup_CloseWhileStalled(t *testing.T) {
	d, stall, _, direct := stallDomain(t, 0)
	comp := example(t, d)
	ctx := ctxT(t)
	scalars := comp.Telemetry("scalars")
	in, rs := startInstance(t, d, comp, 1, topics.ReaderOptions{}, scalars)
	newer, idNewer := newerScalars(t, d, direct, scalars)
	p := peer{identity: "Python@elsewhere", origin: 4242, index: 1}
	produce(t, rawProducer(t, d), kname(d, scalars), frame(t, newer, idNewer, p.record(t, newer, nil, 1, topics.TAI())))
	waitFor(t, ctx, "the reader looks up the newer schema", func() bool { return rs[0].Stats().Held == 1 && stall.arrived.Load() > 0 })
	in.Close()
	if _, err := rs[0].Next(context.Background()); err != topics.ErrClosed {
		t.Errorf("Next after Close: %v", err)
	}
}

// TestSchemaLookup_DeliveredNotHeld: once a record that waited for a
// writer schema lookup is delivered, it is no longer counted as held: a
// reader that looks at its stats as each record arrives (here on the poll
// goroutine, as the record is delivered) sees Held count only the records
// still waiting behind it.
func TestSchemaLookup_DeliveredNotHeld(t *testing.T) {
	d, stall, _, direct := stallDomain(t, 0)
	comp := example(t, d)
	ctx := ctxT(t)
	scalars := comp.Telemetry("scalars")
	in, err := d.NewInstance(comp, 1, "")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(in.Close)
	r, err := in.Reader(scalars, topics.ReaderOptions{QueueLen: 100})
	if err != nil {
		t.Fatal(err)
	}
	const n = 10
	var mu sync.Mutex
	var held []int
	if err := topics.SetInline(r, func(map[string]any) {
		mu.Lock()
		held = append(held, r.Stats().Held)
		mu.Unlock()
	}); err != nil {
		t.Fatal(err)
	}
	if err := in.Start(ctx); err != nil {
		t.Fatal(err)
	}
	newer, idNewer := newerScalars(t, d, direct, scalars)
	p := peer{identity: "Python@elsewhere", origin: 4242, index: 1}
	base := topics.TAI()
	vals := make([][]byte, n)
	for i := range vals {
		vals[i] = frame(t, newer, idNewer, p.record(t, newer, map[string]any{"int0": int32(i), "added": 1.0}, int32(i+1), base+float64(i)*1e-3))
	}
	produce(t, rawProducer(t, d), kname(d, scalars), vals...)
	waitFor(t, ctx, "all records held", func() bool { return r.Stats().Held == n })
	stall.release()
	waitFor(t, ctx, "all records delivered", func() bool { return r.Stats().Delivered == n })
	mu.Lock()
	defer mu.Unlock()
	for i, h := range held {
		if want := n - 1 - i; h != want {
			t.Errorf("record %d delivered while %d held, want %d (those behind it)", i, h, want)
		}
	}
}
