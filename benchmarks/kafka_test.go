package benchmarks

import (
	"context"
	"encoding/binary"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/lsst-sal/salgo/internal/benchkit"
	"github.com/lsst-sal/salgo/sal"
	"github.com/lsst-sal/salgo/topics"
)

// Kafka benchmarks: the SDK's writers and readers beside raw franz-go on
// the same broker, in the same benchmark function, so that the ratio
// (x-raw) compares like with like on a noisy machine. The harness (how the
// ratio is kept honest, the payloads) is in internal/benchkit.

const kafkaDistinct = benchkit.Distinct

// kafkaEnv is one benchmark's bus, topic, records and raw client.
type kafkaEnv = benchkit.Env

func newKafkaEnv(b *testing.B, comp, topic string) *kafkaEnv { return benchkit.NewEnv(b, comp, topic) }

func kafkaRawOpts(bus *sal.Bus) []kgo.Opt { return benchkit.RawOpts(bus) }

func interleave(b *testing.B, n, chunk int, raw, sdk func(from, to int)) (rawT, sdkT time.Duration) {
	return benchkit.Interleave(b, n, chunk, raw, sdk)
}

// forKafkaTopics runs fn for the three record sizes of the codec
// benchmarks: Example scalars (small), MTM1M3 forceActuatorData (fad,
// 3.3 KB) and the largest topic of ts_xml (largest, 116 KB).
func forKafkaTopics(b *testing.B, fn func(b *testing.B, e *kafkaEnv)) {
	for _, s := range benchkit.Sizes {
		b.Run(s.Name, func(b *testing.B) { fn(b, newKafkaEnv(b, s.Comp, s.Topic)) })
	}
}

// BenchmarkWriteSync: one record at a time, each acknowledged by the
// broker before the next: Writer.Write vs kgo ProduceSync.
func BenchmarkWriteSync(b *testing.B) {
	forKafkaTopics(b, func(b *testing.B, e *kafkaEnv) {
		ctx := context.Background()
		w := e.Writer(b)
		kr := &kgo.Record{Topic: e.RawName, Key: e.Key}
		rawT, sdkT := interleave(b, b.N, 100,
			func(from, to int) {
				for i := from; i < to; i++ {
					kr.Value = e.Framed[i%kafkaDistinct]
					if err := e.Raw.ProduceSync(ctx, kr).FirstErr(); err != nil {
						b.Fatal(err)
					}
				}
			},
			func(from, to int) {
				for i := from; i < to; i++ {
					if _, err := w.Write(ctx, e.Recs[i%kafkaDistinct]); err != nil {
						b.Fatal(err)
					}
				}
			})
		b.StopTimer()
		e.ReportWrite(b, b.N, sdkT, rawT)
	})
}

// BenchmarkWriteAsync: records sent without waiting, in chunks (2000
// records, or about 16 MB for large ones) each ended by a flush (every
// record acknowledged): Writer.WriteAsync vs kgo Produce.
func BenchmarkWriteAsync(b *testing.B) {
	forKafkaTopics(b, func(b *testing.B, e *kafkaEnv) {
		benchkit.WriteAsync(b, e, func(w *topics.Writer) benchkit.Sender {
			return func(ctx context.Context, i int, done func(topics.WriteResult, error)) error {
				return w.WriteAsync(ctx, e.Recs[i%kafkaDistinct], done)
			}
		})
	})
}

// BenchmarkRead: read, decode and validate b.N records that are already in
// the topic, for the three record sizes: an SDK Reader vs a raw kgo
// consumer of the same records (which only touches the bytes)
// (benchkit.Read).
//
// A telemetry Reader starts at the end of its topic, so it must start
// before the records are written. To have them all waiting in the topic
// when it begins, as they are for the raw consumer, the first record is
// framed with the id of another version of the schema (the same fields,
// another description), and the reader's Domain reaches the registry
// through a proxy that holds the lookup of that id until every record is
// written and flushed and the raw consumer has read them: the reader holds
// the topic's records while it waits (up to its bound, then it pauses the
// partition and fetches the rest once the lookup is answered), asking
// again each time an attempt times out, however long that takes. The
// SDK's timer starts when the proxy lets go. The other b.N records carry the
// SDK's own schema id, the usual case. Both sides start with a connected
// client and time until the last record is through: for the SDK, decoded,
// checked and queued (Stats().Delivered; the default queue of 100 drops
// the oldest, as a reader nobody drains does). The raw consumer reads the
// records once before and once after the SDK reader; its time is the mean.
func BenchmarkRead(b *testing.B) {
	forKafkaTopics(b, func(b *testing.B, e *kafkaEnv) { benchkit.Read(b, e, topics.ReaderOptions{}, nil) })
}

// BenchmarkReadRecycled: as BenchmarkRead, with an application that takes
// every record in a callback and hands it back with Reader.Recycle, so
// that the reader decodes into recycled records.
func BenchmarkReadRecycled(b *testing.B) {
	forKafkaTopics(b, func(b *testing.B, e *kafkaEnv) {
		benchkit.Read(b, e, topics.ReaderOptions{}, func(r *topics.Reader) { r.SetCallback(r.Recycle) })
	})
}

// BenchmarkLatency50Hz: end-to-end latency of forceActuatorData at 50 Hz
// (the M1M3 rate), producer linger 0: wall clock when the application
// gets the record (SDK: in a Reader callback; raw: from PollFetches)
// minus wall clock just before the write call, writer and reader in one
// process. max(b.N, 200) samples after 10 unmeasured ones; ns/op is the
// mean.
func BenchmarkLatency50Hz(b *testing.B) { benchLatency(b, 20*time.Millisecond) }

