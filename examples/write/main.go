package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/lsst-sal/salgo/examples/internal/cli"
	"github.com/lsst-sal/salgo/sal"
	"github.com/lsst-sal/salgo/topics"
	"github.com/lsst-sal/salgo/validate"
	salxml "github.com/lsst-sal/salgo/xml"
)

const usageText = `usage: write COMPONENT TOPIC [flags]

Writes COUNT generated records of TOPIC and prints one summary line:
  N records sent, X records/sec (Y MB/sec), A ms avg latency, M ms max latency,
  P50 ms 50th, P95 ms 95th, P99 ms 99th, P999 ms 99.9th.
` + cli.TopicNames + `
` + cli.ExitStatusHelp + `
flags:
`

func main() {
	cli.Main("write", true, func(ctx context.Context, args []string) error {
		return run(ctx, args, os.Stdout, os.Stderr)
	})
}

// summary is the final report; its JSON form is what -json prints.
type summary struct {
	Component  string  `json:"component"`
	Topic      string  `json:"topic"`
	KafkaTopic string  `json:"kafka_topic"`
	Index      int     `json:"index"`
	Acks       string  `json:"acks"`
	Records    int     `json:"records"`
	Failed     int     `json:"failed"`
	Bytes      int64   `json:"bytes"`
	Seconds    float64 `json:"seconds"`
	RecordsSec float64 `json:"records_per_sec"`
	MBSec      float64 `json:"mb_per_sec"`
	AvgMs      float64 `json:"avg_latency_ms"`
	MaxMs      float64 `json:"max_latency_ms"`
	P50Ms      float64 `json:"p50_ms"`
	P95Ms      float64 `json:"p95_ms"`
	P99Ms      float64 `json:"p99_ms"`
	P999Ms     float64 `json:"p999_ms"`
}

