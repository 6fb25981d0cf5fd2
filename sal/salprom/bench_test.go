package salprom_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/lsst-sal/salgo/controller"
	"github.com/lsst-sal/salgo/internal/cputime"
	"github.com/lsst-sal/salgo/remote"
	"github.com/lsst-sal/salgo/sal"
	"github.com/lsst-sal/salgo/sal/salprom"
	salxml "github.com/lsst-sal/salgo/xml"
)

// BenchmarkHotPath measures the SDK's hot path (validate, encode, produce
// asynchronously, fetch, decode, check and deliver) on the embedded broker
// with metrics off and on (Prometheus histograms, counters read at
// scrape time, kprom client hooks). Compare the two with benchstat over
// interleaved runs:
//
//	go test ./sal/salprom -run X -bench HotPath -count 10 | tee out.txt
//	benchstat -col /metrics out.txt
func BenchmarkHotPath(b *testing.B) {
	for _, on := range []bool{false, true} {
		name := "metrics=off"
		if on {
			name = "metrics=on"
		}
		b.Run(name, func(b *testing.B) { hotPath(b, on) })
	}
}

func hotPath(b *testing.B, metrics bool) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	opts := []sal.Option{sal.WithEmbedded(), sal.WithDefinitions(salxml.Embedded()), sal.WithLogger(quiet)}
	if metrics {
		exp, err := salprom.New(prometheus.NewRegistry())
		if err != nil {
			b.Fatal(err)
		}
		opts = append(opts, exp.Option())
	}
	bus, err := sal.Connect(ctx, opts...)
	if err != nil {
		b.Fatal(err)
	}
	defer bus.Close()
	c, err := bus.NewController("Example", 1, controller.WithAllowMissing())
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	if err := c.Start(ctx); err != nil {
		b.Fatal(err)
	}
	// A queue long enough that the callback never falls a queue behind.
	r, err := bus.NewRemote(ctx, "Example", 1, remote.WithReadOnly(), remote.WithInclude("arrays"), remote.WithQueueLen(1<<17))
	if err != nil {
		b.Fatal(err)
	}
	defer r.Close()
	var got atomic.Int64
	done := make(chan struct{}, 1)
	var want atomic.Int64
	r.MustTelemetry("arrays").SetCallback(func(map[string]any) {
		if got.Add(1) == want.Load() {
			done <- struct{}{}
		}
	})
	w := c.MustTelemetry("arrays")
	rec := w.New()
	write := func(n int) {
		want.Store(got.Load() + int64(n))
		for range n {
			if err := w.WriteAsync(ctx, rec, nil); err != nil {
				b.Fatal(err)
			}
		}
		select {
		case <-done:
		case <-ctx.Done():
			b.Fatalf("read %d of %d: %v; reader %+v, writer %+v", got.Load(), want.Load(), ctx.Err(), r.MustTelemetry("arrays").Stats(), w.Stats())
		}
	}
	write(1000) // warm up
	b.ReportAllocs()
	b.ResetTimer()
	if b.N > 1<<17 {
		b.Fatalf("b.N %d is over the queue length; use -benchtime Nx with N ≤ %d", b.N, 1<<17)
	}
	start, cpu0 := time.Now(), cputime.Process()
	write(b.N)
	b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "msgs/s")
	// The process's CPU time per record: unlike wall time it hardly
	// depends on what else the machine runs.
	b.ReportMetric(float64((cputime.Process()-cpu0).Nanoseconds())/float64(b.N), "cpu-ns/msg")
}

// BenchmarkObserve is the cost of one histogram observation, what metrics
// add per record on each of the write and read paths.
func BenchmarkObserve(b *testing.B) {
	h := prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "x", Buckets: prometheus.ExponentialBuckets(100e-6, 2, 17)}, []string{"a"}).WithLabelValues("a")
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		h.Observe(float64(i%1000) * 1e-5)
	}
}
