package benchmarks

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/lsst-sal/salgo/internal/codec"
	"github.com/lsst-sal/salgo/sal"
	"github.com/lsst-sal/salgo/topics"
	salxml "github.com/lsst-sal/salgo/xml"
)

// Kafka benchmarks: the SDK's writers and readers beside raw franz-go on
// the same broker, in the same benchmark function, so that the ratio
// (x-raw) compares like with like on a noisy machine.
//
// How the ratio is kept honest: each benchmark runs the raw loop and the
// SDK loop inside one function, over the same b.N records, interleaved in
// chunks (raw then SDK, then SDK then raw, ...) and timed separately, so
// that drift during the run (the broker's log growing, GC, a noisy
// neighbour) falls on both alike. The raw side produces the same framed
// bytes the SDK would (encoded once, up front) with the same client
// settings as the SDK's producer (linger 0, leader acks, no idempotence,
// kgo's default compression), to another topic of the same broker. So
// x-raw = SDK msgs/s / raw msgs/s is what stamping, validating, encoding
// and the SDK's bookkeeping cost on top of Kafka itself. ns/op, msgs/s
// and MB/s are the SDK's; raw-msgs/s is the baseline.
//
// Payloads: 1024 distinct random records per topic (as in
// perf-baseline.md), so that batches do not compress better than real
// telemetry does.

const kafkaDistinct = 1024

var kafkaSeq atomic.Int64

// kafkaEnv is one benchmark's bus, topic, records and raw client.
type kafkaEnv struct {
	bus     *sal.Bus
	comp    *salxml.Component
	topic   *salxml.Topic
	recs    []map[string]any // user fields only; the writer stamps the rest
	framed  [][]byte         // the same records, complete, framed: what raw sends
	size    int              // mean framed size
	key     []byte           // the record key the SDK's writer of index 0 sends (events only)
	raw     *kgo.Client
	rawName string // the raw producer's topic
}

func kafkaLogger() *slog.Logger {
	if os.Getenv("SALGO_BENCH_LOG") != "" {
		return slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	}
	return slog.New(slog.NewTextHandler(io.Discard, nil))
}

// newKafkaEnv connects a bus (the embedded one unless LSST_KAFKA_BROKER_ADDR
// is set) with the definitions holding comp, and prepares topic's records.
func newKafkaEnv(b *testing.B, comp, topic string) *kafkaEnv {
	b.Helper()
	if os.Getenv(topics.EnvBroker) != "" && os.Getenv(topics.EnvRegistry) == "" {
		b.Skipf("%s is set but %s is not: the Kafka benchmarks need a schema registry", topics.EnvBroker, topics.EnvRegistry)
	}
	f := newFixture(b, comp, topic) // skips without TS_XML_DIR for MTM1M3
	defs := definitions(b)
	if comp == "Example" {
		defs = salxml.Embedded()
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	bus, err := sal.Connect(ctx,
		sal.WithSubname(fmt.Sprintf("kbench%d_%d", time.Now().UnixNano()%1e9, kafkaSeq.Add(1))),
		sal.WithDefinitions(defs),
		sal.WithLogger(kafkaLogger()))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { bus.Close() })
	c, err := bus.Component(comp)
	if err != nil {
		b.Fatal(err)
	}
	e := &kafkaEnv{bus: bus, comp: c, topic: c.Topic(topic)}
	rng := rand.New(rand.NewPCG(3, 4))
	total := 0
	for range kafkaDistinct {
		full := f.val.Random(rng)
		full["private_revCode"] = f.topic.RevCode()
		full["private_identity"] = "user@host.example.org"
		full["private_seqNum"] = int32(1)
		full["private_origin"] = int32(os.Getpid())
		full["private_sndStamp"] = topics.TAI()
		if err := f.val.Validate(full); err != nil {
			b.Fatal(err)
		}
		buf, err := f.codec.Append(codec.AppendHeader(nil, 1), full)
		if err != nil {
			b.Fatal(err)
		}
		e.framed = append(e.framed, buf)
		total += len(buf)
		user := map[string]any{}
		for _, fl := range f.topic.Fields {
			if !fl.Private {
				user[fl.Name] = full[fl.Name]
			}
		}
		e.recs = append(e.recs, user)
	}
	e.size = total / kafkaDistinct
	if k := e.topic.Key(0); k != "" {
		e.key = []byte(k)
	}

	e.raw, err = kgo.NewClient(kafkaRawOpts(bus)...)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(e.raw.Close)
	e.rawName = "raw." + bus.Config().Subname + "." + topic
	e.createTopic(b, e.rawName, 1)
	return e
}