// BenchmarkLatency1kHz is BenchmarkLatency50Hz at 1 kHz.
func BenchmarkLatency1kHz(b *testing.B) { benchLatency(b, time.Millisecond) }

func benchLatency(b *testing.B, every time.Duration) {
	b.Run("sdk", func(b *testing.B) {
		e := newKafkaEnv(b, "MTM1M3", "forceActuatorData")
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
		defer cancel()
		n, warm := max(b.N, 200), 10
		in, err := e.Bus.NewInstance(e.Comp, 0, "")
		if err != nil {
			b.Fatal(err)
		}
		defer in.Close()
		r, err := in.Reader(e.Topic, topics.ReaderOptions{})
		if err != nil {
			b.Fatal(err)
		}
		if err := in.Start(ctx); err != nil {
			b.Fatal(err)
		}
		w := e.Writer(b)
		sent := make([]atomic.Int64, n+warm+1)
		lat := make([]time.Duration, 0, n)
		done := make(chan struct{})
		var mu sync.Mutex
		r.SetCallback(func(rec map[string]any) {
			got := time.Now().UnixNano()
			seq := int(rec["private_seqNum"].(int32))
			if seq <= warm || seq > n+warm {
				return
			}
			mu.Lock()
			defer mu.Unlock()
			lat = append(lat, time.Duration(got-sent[seq].Load()))
			if len(lat) == n {
				close(done)
			}
		})
		b.ResetTimer()
		kafkaPace(b, ctx, every, n+warm, func(i int) {
			sent[i].Store(time.Now().UnixNano())
			if err := w.WriteAsync(ctx, e.Recs[i%kafkaDistinct], nil); err != nil {
				b.Fatal(err)
			}
		})
		select {
		case <-done:
		case <-ctx.Done():
			b.Fatalf("only %d of %d samples arrived (reader stats %+v)", len(lat), n, r.Stats())
		}
		b.StopTimer()
		mu.Lock()
		defer mu.Unlock()
		kafkaReportLatency(b, lat)
	})
	b.Run("raw", func(b *testing.B) {
		e := newKafkaEnv(b, "MTM1M3", "forceActuatorData")
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
		defer cancel()
		n, warm := max(b.N, 200), 10
		cons, err := kgo.NewClient(kgo.SeedBrokers(e.Bus.Config().Brokers...),
			kgo.ConsumePartitions(map[string]map[int32]kgo.Offset{e.RawName: {0: kgo.NewOffset().At(0)}}))
		if err != nil {
			b.Fatal(err)
		}
		defer cons.Close()
		if err := cons.Ping(ctx); err != nil {
			b.Fatal(err)
		}
		sent := make([]atomic.Int64, n+warm+1)
		lat := make([]time.Duration, 0, n)
		done := make(chan struct{})
		go func() {
			defer close(done)
			for len(lat) < n {
				fs := cons.PollFetches(ctx)
				if fs.IsClientClosed() || ctx.Err() != nil {
					return
				}
				fs.EachRecord(func(kr *kgo.Record) {
					got := time.Now().UnixNano()
					seq := int(binary.BigEndian.Uint64(kr.Value))
					if seq > warm && seq <= n+warm {
						lat = append(lat, time.Duration(got-sent[seq].Load()))
					}
				})
			}
		}()
		b.ResetTimer()
		kafkaPace(b, ctx, every, n+warm, func(i int) {
			v := binary.BigEndian.AppendUint64(make([]byte, 0, 8+len(e.Framed[0])), uint64(i))
			v = append(v, e.Framed[i%kafkaDistinct]...)
			sent[i].Store(time.Now().UnixNano())
			e.Raw.Produce(ctx, &kgo.Record{Topic: e.RawName, Value: v}, nil)
		})
		<-done
		b.StopTimer()
		if len(lat) < n {
			b.Fatalf("only %d of %d samples arrived", len(lat), n)
		}
		kafkaReportLatency(b, lat)
	})
}

// kafkaPace calls write(i) for i = 1..n at 50 Hz.
func kafkaPace(b *testing.B, ctx context.Context, every time.Duration, n int, write func(i int)) {
	tick := time.NewTicker(every)
	defer tick.Stop()
	for i := 1; i <= n; i++ {
		select {
		case <-tick.C:
		case <-ctx.Done():
			b.Fatal(ctx.Err())
		}
		write(i)
	}
}

func kafkaReportLatency(b *testing.B, lat []time.Duration) {
	slices.Sort(lat)
	pct := func(p float64) float64 {
		return float64(lat[min(len(lat)-1, int(p*float64(len(lat))))]) / 1e3
	}
	var sum time.Duration
	for _, l := range lat {
		sum += l
	}
	b.ReportMetric(float64(sum.Nanoseconds())/float64(len(lat)), "ns/op")
	// The distribution, for the charts' latency curves.
	b.ReportMetric(float64(lat[0])/1e3, "min-µs")
	b.ReportMetric(pct(0.10), "p10-µs")
	b.ReportMetric(pct(0.25), "p25-µs")
	b.ReportMetric(pct(0.50), "p50-µs")
	b.ReportMetric(pct(0.75), "p75-µs")
	b.ReportMetric(pct(0.90), "p90-µs")
	b.ReportMetric(pct(0.99), "p99-µs")
	b.ReportMetric(float64(lat[len(lat)-1])/1e3, "max-µs")
}