func (s summary) line() string {
	return fmt.Sprintf("%d records sent, %.1f records/sec (%.2f MB/sec), %.2f ms avg latency, %.2f ms max latency, %.2f ms 50th, %.2f ms 95th, %.2f ms 99th, %.2f ms 99.9th.",
		s.Records, s.RecordsSec, s.MBSec, s.AvgMs, s.MaxMs, s.P50Ms, s.P95Ms, s.P99Ms, s.P999Ms)
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("write", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, usageText); fs.PrintDefaults() }
	index := fs.Int("index", 0, "SAL index written (if not given: 1 for an indexed component)")
	n := fs.Int("n", 1000, "number of records to write; 0 only creates the topic and registers its schema")
	rate := fs.Float64("rate", 0, "records per second; 0 writes as fast as the broker acknowledges (pipelined)")
	acks := fs.String("acks", "", "producer acks: 0, 1 or all (default $LSST_KAFKA_PRODUCER_WAIT_ACKS, else 1)")
	validation := fs.String("validation", "full", "record validation: full (the SDK always validates; none is not available)")
	jsonOut := fs.Bool("json", false, "print the summary as JSON")
	seed := fs.Uint64("seed", 0, "random seed (0: a random one)")
	verbose := fs.Bool("v", false, "log the SDK's info messages on stderr")
	version := cli.VersionFlag(fs)
	pos, err := cli.ParseInterleaved(fs, args)
	if err != nil {
		return err
	}
	if *version {
		return cli.PrintVersion(stdout, "write")
	}
	if len(pos) != 2 {
		return cli.Usagef("want COMPONENT TOPIC, got %d arguments %q", len(pos), pos)
	}
	if *n < 0 {
		return cli.Usagef("-n %d: must be >= 0", *n)
	}
	if *rate < 0 || math.IsNaN(*rate) || math.IsInf(*rate, 0) {
		return cli.Usagef("-rate %v: must be a finite number >= 0", *rate)
	}
	switch *acks {
	case "", "0", "1", "all":
	default:
		return cli.Usagef("-acks %q: want 0, 1 or all", *acks)
	}
	switch *validation {
	case "full":
	case "none":
		return cli.Usagef("-validation none is not available: the SDK validates every record it writes (topics.Writer.Write and WriteAsync always run validate.Validator.Validate), so the numbers always include validation")
	default:
		return cli.Usagef("-validation %q: want full", *validation)
	}

	defs, err := salxml.FromEnv()
	if err != nil {
		return err
	}
	comp, err := cli.FindComponent(defs, pos[0], fmt.Sprintf(" (%s); set TS_XML_DIR for ts_xml's", strings.Join(first(defs.Names(), 8), ", ")))
	if err != nil {
		return err
	}
	topic, err := cli.FindTopic(comp, pos[1], cli.ListedBySalctl(comp))
	if err != nil {
		return err
	}
	idx := *index
	if !cli.IsSet(fs, "index") && comp.Indexed {
		idx = 1
	}
	if err := comp.CheckIndex(idx); err != nil {
		return cli.Usagef("-index %d: %v", idx, err)
	}

	var opts []sal.Option
	if *acks != "" {
		opts = append(opts, sal.WithAcks(*acks))
	}
	cctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	bus, err := cli.Connect(ctx, defs, cli.Logger(stderr, *verbose), opts...)
	if err != nil {
		return err
	}
	defer bus.Close()
	cfg := bus.Config()
	if bus.Embedded() {
		fmt.Fprintf(stderr, "write: no broker configured (%s unset): writing to an in-process Kafka broker and schema registry that no other process sees (run examples/localkafka to share a bus)\n", topics.EnvBroker)
	}
	in, err := bus.NewInstance(comp, idx, "")
	if err != nil {
		return err
	}
	defer in.Close()
	w, err := in.Writer(topic)
	if err != nil {
		return err
	}
	if err := in.Start(cctx); err != nil {
		return err
	}
	kname := topic.KafkaName(cfg.Subname)
	if *n == 0 {
		if *jsonOut {
			return json.NewEncoder(stdout).Encode(map[string]any{
				"component": comp.Name, "topic": topic.SALName, "kafka_topic": kname,
				"subject": topic.Subject(cfg.Subname), "revcode": topic.RevCode(), "records": 0,
			})
		}
		fmt.Fprintf(stdout, "-n 0: topic %s exists and the schema of %s is registered under subject %s (revCode %s); no records written.\n",
			kname, topic, topic.Subject(cfg.Subname), topic.RevCode())
		return nil
	}

	s, err := writeAll(ctx, w, topic, *n, *rate, *seed, stderr)
	if err != nil {
		return err
	}
	s.Component, s.Topic, s.KafkaTopic, s.Index, s.Acks = comp.Name, topic.SALName, kname, idx, cfg.Acks
	if *jsonOut {
		r := func(x *float64) { *x = math.Round(*x*1000) / 1000 } // µs resolution
		for _, x := range []*float64{&s.RecordsSec, &s.Seconds, &s.MBSec, &s.AvgMs, &s.MaxMs, &s.P50Ms, &s.P95Ms, &s.P99Ms, &s.P999Ms} {
			r(x)
		}
		enc := json.NewEncoder(stdout)
		if err := enc.Encode(s); err != nil {
			return err
		}
	} else {
		fmt.Fprintln(stdout, s.line())
	}
	switch {
	case s.Failed > 0:
		return fmt.Errorf("%d of %d records failed", s.Failed, s.Failed+s.Records)
	case s.Records < *n:
		return fmt.Errorf("interrupted after %d of %d records", s.Records, *n)
	}
	return nil
}

