package benchmarks

import (
	"context"
	"fmt"
	"os"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/lsst-sal/salgo/internal/codec"
	"github.com/lsst-sal/salgo/remote"
	"github.com/lsst-sal/salgo/sal"
	"github.com/lsst-sal/salgo/topics"
	"github.com/lsst-sal/salgo/validate"
	salxml "github.com/lsst-sal/salgo/xml"
)

// pingPong is the raw baseline of a command round trip: two franz-go
// clients with the SDK's settings (the producer's: no linger, acks=1, no
// idempotence; the consumer's: franz-go's fetch wait, partitions assigned
// directly, no group). A produces a record the size of a setScalars
// command to topic x; B's poll goroutine consumes x and produces the reply
// to y; A consumes y. Two Kafka hops, as a command and its ack, with
// nothing else on the path.
type pingPong struct {
	a, b  *kgo.Client
	x, y  string
	value []byte
	stop  func()
}

// setScalarsValue is a framed setScalars command at its defaults, as
// BenchmarkCommandRoundTrip sends it.
func setScalarsValue(tb testing.TB) []byte {
	tb.Helper()
	c, err := salxml.Embedded().Component("Example")
	if err != nil {
		tb.Fatal(err)
	}
	t := c.Command("setScalars")
	val := validate.Compile(t)
	rec := val.New()
	rec["private_revCode"] = t.RevCode()
	rec["private_identity"] = "user@host.example.org"
	rec["private_seqNum"] = int32(123456789)
	rec["private_origin"] = int32(os.Getpid())
	rec["private_sndStamp"] = topics.TAI()
	rec["salIndex"] = int32(1)
	if err := val.Validate(rec); err != nil {
		tb.Fatal(err)
	}
	cd, err := codec.New(t)
	if err != nil {
		tb.Fatal(err)
	}
	buf, err := cd.Append(codec.AppendHeader(nil, 1), rec)
	if err != nil {
		tb.Fatal(err)
	}
	return buf
}

func newPingPong(b *testing.B, bus *sal.Bus) *pingPong { return newPingPongIdle(b, bus, 0) }

// newPingPongIdle is newPingPong with B also consuming idle partitions of
// its own, as a Controller consumes every command topic of its component.
func newPingPongIdle(b *testing.B, bus *sal.Bus, idle int) *pingPong {
	b.Helper()
	sub := bus.Config().Subname
	p := &pingPong{x: "raw." + sub + ".ping", y: "raw." + sub + ".pong", value: setScalarsValue(b)}
	var idles []string
	for i := range idle {
		idles = append(idles, fmt.Sprintf("%s.idle%d", p.x, i))
	}
	client := func(topic string) *kgo.Client {
		parts := map[string]map[int32]kgo.Offset{topic: {0: kgo.NewOffset().At(0)}} // as internal/kafka's consumer: exact offsets, franz-go's fetch wait
		if topic == p.x {
			for _, t := range idles {
				parts[t] = map[int32]kgo.Offset{0: kgo.NewOffset().At(0)}
			}
		}
		opts := append(kafkaRawOpts(bus), kgo.ConsumePartitions(parts))
		cl, err := kgo.NewClient(opts...)
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(cl.Close)
		return cl
	}
	// Create the topics before the consumers start, with the settings the
	// SDK uses on this broker.
	admin, err := kgo.NewClient(kafkaRawOpts(bus)...)
	if err != nil {
		b.Fatal(err)
	}
	env := &kafkaEnv{Bus: bus, Raw: admin}
	env.CreateTopic(b, p.x, 1)
	env.CreateTopic(b, p.y, 1)
	for _, t := range idles {
		env.CreateTopic(b, t, 1)
	}
	admin.Close()
	p.a, p.b = client(p.y), client(p.x)

	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { // B: answer every ping
		defer wg.Done()
		for {
			fs := p.b.PollFetches(ctx)
			if fs.IsClientClosed() || ctx.Err() != nil {
				return
			}
			fs.EachRecord(func(r *kgo.Record) {
				p.b.Produce(ctx, &kgo.Record{Topic: p.y, Value: r.Value}, nil)
			})
		}
	}()
	p.stop = func() { cancel(); wg.Wait() }
	b.Cleanup(p.stop)
	p.rounds(b, 20, nil) // warm up connections and metadata
	return p
}

