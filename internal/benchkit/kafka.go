package benchkit

import (
	"bytes"
	"context"
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
	"strings"
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
// Payloads: Distinct random records per topic (as in perf-baseline.md),
// so that batches do not compress better than real telemetry does.

// Distinct is how many distinct records a Kafka benchmark cycles through.
const Distinct = 1024

var kafkaSeq atomic.Int64

// Env is one Kafka benchmark's bus, topic, records and raw client.
type Env struct {
	Bus     *sal.Bus
	Comp    *salxml.Component
	Topic   *salxml.Topic
	Recs    []map[string]any // user fields only; the writer stamps the rest
	Framed  [][]byte         // the same records, complete, framed: what raw sends
	Size    int              // mean framed size
	Key     []byte           // the record key the SDK's writer of index 0 sends (events only)
	Raw     *kgo.Client
	RawName string // the raw producer's topic
}

// Logger is the buses' logger: warnings on stderr when SALGO_BENCH_LOG is
// set, else nothing.
func Logger() *slog.Logger {
	if os.Getenv("SALGO_BENCH_LOG") != "" {
		return slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	}
	return slog.New(slog.NewTextHandler(io.Discard, nil))
}

// NewEnv connects a bus (the embedded one unless LSST_KAFKA_BROKER_ADDR
// is set) with the definitions holding comp, and prepares topic's
// records. It skips b when comp is only in the real ts_xml and TS_XML_DIR
// is not set.
func NewEnv(b *testing.B, comp, topic string) *Env {
	b.Helper()
	if os.Getenv(topics.EnvBroker) != "" && os.Getenv(topics.EnvRegistry) == "" {
		b.Skipf("%s is set but %s is not: the Kafka benchmarks need a schema registry", topics.EnvBroker, topics.EnvRegistry)
	}
	f := NewFixture(b, comp, topic)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	bus, err := sal.Connect(ctx,
		sal.WithSubname(fmt.Sprintf("kbench%d_%d", time.Now().UnixNano()%1e9, kafkaSeq.Add(1))),
		sal.WithDefinitions(defsFor(b, comp)),
		sal.WithLogger(Logger()))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { bus.Close() })
	c, err := bus.Component(comp)
	if err != nil {
		b.Fatal(err)
	}
	e := &Env{Bus: bus, Comp: c, Topic: c.Topic(topic)}
	rng := rand.New(rand.NewPCG(3, 4))
	total := 0
	for range Distinct {
		full := f.Val.Random(rng)
		full["private_revCode"] = f.Topic.RevCode()
		full["private_identity"] = "user@host.example.org"
		full["private_seqNum"] = int32(1)
		full["private_origin"] = int32(os.Getpid())
		full["private_sndStamp"] = topics.TAI()
		if err := f.Val.Validate(full); err != nil {
			b.Fatal(err)
		}
		buf, err := f.Codec.Append(codec.AppendHeader(nil, 1), full)
		if err != nil {
			b.Fatal(err)
		}
		e.Framed = append(e.Framed, buf)
		total += len(buf)
		user := map[string]any{}
		for _, fl := range f.Topic.Fields {
			if !fl.Private {
				user[fl.Name] = full[fl.Name]
			}
		}
		e.Recs = append(e.Recs, user)
	}
	e.Size = total / Distinct
	if k := e.Topic.Key(0); k != "" {
		e.Key = []byte(k)
	}

	e.Raw, err = kgo.NewClient(RawOpts(bus)...)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(e.Raw.Close)
	e.RawName = "raw." + bus.Config().Subname + "." + topic
	e.CreateTopic(b, e.RawName, 1)
	return e
}

// RawOpts are the SDK producer's settings (internal/kafka.NewProducer
// with the default acks "1"), for the raw baseline.
func RawOpts(bus *sal.Bus) []kgo.Opt {
	return []kgo.Opt{
		kgo.SeedBrokers(bus.Config().Brokers...),
		kgo.ProducerLinger(0),
		kgo.RequiredAcks(kgo.LeaderAck()),
		kgo.DisableIdempotentWrite(),
		kgo.MaxBufferedRecords(100_000),
	}
}

// CreateTopic creates a topic as the SDK does (1 MiB segments on the
// embedded broker, which otherwise stalls while growing its segments),
// with e.Raw. Only e.Bus and e.Raw need be set.
func (e *Env) CreateTopic(b *testing.B, name string, partitions int32) {
	b.Helper()
	cfg := map[string]*string{}
	if e.Bus.Config().Embedded {
		cfg["segment.bytes"] = kadm.StringPtr("1048576")
	}
	resp, err := kadm.NewClient(e.Raw).CreateTopic(context.Background(), partitions, e.Bus.Config().Replication, cfg, name)
	if err == nil {
		err = resp.Err
	}
	if err != nil {
		b.Fatalf("create %s: %v", name, err)
	}
}

// Writer starts an instance of the component with a writer of the topic.
func (e *Env) Writer(b *testing.B) *topics.Writer {
	b.Helper()
	in, err := e.Bus.NewInstance(e.Comp, 0, "")
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(in.Close)
	w, err := in.Writer(e.Topic)
	if err != nil {
		b.Fatal(err)
	}
	if err := in.Start(context.Background()); err != nil {
		b.Fatal(err)
	}
	return w
}