// writeAll writes n random records, pipelined (or paced by rate), and
// measures each one's time to the broker's ack.
func writeAll(ctx context.Context, w *topics.Writer, topic *salxml.Topic, n int, rate float64, seed uint64, stderr io.Writer) (summary, error) {
	if seed == 0 {
		seed = rand.Uint64()
	}
	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	gen := validate.For(topic)

	var (
		mu       sync.Mutex
		lat      = make([]time.Duration, 0, n)
		failed   int
		firstErr error
		bytes    int64
		acked    atomic.Int64
		latSum   atomic.Int64 // ns, for the progress line
		pending  sync.WaitGroup
	)
	// done records one acknowledgement. WriteAsync stamps the private
	// fields into rec before it returns, but the ack may come first, so
	// the record's size reaches the callback through sizeCh.
	done := func(sizeCh <-chan int) func(topics.WriteResult, error) {
		return func(r topics.WriteResult, err error) {
			size := <-sizeCh
			mu.Lock()
			if err != nil {
				failed++
				if firstErr == nil {
					firstErr = err
				}
			} else {
				lat = append(lat, r.Latency)
				bytes += int64(size)
			}
			mu.Unlock()
			if err == nil {
				acked.Add(1)
				latSum.Add(int64(r.Latency))
			}
			pending.Done()
		}
	}

	start := time.Now()
	var prev, prevLat int64
	stopProgress := cli.Progress(stderr, func() string {
		now, nowLat := acked.Load(), latSum.Load()
		defer func() { prev, prevLat = now, nowLat }()
		avg := 0.0
		if now > prev {
			avg = float64(nowLat-prevLat) / float64(now-prev) / 1e6
		}
		return fmt.Sprintf("write: %d/%d records acknowledged, %.1f records/sec, %.2f ms avg latency (last second)", now, n, float64(now-prev), avg)
	})

	var werr error
	for i := 0; i < n; i++ {
		if rate > 0 {
			due := start.Add(time.Duration(float64(i) / rate * float64(time.Second)))
			if d := time.Until(due); d > 0 {
				select {
				case <-time.After(d):
				case <-ctx.Done():
				}
			}
		}
		if ctx.Err() != nil {
			break
		}
		rec := gen.Random(rng)
		pending.Add(1)
		sizeCh := make(chan int, 1)
		if err := w.WriteAsync(ctx, rec, done(sizeCh)); err != nil {
			pending.Done()
			werr = err
			break
		}
		sizeCh <- 5 + avroSize(topic, rec)
	}
	// Wait for the outstanding acks, bounded in case the broker went away.
	all := make(chan struct{})
	go func() { pending.Wait(); close(all) }()
	select {
	case <-all:
	case <-time.After(30 * time.Second):
		werr = errors.Join(werr, errors.New("gave up waiting 30 s for the broker to acknowledge the last records"))
	}
	elapsed := time.Since(start)
	stopProgress()

	mu.Lock()
	defer mu.Unlock()
	if werr != nil {
		return summary{}, werr
	}
	if firstErr != nil {
		fmt.Fprintln(stderr, "write: first failure:", firstErr)
	}
	s := summary{Records: len(lat), Failed: failed, Bytes: bytes, Seconds: elapsed.Seconds()}
	if s.Seconds > 0 {
		s.RecordsSec = float64(s.Records) / s.Seconds
		s.MBSec = float64(bytes) / (1 << 20) / s.Seconds
	}
	if len(lat) > 0 {
		ms := make([]float64, len(lat))
		for i, l := range lat {
			ms[i] = float64(l) / 1e6
		}
		st := cli.Summarize(ms)
		s.AvgMs, s.MaxMs = st.Mean, st.Max
		// As kafka-producer-perf-test: the element at floor(len*p) of the sorted latencies.
		s.P50Ms, s.P95Ms, s.P99Ms, s.P999Ms = st.Pct(0.5), st.Pct(0.95), st.Pct(0.99), st.Pct(0.999)
	}
	return s, nil
}

// avroSize is the length of rec's Avro binary encoding under topic's
// schema (fields in wire order; arrays as one block and its terminator).
func avroSize(t *salxml.Topic, rec map[string]any) int {
	n := 0
	for _, f := range t.Fields {
		v := rec[f.Name]
		if f.Nullable {
			n++ // union branch index
			if v == nil {
				continue
			}
		}
		switch x := v.(type) {
		case bool:
			n++
		case uint8:
			n += varintLen(int64(x))
		case int16:
			n += varintLen(int64(x))
		case int32:
			n += varintLen(int64(x))
		case int64:
			n += varintLen(x)
		case uint16:
			n += varintLen(int64(x))
		case uint32:
			n += varintLen(int64(x))
		case float32:
			n += 4
		case float64:
			n += 8
		case string:
			n += varintLen(int64(len(x))) + len(x)
		case []bool:
			n += arraySize(len(x), func(int) int { return 1 })
		case []uint8:
			n += arraySize(len(x), func(i int) int { return varintLen(int64(x[i])) })
		case []int16:
			n += arraySize(len(x), func(i int) int { return varintLen(int64(x[i])) })
		case []int32:
			n += arraySize(len(x), func(i int) int { return varintLen(int64(x[i])) })
		case []int64:
			n += arraySize(len(x), func(i int) int { return varintLen(x[i]) })
		case []uint16:
			n += arraySize(len(x), func(i int) int { return varintLen(int64(x[i])) })
		case []uint32:
			n += arraySize(len(x), func(i int) int { return varintLen(int64(x[i])) })
		case []float32:
			n += arraySize(len(x), func(int) int { return 4 })
		case []float64:
			n += arraySize(len(x), func(int) int { return 8 })
		}
	}
	return n
}

func arraySize(l int, item func(int) int) int {
	n := 1 // the terminating empty block
	if l > 0 {
		n += varintLen(int64(l))
		for i := 0; i < l; i++ {
			n += item(i)
		}
	}
	return n
}

// varintLen is the length of v as an Avro zig-zag varint.
func varintLen(v int64) int {
	u := uint64((v << 1) ^ (v >> 63))
	n := 1
	for u >= 0x80 {
		u >>= 7
		n++
	}
	return n
}

func first(s []string, n int) []string {
	if len(s) > n {
		return append(slices.Clone(s[:n]), "...")
	}
	return s
}