// rounds runs n sequential round trips, appending each one's latency to
// lat (if not nil).
func (p *pingPong) rounds(b *testing.B, n int, lat *[]time.Duration) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	for range n {
		t0 := time.Now()
		p.a.Produce(ctx, &kgo.Record{Topic: p.x, Value: p.value}, nil)
		for got := 0; got == 0; {
			fs := p.a.PollFetches(ctx)
			if fs.IsClientClosed() || ctx.Err() != nil {
				b.Fatalf("raw ping-pong: no pong within a minute: %v", ctx.Err())
			}
			fs.EachError(func(t string, part int32, err error) {
				// A just-created topic can briefly be unknown to the
				// broker's metadata: franz-go retries those by itself.
				if !kerr.IsRetriable(err) {
					b.Fatalf("raw ping-pong: fetch %s[%d]: %v", t, part, err)
				}
			})
			got = fs.NumRecords()
		}
		if lat != nil {
			*lat = append(*lat, time.Since(t0))
		}
	}
}

// BenchmarkPingPong is the raw franz-go round trip alone.
func BenchmarkPingPong(b *testing.B) {
	p := newPingPong(b, benchBus(b))
	lat := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	start := time.Now()
	p.rounds(b, b.N, &lat)
	el := time.Since(start)
	b.StopTimer()
	b.ReportMetric(float64(b.N)/el.Seconds(), "rt/s")
	reportLatency(b, lat)
}

// BenchmarkPingPongIdle is the raw round trip with B also fetching idle
// partitions, 0, 9 (a Controller of Example reads 10 command topics) and
// 30: what fetching partitions that have nothing costs on each wake.
func BenchmarkPingPongIdle(b *testing.B) {
	for _, n := range []int{0, 9, 30} {
		b.Run(fmt.Sprintf("idle=%d", n), func(b *testing.B) {
			p := newPingPongIdle(b, benchBus(b), n)
			b.ResetTimer()
			start := time.Now()
			p.rounds(b, b.N, nil)
			b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "rt/s")
		})
	}
}

// BenchmarkCommandVsRaw runs BenchmarkCommandRoundTrip's sequential case
// (a Remote sends setScalars to a Controller and waits for CMD_COMPLETE)
// and the raw ping-pong on the same broker, interleaved in chunks, and
// reports x-raw = SDK rate / raw rate. remote=all is the Remote of
// BenchmarkCommandRoundTrip (it reads every event and telemetry topic, 16
// partitions fetched by one consumer, as ts_salobj's); remote=one reads one
// event besides the acks (remote.WithInclude), to show what fetching the
// other partitions costs on each wake.
func BenchmarkCommandVsRaw(b *testing.B) {
	b.Run("remote=all", func(b *testing.B) { benchCommandVsRaw(b) })
	b.Run("remote=one", func(b *testing.B) { benchCommandVsRaw(b, remote.WithInclude("heartbeat")) })
}

func benchCommandVsRaw(b *testing.B, opts ...sal.RemoteOption) {
	ctx := context.Background()
	bus, r := commandPair(b, opts...)
	p := newPingPong(b, bus)
	for range 20 {
		if _, err := r.Command(ctx, "setScalars", nil); err != nil {
			b.Fatal(err)
		}
	}
	sdkLat := make([]time.Duration, 0, b.N)
	rawLat := make([]time.Duration, 0, b.N)
	warm := true
	raw := func(from, to int) {
		if warm {
			p.rounds(b, to-from, nil)
			return
		}
		p.rounds(b, to-from, &rawLat)
	}
	sdk := func(from, to int) {
		for range to - from {
			t0 := time.Now()
			if _, err := r.Command(ctx, "setScalars", nil); err != nil {
				b.Fatal(err)
			}
			if !warm {
				sdkLat = append(sdkLat, time.Since(t0))
			}
		}
	}
	b.ReportAllocs()
	chunk := max(1, min(250, b.N))
	rawT, sdkT := interleave(b, b.N, chunk, raw, func(from, to int) {
		sdk(from, to)
		warm = false // interleave's untimed chunks (raw, then sdk) are done
	})
	b.StopTimer()
	sdkRate := float64(b.N) / sdkT.Seconds()
	rawRate := float64(b.N) / rawT.Seconds()
	b.ReportMetric(float64(sdkT.Nanoseconds())/float64(b.N), "ns/op")
	b.ReportMetric(sdkRate, "cmds/s")
	b.ReportMetric(rawRate, "raw-rt/s")
	b.ReportMetric(sdkRate/rawRate, "x-raw")
	reportLatency(b, sdkLat)
	reportPct(b, rawLat, "raw-")
}

// reportPct reports p50 and p99 of lat under the given prefix.
func reportPct(b *testing.B, lat []time.Duration, prefix string) {
	saved := slices.Clone(lat)
	slices.Sort(saved)
	pct := func(p float64) float64 {
		return float64(saved[min(len(saved)-1, int(p*float64(len(saved))))].Microseconds())
	}
	b.ReportMetric(pct(0.50), prefix+"p50-µs")
	b.ReportMetric(pct(0.99), prefix+"p99-µs")
}
