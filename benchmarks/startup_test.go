package benchmarks

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"runtime"
	"testing"
	"time"

	"github.com/lsst-sal/salgo/remote"
	"github.com/lsst-sal/salgo/sal"
	"github.com/lsst-sal/salgo/topics"
)

// BenchmarkLateJoiner: a Remote of index 0 starts on an event topic
// holding N records written by 10 indices, and is ready once it has the
// newest record of each index. History depth is the default 500 (what
// ts_salobj reads for indexed components) and, for the growth curve, N.
func BenchmarkLateJoiner(b *testing.B) {
	for _, n := range []int{500, 5000, 50000} {
		depths := []int{500}
		if n != 500 {
			depths = append(depths, n)
		}
		for _, depth := range depths {
			b.Run(fmt.Sprintf("records=%d/depth=%d", n, depth), func(b *testing.B) {
				bus := freshBus(b, "late", sal.WithMaxHistoryRead(depth))
				ctx := context.Background()
				comp, _ := bus.Component("Example")
				ev := comp.Event("scalars")
				var ws []*topics.Writer
				for idx := 1; idx <= 10; idx++ {
					in, err := bus.NewInstance(comp, idx, "")
					if err != nil {
						b.Fatal(err)
					}
					w, _ := in.Writer(ev)
					if err := in.Start(ctx); err != nil {
						b.Fatal(err)
					}
					ws = append(ws, w)
					defer in.Close()
				}
				// Interleaved, so the newest records hold every index.
				for i := range n / 10 {
					for _, w := range ws {
						if err := w.WriteAsync(ctx, map[string]any{"int0": int32(i)}, nil); err != nil {
							b.Fatal(err)
						}
					}
				}
				if err := bus.Flush(ctx); err != nil {
					b.Fatal(err)
				}
				b.ReportAllocs()
				b.ResetTimer()
				for b.Loop() {
					r, err := bus.NewRemote(ctx, "Example", 0, remote.WithReadOnly(), remote.WithInclude("scalars"))
					if err != nil {
						b.Fatal(err)
					}
					if s := r.MustEvent("scalars").Stats(); s.Historical != 10 {
						b.Fatalf("historical %d, want 10", s.Historical)
					}
					r.Close()
				}
			})
		}
	}
}

// BenchmarkNewRemote: start-up cost of Remotes (every event and telemetry
// topic read, commands writable) for 1, 10 and all 63 components of
// ts_xml, on a fresh bus: topic creation, schema registration, history.
// The first iteration is a process's first start (every topic's schema
// rendered and its validator compiled, then kept by the Definitions);
// later ones reuse them. heap-MB is the heap in use after a collection,
// live-MB the bytes of live objects.
func BenchmarkNewRemote(b *testing.B) {
	defs := definitions(b)
	if !defs.Has("MTM1M3") {
		b.Skip("TS_XML_DIR is not set: needs the real ts_xml")
	}
	names := defs.Names()
	for _, n := range []int{1, 10, len(names)} {
		b.Run(fmt.Sprintf("components=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				b.StopTimer()
				benchSeq++
				ctx := context.Background()
				bus, err := sal.Connect(ctx,
					sal.WithSubname(fmt.Sprintf("start%d_%d", time.Now().UnixNano()%1e9, benchSeq)),
					sal.WithDefinitions(defs),
					sal.WithLogger(slog.New(slog.NewTextHandler(io.Discard, nil))))
				if err != nil {
					b.Fatal(err)
				}
				runtime.GC()
				var before, after runtime.MemStats
				runtime.ReadMemStats(&before)
				b.StartTimer()
				var rs []*sal.Remote
				for _, name := range names[:n] {
					r, err := bus.NewRemote(ctx, name, 0)
					if err != nil {
						b.Fatal(err)
					}
					rs = append(rs, r)
				}
				b.StopTimer()
				runtime.GC() // what the Remotes hold, not the garbage of making them
				runtime.ReadMemStats(&after)
				b.ReportMetric(float64(int64(after.HeapInuse)-int64(before.HeapInuse))/1e6, "heap-MB")
				b.ReportMetric(float64(int64(after.HeapAlloc)-int64(before.HeapAlloc))/1e6, "live-MB")
				for _, r := range rs {
					r.Close()
				}
				bus.Close()
				b.StartTimer()
			}
		})
	}
}