// kafkaRawOpts are the SDK producer's settings (internal/kafka.NewProducer
// with the default acks "1"), for the raw baseline.
func kafkaRawOpts(bus *sal.Bus) []kgo.Opt {
	return []kgo.Opt{
		kgo.SeedBrokers(bus.Config().Brokers...),
		kgo.ProducerLinger(0),
		kgo.RequiredAcks(kgo.LeaderAck()),
		kgo.DisableIdempotentWrite(),
		kgo.MaxBufferedRecords(100_000),
	}
}

// createTopic creates a topic as the SDK does (1 MiB segments on the
// embedded broker, which otherwise stalls while growing its segments).
func (e *kafkaEnv) createTopic(b *testing.B, name string, partitions int32) {
	b.Helper()
	cfg := map[string]*string{}
	if e.bus.Config().Embedded {
		cfg["segment.bytes"] = kadm.StringPtr("1048576")
	}
	resp, err := kadm.NewClient(e.raw).CreateTopic(context.Background(), partitions, e.bus.Config().Replication, cfg, name)
	if err == nil {
		err = resp.Err
	}
	if err != nil {
		b.Fatalf("create %s: %v", name, err)
	}
}

// writer starts an instance of the component with a writer of the topic.
func (e *kafkaEnv) writer(b *testing.B) *topics.Writer {
	b.Helper()
	in, err := e.bus.NewInstance(e.comp, 0, "")
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(in.Close)
	w, err := in.Writer(e.topic)
	if err != nil {
		b.Fatal(err)
	}
	if err := in.Start(context.Background()); err != nil {
		b.Fatal(err)
	}
	return w
}

// forKafkaTopics runs fn for the three record sizes of the codec
// benchmarks: Example scalars (small), MTM1M3 forceActuatorData (fad,
// 3.3 KB) and the largest topic of ts_xml (largest, 116 KB).
func forKafkaTopics(b *testing.B, fn func(b *testing.B, e *kafkaEnv)) {
	for _, s := range sizes {
		b.Run(s.name, func(b *testing.B) { fn(b, newKafkaEnv(b, s.comp, s.topic)) })
	}
}

// asyncChunk is how many records an asynchronous write sends between two
// flushes: 2000, or fewer for large records so that a chunk stays near
// 16 MB (the embedded broker keeps every record in memory).
func (e *kafkaEnv) asyncChunk() int {
	return max(50, min(2000, 16<<20/max(1, e.size)))
}

// reportWrite reports the SDK's figures and the ratio to raw.
func (e *kafkaEnv) reportWrite(b *testing.B, n int, sdk, raw time.Duration) {
	sdkRate := float64(n) / sdk.Seconds()
	rawRate := float64(n) / raw.Seconds()
	b.ReportMetric(float64(sdk.Nanoseconds())/float64(n), "ns/op")
	b.ReportMetric(sdkRate, "msgs/s")
	b.ReportMetric(sdkRate*float64(e.size)/1e6, "MB/s")
	b.ReportMetric(rawRate, "raw-msgs/s")
	b.ReportMetric(rawRate*float64(e.size)/1e6, "raw-MB/s")
	b.ReportMetric(sdkRate/rawRate, "x-raw")
}

