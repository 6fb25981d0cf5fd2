package benchmarks

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/lsst-sal/salgo/controller"
	"github.com/lsst-sal/salgo/sal"
	salxml "github.com/lsst-sal/salgo/xml"
)

var benchSeq int

// benchBus connects to the bus of the LSST_* variables, or an embedded one,
// with a fresh topic subname.
func benchBus(b *testing.B) *sal.Bus { return freshBus(b, "bench") }

// freshBus is benchBus with a subname that starts with prefix, and opts.
func freshBus(b *testing.B, prefix string, opts ...sal.Option) *sal.Bus {
	b.Helper()
	benchSeq++
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	bus, err := sal.Connect(ctx, append([]sal.Option{
		sal.WithSubname(fmt.Sprintf("%s%d_%d", prefix, time.Now().UnixNano()%1e9, benchSeq)),
		sal.WithDefinitions(salxml.Embedded()),
		sal.WithLogger(slog.New(slog.NewTextHandler(io.Discard, nil)))}, opts...)...)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { bus.Close() })
	return bus
}

func reportLatency(b *testing.B, lat []time.Duration) {
	slices.Sort(lat)
	pct := func(p float64) float64 {
		return float64(lat[min(len(lat)-1, int(p*float64(len(lat))))].Microseconds())
	}
	b.ReportMetric(pct(0.50), "p50-µs")
	b.ReportMetric(pct(0.99), "p99-µs")
}

// commandPair starts a Controller of Example:1 whose setScalars handler
// returns at once (concurrently) and a Remote of it with opts, on a fresh
// bus; both close when b ends.
func commandPair(b *testing.B, opts ...sal.RemoteOption) (*sal.Bus, *sal.Remote) {
	b.Helper()
	bus := benchBus(b)
	ctx := context.Background()
	c, err := bus.NewController("Example", 1, controller.WithAllowMissing(), controller.WithConcurrent("setScalars"))
	if err != nil {
		b.Fatal(err)
	}
	c.HandleFunc("setScalars", func(context.Context, *sal.Command) error { return nil })
	if err := c.Start(ctx); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { c.Close() })
	r, err := bus.NewRemote(ctx, "Example", 1, opts...)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { r.Close() })
	return bus, r
}

// BenchmarkCommandRoundTrip: a Remote sends setScalars to a Controller and
// waits for CMD_COMPLETE; sequentially, and with 16 commands in flight.
func BenchmarkCommandRoundTrip(b *testing.B) {
	for _, inflight := range []int{1, 16} {
		b.Run(fmt.Sprintf("inflight=%d", inflight), func(b *testing.B) {
			ctx := context.Background()
			_, r := commandPair(b)
			for range 20 { // warm up topics and connections
				if _, err := r.Command(ctx, "setScalars", nil); err != nil {
					b.Fatal(err)
				}
			}
			lat := make([]time.Duration, 0, b.N)
			var mu sync.Mutex
			work := make(chan struct{})
			var wg sync.WaitGroup
			b.ReportAllocs()
			b.ResetTimer()
			start := time.Now()
			for range inflight {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for range work {
						t0 := time.Now()
						if _, err := r.Command(ctx, "setScalars", nil); err != nil {
							b.Error(err)
							return
						}
						d := time.Since(t0)
						mu.Lock()
						lat = append(lat, d)
						mu.Unlock()
					}
				}()
			}
			for range b.N {
				work <- struct{}{}
			}
			close(work)
			wg.Wait()
			el := time.Since(start)
			b.StopTimer()
			b.ReportMetric(float64(b.N)/el.Seconds(), "cmds/s")
			reportLatency(b, lat)
		})
	}
}
