package benchmarks

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/lsst-sal/salgo/controller"
	"github.com/lsst-sal/salgo/internal/cputime"
	"github.com/lsst-sal/salgo/remote"
	"github.com/lsst-sal/salgo/sal"
	"github.com/lsst-sal/salgo/topics"
)

// fetchCounter is a sal.Metrics that only counts the fetch requests the
// Domain's Kafka clients send, to measure idle polling.
type fetchCounter struct {
	fetches atomic.Int64
}

func (c *fetchCounter) Attach(func() []topics.TopicStats) func() { return func() {} }
func (c *fetchCounter) KafkaHooks(string) []any                  { return []any{c} }
func (c *fetchCounter) WriteLatency(topics.TopicInfo) topics.Observer {
	return nil
}
func (c *fetchCounter) Latency(topics.TopicInfo) topics.Observer { return nil }
func (c *fetchCounter) ObserveCommand(topics.TopicInfo, string, time.Duration) {
}

// OnBrokerWrite implements kgo.HookBrokerWrite.
func (c *fetchCounter) OnBrokerWrite(_ kgo.BrokerMetadata, key int16, _ int, _, _ time.Duration, err error) {
	if err == nil && key == 1 { // Fetch
		c.fetches.Add(1)
	}
}

// goroutines counts the process's goroutines created by the SDK's own
// code, by franz-go's clients and by the in-process broker (kfake).
func goroutines() (sdk, client, broker int) {
	buf := make([]byte, 64<<20)
	buf = buf[:runtime.Stack(buf, true)]
	for _, g := range bytes.Split(buf, []byte("\n\n")) {
		i := bytes.LastIndex(g, []byte("created by "))
		if i < 0 {
			continue
		}
		by := string(g[i+len("created by "):])
		switch {
		case strings.HasPrefix(by, "github.com/lsst-sal/salgo/"):
			sdk++
		case strings.HasPrefix(by, "github.com/twmb/franz-go/pkg/kfake"):
			broker++
		case strings.HasPrefix(by, "github.com/twmb/franz-go/pkg/kgo"):
			client++
		}
	}
	return
}

// BenchmarkRemotes is what Remotes cost in one process: N (1, 10, 63,
// 100, 200) Remotes of different components (all 63 of ts_xml, then again
// with the next SAL index, or index 0 for a component that is not
// indexed), each reading every event and telemetry topic, on one embedded
// bus. Reported per Remote: goroutines the SDK started, those of franz-go
// clients and of the in-process broker, heap, start-up time, and the
// fetch requests sent per second while every Remote is idle (counted over
// 10 s). The timed part is a stream of small records (Test scalars, async
// writes) read by one more Remote in the same process: records/s and the
// process's CPU per record, to show how idle Remotes tax the traffic of
// the others.
//
//	TS_XML_DIR=/path/to/ts_xml go test -run XXX -bench Remotes -benchtime 20000x ./benchmarks/
func BenchmarkRemotes(b *testing.B) {
	defs := definitions(b)
	if !defs.Has("MTM1M3") {
		b.Skip("TS_XML_DIR is not set: needs the real ts_xml")
	}
	names := defs.Names()
	for _, n := range []int{1, 10, 63, 100, 200} {
		b.Run(fmt.Sprintf("remotes=%d", n), func(b *testing.B) {
			ctx := context.Background()
			fc := &fetchCounter{}
			benchSeq++
			bus, err := sal.Connect(ctx,
				sal.WithSubname(fmt.Sprintf("fp%d_%d", time.Now().UnixNano()%1e9, benchSeq)),
				sal.WithDefinitions(defs),
				sal.WithMetrics(fc),
				sal.WithLogger(slog.New(slog.NewTextHandler(io.Discard, nil))))
			if err != nil {
				b.Fatal(err)
			}
			b.Cleanup(func() { bus.Close() })
			if !bus.Embedded() {
				b.Skip("the goroutine census needs the embedded bus")
			}
			// The measured pair first, so that its topics are not among
			// the N Remotes' start-up work.
			c, err := bus.NewController("Test", 1, controller.WithAllowMissing(), controller.WithWriteOnly())
			if err != nil {
				b.Fatal(err)
			}
			if err := c.Start(ctx); err != nil {
				b.Fatal(err)
			}
			b.Cleanup(func() { c.Close() })
			w := c.MustTelemetry("scalars")
			rd, err := bus.NewRemote(ctx, "Test", 1, remote.WithReadOnly(), remote.WithInclude("scalars"), remote.WithQueueLen(1<<16))
			if err != nil {
				b.Fatal(err)
			}
			b.Cleanup(func() { rd.Close() })
			reader := rd.MustTelemetry("scalars")

			runtime.GC()
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			s0, c0, k0 := goroutines()
			t0 := time.Now()
			var rs []*sal.Remote
			for i := range n {
				name := names[i%len(names)]
				index := 0
				if comp, _ := defs.Component(name); comp.Indexed {
					index = i/len(names) + 1
				}
				r, err := bus.NewRemote(ctx, name, index)
				if err != nil {
					b.Fatal(err)
				}
				rs = append(rs, r)
			}
			made := time.Since(t0)
			b.Cleanup(func() {
				for _, r := range rs {
					r.Close()
				}
			})
			runtime.GC()
			runtime.ReadMemStats(&after)
			s1, c1, k1 := goroutines()
			f0 := fc.fetches.Load()
			time.Sleep(10 * time.Second) // an idle interval to count polls in, not synchronisation
			idle := float64(fc.fetches.Load()-f0) / 10

			rec := newFixture(b, "Test", "scalars").Rec
			cpu0 := cputime.Process()
			b.ResetTimer()
			start := time.Now()
			werr := make(chan error, 1)
			go func() {
				for range b.N {
					if err := w.WriteAsync(ctx, rec, nil); err != nil {
						werr <- err
						return
					}
				}
			}()
			rctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
			defer cancel()
			for got := 0; got < b.N; got++ {
				if _, err := reader.Next(rctx); err != nil {
					select {
					case err := <-werr:
						b.Fatal("write: ", err)
					default:
					}
					b.Fatalf("record %d of %d: %v", got, b.N, err)
				}
			}
			el := time.Since(start)
			b.StopTimer()
			per := func(v int) float64 { return float64(v) / float64(n) }
			b.ReportMetric(per(s1-s0), "sdk-goroutines/remote")
			b.ReportMetric(per(c1-c0), "client-goroutines/remote")
			b.ReportMetric(per(k1-k0), "broker-goroutines/remote")
			b.ReportMetric(float64(int64(after.HeapInuse)-int64(before.HeapInuse))/1e6/float64(n), "heap-MB/remote")
			b.ReportMetric(idle/float64(n), "idle-fetches/s/remote")
			b.ReportMetric(made.Seconds()*1e3/float64(n), "start-ms/remote")
			b.ReportMetric(float64(b.N)/el.Seconds(), "msgs/s")
			b.ReportMetric(float64((cputime.Process()-cpu0).Nanoseconds())/float64(b.N), "cpu-ns/msg")
		})
	}
}