// interleave runs raw and sdk over n records in chunks, alternating which
// goes first, and returns the time each took in all. One untimed chunk of
// each goes first: without it, the first run in a process came out ~30 %
// worse for the SDK (the heap and the writer's buffer pool still growing).
func interleave(b *testing.B, n, chunk int, raw, sdk func(from, to int)) (rawT, sdkT time.Duration) {
	raw(0, chunk)
	sdk(0, chunk)
	b.ResetTimer()
	for from, i := 0, 0; from < n; i++ {
		to := min(from+chunk, n)
		runRaw := func() { t := time.Now(); raw(from, to); rawT += time.Since(t) }
		runSDK := func() { t := time.Now(); sdk(from, to); sdkT += time.Since(t) }
		if i%2 == 0 {
			runRaw()
			runSDK()
		} else {
			runSDK()
			runRaw()
		}
		from = to
	}
	return rawT, sdkT
}

// BenchmarkWriteSync: one record at a time, each acknowledged by the
// broker before the next: Writer.Write vs kgo ProduceSync.
func BenchmarkWriteSync(b *testing.B) {
	forKafkaTopics(b, func(b *testing.B, e *kafkaEnv) {
		ctx := context.Background()
		w := e.writer(b)
		kr := &kgo.Record{Topic: e.rawName, Key: e.key}
		rawT, sdkT := interleave(b, b.N, 100,
			func(from, to int) {
				for i := from; i < to; i++ {
					kr.Value = e.framed[i%kafkaDistinct]
					if err := e.raw.ProduceSync(ctx, kr).FirstErr(); err != nil {
						b.Fatal(err)
					}
				}
			},
			func(from, to int) {
				for i := from; i < to; i++ {
					if _, err := w.Write(ctx, e.recs[i%kafkaDistinct]); err != nil {
						b.Fatal(err)
					}
				}
			})
		b.StopTimer()
		e.reportWrite(b, b.N, sdkT, rawT)
	})
}

// BenchmarkWriteAsync: records sent without waiting, in chunks (2000
// records, or about 16 MB for large ones) each ended by a flush (every
// record acknowledged): Writer.WriteAsync vs kgo Produce.
func BenchmarkWriteAsync(b *testing.B) {
	forKafkaTopics(b, func(b *testing.B, e *kafkaEnv) {
		ctx := context.Background()
		w := e.writer(b)
		var failed atomic.Int64
		rawDone := func(_ *kgo.Record, err error) {
			if err != nil {
				failed.Add(1)
			}
		}
		sdkDone := func(_ topics.WriteResult, err error) {
			if err != nil {
				failed.Add(1)
			}
		}
		rawT, sdkT := interleave(b, b.N, e.asyncChunk(),
			func(from, to int) {
				for i := from; i < to; i++ {
					e.raw.Produce(ctx, &kgo.Record{Topic: e.rawName, Key: e.key, Value: e.framed[i%kafkaDistinct]}, rawDone)
				}
				if err := e.raw.Flush(ctx); err != nil {
					b.Fatal(err)
				}
			},
			func(from, to int) {
				for i := from; i < to; i++ {
					if err := w.WriteAsync(ctx, e.recs[i%kafkaDistinct], sdkDone); err != nil {
						b.Fatal(err)
					}
				}
				if err := e.bus.Flush(ctx); err != nil {
					b.Fatal(err)
				}
			})
		b.StopTimer()
		if n := failed.Load(); n > 0 {
			b.Fatalf("%d records failed", n)
		}
		e.reportWrite(b, b.N, sdkT, rawT)
	})
}

// BenchmarkRead: read, decode and validate b.N records that are already in
// the topic, for the three record sizes: an SDK Reader vs a raw kgo
// consumer of the same records (which only touches the bytes).
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
	forKafkaTopics(b, func(b *testing.B, e *kafkaEnv) { benchRead(b, e, false) })
}