// AsyncChunk is how many records an asynchronous write sends between two
// flushes: 2000, or fewer for large records so that a chunk stays near
// 16 MB (the embedded broker keeps every record in memory).
func (e *Env) AsyncChunk() int {
	return max(50, min(2000, 16<<20/max(1, e.Size)))
}

// ReportWrite reports the SDK's figures and the ratio to raw.
func (e *Env) ReportWrite(b *testing.B, n int, sdk, raw time.Duration) {
	sdkRate := float64(n) / sdk.Seconds()
	rawRate := float64(n) / raw.Seconds()
	b.ReportMetric(float64(sdk.Nanoseconds())/float64(n), "ns/op")
	b.ReportMetric(sdkRate, "msgs/s")
	b.ReportMetric(sdkRate*float64(e.Size)/1e6, "MB/s")
	b.ReportMetric(rawRate, "raw-msgs/s")
	b.ReportMetric(rawRate*float64(e.Size)/1e6, "raw-MB/s")
	b.ReportMetric(sdkRate/rawRate, "x-raw")
}

// Interleave runs raw and sdk over n records in chunks, alternating which
// goes first, and returns the time each took in all. One untimed chunk of
// each goes first: without it, the first run in a process came out ~30 %
// worse for the SDK (the heap and the writer's buffer pool still growing).
func Interleave(b *testing.B, n, chunk int, raw, sdk func(from, to int)) (rawT, sdkT time.Duration) {
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

// Sender sends record i (of b.N) without waiting; done runs once the
// broker acknowledged it or it failed.
type Sender func(ctx context.Context, i int, done func(topics.WriteResult, error)) error

// WriteAsync is BenchmarkWriteAsync on e: records sent without waiting, in
// chunks (AsyncChunk) each ended by a flush (every record acknowledged),
// the SDK's writer (sender(w) sends record i with w) vs kgo Produce.
func WriteAsync(b *testing.B, e *Env, sender func(w *topics.Writer) Sender) {
	ctx := context.Background()
	send := sender(e.Writer(b))
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
	rawT, sdkT := Interleave(b, b.N, e.AsyncChunk(),
		func(from, to int) {
			for i := from; i < to; i++ {
				e.Raw.Produce(ctx, &kgo.Record{Topic: e.RawName, Key: e.Key, Value: e.Framed[i%Distinct]}, rawDone)
			}
			if err := e.Raw.Flush(ctx); err != nil {
				b.Fatal(err)
			}
		},
		func(from, to int) {
			for i := from; i < to; i++ {
				if err := send(ctx, i, sdkDone); err != nil {
					b.Fatal(err)
				}
			}
			if err := e.Bus.Flush(ctx); err != nil {
				b.Fatal(err)
			}
		})
	b.StopTimer()
	if n := failed.Load(); n > 0 {
		b.Fatalf("%d records failed", n)
	}
	e.ReportWrite(b, b.N, sdkT, rawT)
}

// Read is BenchmarkRead on e: read, decode and validate b.N records that
// are already in the topic, with an SDK Reader made with opts, vs a raw
// kgo consumer of the same records (which only touches the bytes). app,
// when not nil, is the application: it is given the started reader (to
// set a callback), and the records it could not take are reported as
// overflow/op.
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
// SDK's timer starts when the proxy lets go. The other b.N records carry
// the SDK's own schema id, the usual case. Both sides start with a
// connected client and time until the last record is through: for the
// SDK, decoded, checked and queued (Stats().Delivered; the default queue
// of 100 drops the oldest, as a reader nobody drains does). The raw
// consumer reads the records once before and once after the SDK reader;
// its time is the mean.
func Read(b *testing.B, e *Env, opts topics.ReaderOptions, app func(r *topics.Reader)) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cfg := e.Bus.Config()
	name := e.Topic.KafkaName(cfg.Subname)
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
	rin, err := rd.NewInstance(e.Comp, 0, "reader")
	if err != nil {
		b.Fatal(err)
	}
	r, err := rin.Reader(e.Topic, opts)
	if err != nil {
		b.Fatal(err)
	}
	if err := rin.Start(ctx); err != nil {
		b.Fatal(err)
	}
	if app != nil {
		app(r)
	}
	w := e.Writer(b)

	other := &salxml.Topic{Component: e.Topic.Component, SALName: e.Topic.SALName, Kind: e.Topic.Kind,
		Description: e.Topic.Description + " (benchmark variant)", Indexed: e.Topic.Indexed,
		Namespace: e.Topic.Namespace, Fields: e.Topic.Fields}
	otherID := Register(b, cfg.RegistryURL, e.Topic.Subject(cfg.Subname), other.AvroSchema())
	variant := append(codec.AppendHeader(nil, otherID), e.Framed[0][codec.HeaderLen:]...)
	if err := e.Raw.ProduceSync(ctx, &kgo.Record{Topic: name, Key: e.Key, Value: variant}).FirstErr(); err != nil {
		b.Fatal(err)
	}
	for i := range b.N {
		if err := w.WriteAsync(ctx, e.Recs[i%Distinct], nil); err != nil {
			b.Fatal(err)
		}
	}
	if err := e.Bus.Flush(ctx); err != nil {
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
	if app != nil {
		// Records the callback could not take before the queue was full
		// are not handed back: each costs a fresh record.
		b.ReportMetric(float64(r.Stats().Overflow)/float64(total), "overflow/op")
	}
}

// Register registers schema under subject (POST
// /subjects/{subject}/versions, as ts_salobj does) and returns its id.
func Register(b *testing.B, registryURL, subject, schema string) int32 {
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