// BenchmarkReadRecycled: as BenchmarkRead, with an application that takes
// every record in a callback and hands it back with Reader.Recycle, so
// that the reader decodes into recycled records.
func BenchmarkReadRecycled(b *testing.B) {
	forKafkaTopics(b, func(b *testing.B, e *kafkaEnv) { benchRead(b, e, true) })
}

func benchRead(b *testing.B, e *kafkaEnv, recycle bool) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cfg := e.bus.Config()
	name := e.topic.KafkaName(cfg.Subname)
	total := b.N + 1

	gate := make(chan struct{})
	released := false
	release := func() {
		if !released {
			released = true
			close(gate)
		}
	}
	defer release()
	target, err := url.Parse(cfg.RegistryURL)
	if err != nil {
		b.Fatal(err)
	}
	proxy := httputil.NewSingleHostReverseProxy(target)
	// An attempt the reader gave up on (each times out after 5 s, and the
	// raw reads of the largest records take longer) is no error to log.
	proxy.ErrorHandler = func(w http.ResponseWriter, _ *http.Request, _ error) { w.WriteHeader(http.StatusBadGateway) }
	var held atomic.Bool
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.URL.Path, "/schemas/ids/") {
			held.Store(true)
			select {
			case <-gate:
			case <-r.Context().Done():
			}
		}
		proxy.ServeHTTP(w, r)
	}))
	defer srv.Close()
	rcfg := cfg
	rcfg.RegistryURL = srv.URL
	rd, err := topics.NewDomain(ctx, rcfg)
	if err != nil {
		b.Fatal(err)
	}
	defer rd.Close()
	rin, err := rd.NewInstance(e.comp, 0, "reader")
	if err != nil {
		b.Fatal(err)
	}
	r, err := rin.Reader(e.topic, topics.ReaderOptions{})
	if err != nil {
		b.Fatal(err)
	}
	if err := rin.Start(ctx); err != nil {
		b.Fatal(err)
	}
	if recycle {
		r.SetCallback(r.Recycle)
	}
	w := e.writer(b)

	other := &salxml.Topic{Component: e.topic.Component, SALName: e.topic.SALName, Kind: e.topic.Kind,
		Description: e.topic.Description + " (benchmark variant)", Indexed: e.topic.Indexed,
		Namespace: e.topic.Namespace, Fields: e.topic.Fields}
	otherID := kafkaRegister(b, cfg.RegistryURL, e.topic.Subject(cfg.Subname), other.AvroSchema())
	variant := append(codec.AppendHeader(nil, otherID), e.framed[0][codec.HeaderLen:]...)
	if err := e.raw.ProduceSync(ctx, &kgo.Record{Topic: name, Key: e.key, Value: variant}).FirstErr(); err != nil {
		b.Fatal(err)
	}
	for i := range b.N {
		if err := w.WriteAsync(ctx, e.recs[i%kafkaDistinct], nil); err != nil {
			b.Fatal(err)
		}
	}
	if err := e.bus.Flush(ctx); err != nil {
		b.Fatal(err)
	}
	for !held.Load() {
		if ctx.Err() != nil {
			b.Fatal("the reader never looked up the variant schema id")
		}
		time.Sleep(time.Millisecond)
	}

	// The raw consumer reads the records before and after the SDK reader,
	// and its time is the mean of both, so that neither side gets the
	// better half of any drift.
	seen, sum := 0, 0
	rawRead := func() time.Duration {
		cons, err := kgo.NewClient(kgo.SeedBrokers(cfg.Brokers...),
			kgo.ConsumePartitions(map[string]map[int32]kgo.Offset{name: {0: kgo.NewOffset().At(0)}})) // as the SDK's consumer
		if err != nil {
			b.Fatal(err)
		}
		defer cons.Close()
		if err := cons.Ping(ctx); err != nil {
			b.Fatal(err)
		}
		seen, sum = 0, 0
		t0 := time.Now()
		for seen < total {
			fs := cons.PollFetches(ctx)
			if err := fs.Err0(); err != nil {
				b.Fatal(err)
			}
			fs.EachRecord(func(kr *kgo.Record) { seen++; sum += len(kr.Value) })
		}
		return time.Since(t0)
	}
	// The garbage of the benchmark before this one (the largest records'
	// broker and readers hold hundreds of MB) is collected now, not during
	// the first raw read: that made the raw reader of ReadRecycled/largest
	// 3-4x slower when it ran after Read/largest in one process.
	runtime.GC()
	b.ResetTimer()
	rawT := rawRead()

	t0 := time.Now()
	release()
	for {
		s := r.Stats()
		if s.Delivered+s.Undecodable+s.OutOfOrder >= uint64(total) {
			if s.Undecodable != 0 || s.Delivered != uint64(total) {
				b.Fatalf("reader stats %+v: want all %d delivered", s, total)
			}
			break
		}
		if ctx.Err() != nil {
			b.Fatalf("reader stats %+v: not all %d records read", s, total)
		}
		time.Sleep(100 * time.Microsecond)
	}
	sdkT := time.Since(t0)
	rawT = (rawT + rawRead()) / 2
	b.StopTimer()
	sdkRate, rawRate := float64(total)/sdkT.Seconds(), float64(total)/rawT.Seconds()
	b.ReportMetric(float64(sdkT.Nanoseconds())/float64(total), "ns/op")
	b.ReportMetric(sdkRate, "msgs/s")
	b.ReportMetric(sdkRate*float64(sum)/float64(seen)/1e6, "MB/s")
	b.ReportMetric(rawRate, "raw-msgs/s")
	b.ReportMetric(sdkRate/rawRate, "x-raw")
	if recycle {
		// Records the callback could not take before the queue was full
		// are not handed back: each costs a fresh map.
		b.ReportMetric(float64(r.Stats().Overflow)/float64(total), "overflow/op")
	}
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
		in, err := e.bus.NewInstance(e.comp, 0, "")
		if err != nil {
			b.Fatal(err)
		}
		defer in.Close()
		r, err := in.Reader(e.topic, topics.ReaderOptions{})
		if err != nil {
			b.Fatal(err)
		}
		if err := in.Start(ctx); err != nil {
			b.Fatal(err)
		}
		w := e.writer(b)
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
			if err := w.WriteAsync(ctx, e.recs[i%kafkaDistinct], nil); err != nil {
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
		cons, err := kgo.NewClient(kgo.SeedBrokers(e.bus.Config().Brokers...),
			kgo.ConsumePartitions(map[string]map[int32]kgo.Offset{e.rawName: {0: kgo.NewOffset().At(0)}}))
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
			v := binary.BigEndian.AppendUint64(make([]byte, 0, 8+len(e.framed[0])), uint64(i))
			v = append(v, e.framed[i%kafkaDistinct]...)
			sent[i].Store(time.Now().UnixNano())
			e.raw.Produce(ctx, &kgo.Record{Topic: e.rawName, Value: v}, nil)
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

// kafkaRegister registers schema under subject (POST
// /subjects/{subject}/versions, as ts_salobj does) and returns its id.
func kafkaRegister(b *testing.B, registryURL, subject, schema string) int32 {
	b.Helper()
	body, _ := json.Marshal(map[string]string{"schema": schema})
	resp, err := http.Post(strings.TrimSuffix(registryURL, "/")+"/subjects/"+url.PathEscape(subject)+"/versions",
		"application/vnd.schemaregistry.v1+json", bytes.NewReader(body))
	if err != nil {
		b.Fatal(err)
	}
	defer resp.Body.Close()
	text, _ := io.ReadAll(resp.Body)
	var out struct {
		ID int32 `json:"id"`
	}
	if resp.StatusCode != http.StatusOK || json.Unmarshal(text, &out) != nil || out.ID <= 0 {
		b.Fatalf("register %s: %s: %s", subject, resp.Status, text)
	}
	return out.ID
}
