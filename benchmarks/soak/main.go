package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"math"
	"math/rand/v2"
	"os"
	"os/signal"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/lsst-sal/salgo/controller"
	"github.com/lsst-sal/salgo/remote"
	"github.com/lsst-sal/salgo/sal"
	"github.com/lsst-sal/salgo/topics"
	"github.com/lsst-sal/salgo/validate"
	salxml "github.com/lsst-sal/salgo/xml"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	code, err := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	if err != nil {
		fmt.Fprintln(os.Stderr, "soak:", err)
	}
	os.Exit(code)
}

type options struct {
	duration  time.Duration
	every     time.Duration
	warmup    time.Duration
	rate      float64
	cmdRate   float64
	xmlDir    string
	maxGrowth float64
	drain     time.Duration
	verbose   bool
}

// run is the program; it returns the exit code (0 all well, 1 a check
// failed, 2 bad usage or a setup error).
func run(ctx context.Context, args []string, stdout, stderr io.Writer) (int, error) {
	fs := flag.NewFlagSet("soak", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var o options
	fs.DurationVar(&o.duration, "duration", 10*time.Minute, "how long to write")
	fs.DurationVar(&o.every, "every", 30*time.Second, "report interval")
	fs.DurationVar(&o.warmup, "warmup", time.Minute, "the memory baseline is the first report at or after this")
	fs.Float64Var(&o.rate, "rate", 1000, "telemetry records per second")
	fs.Float64Var(&o.cmdRate, "cmd-rate", 100, "commands per second (0: none)")
	fs.StringVar(&o.xmlDir, "xml", os.Getenv(salxml.EnvDir), "ts_xml checkout (default $TS_XML_DIR; empty: the embedded Example component)")
	fs.Float64Var(&o.maxGrowth, "max-growth", 2, "fail if the live heap at the end exceeds this many times the baseline (0: no check)")
	fs.DurationVar(&o.drain, "drain", 30*time.Second, "how long to wait for the last records and acks after writing stops")
	fs.BoolVar(&o.verbose, "v", false, "log the SDK's warnings to stderr")
	if err := fs.Parse(args); err != nil {
		return 2, err
	}
	if fs.NArg() > 0 {
		return 2, fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	if o.duration <= 0 || o.every <= 0 || o.rate <= 0 || o.cmdRate < 0 {
		return 2, errors.New("-duration, -every and -rate must be > 0, -cmd-rate >= 0")
	}
	s, err := setup(ctx, o, stdout, stderr)
	if err != nil {
		return 2, err
	}
	defer s.close()
	return s.soak(ctx, stdout)
}

// soaker holds the running parts and their counters.
type soaker struct {
	o     options
	bus   *sal.Bus
	w     *topics.Writer
	r     *topics.Reader
	recs  []map[string]any
	csc   *sal.CSC
	rem   *sal.Remote
	cmd   string
	what  string
	close func()

	// Telemetry: sent times by seqNum (a ring; the reader is far less than
	// a ring behind), counters.
	sent                    []atomic.Int64
	written, writeErr, late atomic.Uint64
	recvMu                  sync.Mutex
	received, lost, dup     uint64
	lastSeq                 int32
	telWin, telAll          hist
	cmdMu                   sync.Mutex
	cmdWin, cmdAll          hist
	cmdSent, cmdOK, cmdFail atomic.Uint64
	cmdInFlight             atomic.Int64
	cmdSkipped              atomic.Uint64
	cmdErrMu                sync.Mutex
	cmdErrs                 []string
}

const ringSize = 1 << 18 // 262 s at 1 kHz

func setup(ctx context.Context, o options, stdout, stderr io.Writer) (*soaker, error) {
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	if o.verbose {
		logger = slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	}
	defs := salxml.Embedded()
	telComp, telTopic, cscComp := "Example", "", "Example"
	if o.xmlDir != "" {
		d, err := salxml.Open(o.xmlDir)
		if err != nil {
			return nil, err
		}
		defs, telComp, telTopic, cscComp = d, "MTM1M3", "forceActuatorData", "Test"
	}
	cctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	bus, err := sal.Connect(cctx, sal.WithDefinitions(defs), sal.WithLogger(logger),
		sal.WithSubname(fmt.Sprintf("soak%d", time.Now().UnixNano()%1e9)))
	if err != nil {
		return nil, err
	}
	s := &soaker{o: o, bus: bus, sent: make([]atomic.Int64, ringSize)}
	var adm *kadm.Client
	if bus.Embedded() {
		// The embedded broker keeps every record in this process's heap:
		// without retention the heap would grow by the data rate and hide
		// the SDK's own memory. A retention pass every few seconds (set
		// before the SDK creates any topic, which starts kfake's cleaner
		// ticker) and time retention on the busy topics keep it bounded.
		cl, err := kgo.NewClient(kgo.SeedBrokers(bus.Config().Brokers...))
		if err != nil {
			bus.Close()
			return nil, err
		}
		adm = kadm.NewClient(cl)
		defer adm.Close()
		if err := alterConfig(cctx, adm, "", "log.cleaner.backoff.ms", "2000"); err != nil {
			bus.Close()
			return nil, err
		}
	}
	var closers []func()
	s.close = func() {
		for i := len(closers) - 1; i >= 0; i-- {
			closers[i]()
		}
		bus.Close()
	}
	fail := func(err error) (*soaker, error) { s.close(); return nil, err }

	comp, err := bus.Component(telComp)
	if err != nil {
		return fail(err)
	}
	tp := comp.Telemetry(telTopic)
	if telTopic == "" {
		tp = largestTelemetry(comp)
	}
	if tp == nil {
		return fail(fmt.Errorf("%s has no telemetry topic %q", telComp, telTopic))
	}

	// Writer and reader: separate instances, as separate processes would be.
	win, err := bus.NewInstance(comp, 0, "soak-writer")
	if err != nil {
		return fail(err)
	}
	closers = append(closers, win.Close)
	if s.w, err = win.Writer(tp); err != nil {
		return fail(err)
	}
	if err := win.Start(cctx); err != nil {
		return fail(err)
	}
	rin, err := bus.NewInstance(comp, 0, "soak-reader")
	if err != nil {
		return fail(err)
	}
	closers = append(closers, rin.Close)
	if s.r, err = rin.Reader(tp, topics.ReaderOptions{QueueLen: 10000}); err != nil {
		return fail(err)
	}
	if err := rin.Start(cctx); err != nil {
		return fail(err)
	}
	s.r.SetCallback(s.receive)
	val := validate.For(tp)
	rng := rand.New(rand.NewPCG(1, 2))
	for range 16 {
		full := val.Random(rng)
		user := map[string]any{}
		for _, f := range tp.Fields {
			if !f.Private && f.Name != "salIndex" {
				user[f.Name] = full[f.Name]
			}
		}
		s.recs = append(s.recs, user)
	}
	s.what = fmt.Sprintf("%s at %g Hz", tp, o.rate)

	if o.cmdRate > 0 {
		cc, err := bus.Component(cscComp)
		if err != nil {
			return fail(err)
		}
		s.cmd = "setScalars"
		if cc.Command(s.cmd) == nil {
			return fail(fmt.Errorf("%s has no %s command", cscComp, s.cmd))
		}
		s.csc, err = bus.NewCSC(cscComp, 1, controller.WithInitialState(sal.Enabled),
			controller.WithEnabledCommands(s.cmd),
			controller.WithAllowMissing())
		if err != nil {
			return fail(err)
		}
		closers = append(closers, s.csc.Close)
		if err := s.csc.HandleFunc(s.cmd, func(context.Context, *sal.Command) error { return nil }); err != nil {
			return fail(err)
		}
		if err := s.csc.Start(cctx); err != nil {
			return fail(err)
		}
		s.rem, err = bus.NewRemote(cctx, cscComp, 1, remote.WithInclude("summaryState"))
		if err != nil {
			return fail(err)
		}
		closers = append(closers, s.rem.Close)
		s.what += fmt.Sprintf("; %s %s:1 at %g/s", s.cmd, cscComp, o.cmdRate)
	}
	if adm != nil {
		names := []string{tp.KafkaName(bus.Config().Subname)}
		if s.csc != nil {
			names = append(names, s.csc.Component().Command(s.cmd).KafkaName(bus.Config().Subname),
				s.csc.Component().Ack().KafkaName(bus.Config().Subname))
		}
		for _, n := range names {
			if err := alterConfig(cctx, adm, n, "retention.ms", strconv.Itoa(int(retention.Milliseconds()))); err != nil {
				return fail(err)
			}
		}
		s.what += fmt.Sprintf("; embedded broker retention %s on %d topics", retention, len(names))
	}
	fmt.Fprintf(stdout, "soak: %s for %s on %s (embedded %v), %d cores, %s\n",
		s.what, o.duration, strings.Join(bus.Config().Brokers, ","), bus.Embedded(), runtime.NumCPU(), runtime.Version())
	return s, nil
}

// retention is what the embedded broker keeps of the busy topics.
const retention = 20 * time.Second

// alterConfig sets one configuration value of a topic, or of the whole
// cluster when topic is "".
func alterConfig(ctx context.Context, adm *kadm.Client, topic, key, value string) error {
	alter := []kadm.AlterConfig{{Op: kadm.SetConfig, Name: key, Value: &value}}
	var rs kadm.AlterConfigsResponses
	var err error
	if topic == "" {
		rs, err = adm.AlterBrokerConfigs(ctx, alter)
	} else {
		rs, err = adm.AlterTopicConfigs(ctx, alter, topic)
	}
	for _, r := range rs {
		if err == nil && r.Err != nil {
			err = fmt.Errorf("%w (%s)", r.Err, r.ErrMessage)
		}
	}
	if err != nil {
		return fmt.Errorf("set %s=%s on the embedded broker (topic %q): %w", key, value, topic, err)
	}
	return nil
}

// largestTelemetry returns the telemetry topic of comp with the most bytes
// of fixed-size fields.
func largestTelemetry(comp *salxml.Component) *salxml.Topic {
	var best *salxml.Topic
	bestSize := -1
	for _, tp := range comp.TopicsOf(salxml.Telemetry) {
		size := 0
		for _, f := range tp.Fields {
			n := max(f.Count, 1)
			size += n * typeSize(f.Type)
		}
		if size > bestSize {
			best, bestSize = tp, size
		}
	}
	return best
}

func typeSize(t salxml.Type) int {
	switch t {
	case salxml.Boolean, salxml.Byte:
		return 1
	case salxml.Short, salxml.UnsignedShort:
		return 2
	case salxml.Int, salxml.Long, salxml.UnsignedInt, salxml.Float:
		return 4
	default:
		return 8
	}
}

// receive is the reader callback: seqNum checks and latency.
func (s *soaker) receive(rec map[string]any) {
	got := time.Now().UnixNano()
	seq, _ := rec["private_seqNum"].(int32)
	s.recvMu.Lock()
	defer s.recvMu.Unlock()
	s.received++
	switch {
	case seq <= s.lastSeq:
		s.dup++
		return
	case seq > s.lastSeq+1:
		s.lost += uint64(seq - s.lastSeq - 1)
	}
	s.lastSeq = seq
	if t := s.sent[int(seq)%ringSize].Load(); t > 0 {
		d := time.Duration(got - t)
		s.telWin.add(d)
		s.telAll.add(d)
	}
}

// soak runs the load for o.duration, reporting every o.every.
func (s *soaker) soak(ctx context.Context, stdout io.Writer) (int, error) {
	o := s.o
	start := time.Now()
	wctx, stopWriting := context.WithCancel(ctx)
	defer stopWriting()
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { defer wg.Done(); s.writeLoop(wctx, start) }()
	if s.rem != nil {
		wg.Add(1)
		go func() { defer wg.Done(); s.commandLoop(wctx, start) }()
	}

	fmt.Fprintf(stdout, "%8s %9s %9s %5s %4s %8s %8s %8s %7s %5s %8s %8s %9s %6s %8s\n",
		"elapsed", "written", "received", "lost", "dup", "p50", "p99", "max", "cmds", "fail", "cmd-p50", "cmd-p99", "heap-live", "gorout", "rss")
	var heaps []uint64
	var baseline uint64
	end := time.NewTimer(o.duration)
	defer end.Stop()
	tick := time.NewTicker(o.every)
	defer tick.Stop()
	interrupted := false
loop:
	for {
		select {
		case <-tick.C:
			h := s.report(stdout, time.Since(start))
			heaps = append(heaps, h)
			if baseline == 0 && time.Since(start) >= o.warmup {
				baseline = h
			}
		case <-end.C:
			break loop
		case <-ctx.Done():
			interrupted = true
			break loop
		}
	}
	stopWriting()
	wg.Wait()
	elapsed := time.Since(start)

	// Drain: wait until the reader has the last record and every command
	// is answered (bounded by -drain).
	deadline := time.Now().Add(o.drain)
	for time.Now().Before(deadline) {
		s.recvMu.Lock()
		caught := uint64(s.lastSeq) >= s.written.Load()
		s.recvMu.Unlock()
		if caught && s.cmdInFlight.Load() == 0 {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	endHeap := s.report(stdout, time.Since(start))

	s.recvMu.Lock()
	written := s.written.Load()
	tail := uint64(0)
	if written > uint64(s.lastSeq) {
		tail = written - uint64(s.lastSeq) // never arrived
	}
	lost, dup, received := s.lost+tail, s.dup, s.received
	tel := s.telAll.summary()
	s.recvMu.Unlock()
	s.cmdMu.Lock()
	cmd := s.cmdAll.summary()
	s.cmdMu.Unlock()
	rs := s.r.Stats()

	fmt.Fprintf(stdout, "\nsummary after %s (%s)\n", elapsed.Round(time.Second), s.what)
	fmt.Fprintf(stdout, "  telemetry: %d written (%.1f/s; %d write errors, %d ticks late and caught up), %d received, %d lost (%d in gaps, %d never arrived), %d duplicated\n",
		written, float64(written)/elapsed.Seconds(), s.writeErr.Load(), s.late.Load(), received, lost, s.lost, tail, dup)
	fmt.Fprintf(stdout, "  telemetry latency: %s\n", tel)
	fmt.Fprintf(stdout, "  reader stats: %+v\n", rs)
	if s.rem != nil {
		fmt.Fprintf(stdout, "  commands: %d sent (%.1f/s), %d completed, %d failed, %d ticks skipped (too many in flight)\n",
			s.cmdSent.Load(), float64(s.cmdSent.Load())/elapsed.Seconds(), s.cmdOK.Load(), s.cmdFail.Load(), s.cmdSkipped.Load())
		fmt.Fprintf(stdout, "  command round trip: %s\n", cmd)
		fmt.Fprintf(stdout, "  controller stats: %+v\n", s.csc.Stats())
		s.cmdErrMu.Lock()
		for _, e := range s.cmdErrs {
			fmt.Fprintf(stdout, "  command error: %s\n", e)
		}
		s.cmdErrMu.Unlock()
	}
	fmt.Fprintf(stdout, "  live heap per report (MiB): %s\n", mibs(heaps))

	code := 0
	check := func(ok bool, format string, args ...any) {
		verdict := "ok  "
		if !ok {
			verdict, code = "FAIL", 1
		}
		fmt.Fprintf(stdout, "  %s %s\n", verdict, fmt.Sprintf(format, args...))
	}
	check(lost == 0, "no record lost (%d)", lost)
	check(dup == 0, "no record duplicated (%d)", dup)
	check(s.writeErr.Load() == 0, "no write failed (%d)", s.writeErr.Load())
	if s.rem != nil {
		check(s.cmdFail.Load() == 0, "no command failed (%d)", s.cmdFail.Load())
	}
	switch {
	case o.maxGrowth <= 0:
		fmt.Fprintf(stdout, "  skip memory check (-max-growth 0)\n")
	case baseline == 0:
		fmt.Fprintf(stdout, "  skip memory check: no report after the %s warm-up\n", o.warmup)
	default:
		check(float64(endHeap) <= o.maxGrowth*float64(baseline), "live heap at the end %.1f MiB <= %g x %.1f MiB (the first report after the %s warm-up)",
			mib(endHeap), o.maxGrowth, mib(baseline), o.warmup)
	}
	if interrupted {
		fmt.Fprintln(stdout, "  interrupted before -duration")
	}
	return code, nil
}

// writeLoop writes telemetry at o.rate until ctx is done. A ticker wakes
// it; each wake writes as many records as the elapsed time calls for, so
// a late wake is caught up and the average rate is kept.
func (s *soaker) writeLoop(ctx context.Context, start time.Time) {
	period := time.Duration(float64(time.Second) / s.o.rate)
	pace(ctx, start, period, &s.late, func(i uint64) {
		seq := i // the writer's seqNums run 1, 2, ... in write order
		s.sent[int(seq)%ringSize].Store(time.Now().UnixNano())
		// Not ctx: a record queued when writing stops must still go out.
		if err := s.w.WriteAsync(context.Background(), s.recs[i%uint64(len(s.recs))], func(_ topics.WriteResult, err error) {
			if err != nil {
				s.writeErr.Add(1)
			}
		}); err != nil {
			s.writeErr.Add(1)
		}
		s.written.Add(1)
	})
}

// commandLoop sends commands at o.cmdRate, each from its own goroutine so
// that a slow round trip does not lower the rate (at most 1000 in flight).
func (s *soaker) commandLoop(ctx context.Context, start time.Time) {
	period := time.Duration(float64(time.Second) / s.o.cmdRate)
	var late atomic.Uint64
	var wg sync.WaitGroup
	pace(ctx, start, period, &late, func(uint64) {
		if s.cmdInFlight.Load() >= 1000 {
			s.cmdSkipped.Add(1)
			return
		}
		s.cmdSent.Add(1)
		s.cmdInFlight.Add(1)
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer s.cmdInFlight.Add(-1)
			cctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			t0 := time.Now()
			_, err := s.rem.Command(cctx, s.cmd, nil, remote.WithTimeout(20*time.Second))
			d := time.Since(t0)
			if err != nil {
				s.cmdFail.Add(1)
				s.cmdErrMu.Lock()
				if len(s.cmdErrs) < 5 {
					s.cmdErrs = append(s.cmdErrs, err.Error())
				}
				s.cmdErrMu.Unlock()
				return
			}
			s.cmdOK.Add(1)
			s.cmdMu.Lock()
			s.cmdWin.add(d)
			s.cmdAll.add(d)
			s.cmdMu.Unlock()
		}()
	})
	wg.Wait()
}

// pace calls do(i) for i = 1, 2, ... so that i calls are made by
// start + i*period, until ctx is done. Wakes that find more than one call
// due are counted in late.
func pace(ctx context.Context, start time.Time, period time.Duration, late *atomic.Uint64, do func(i uint64)) {
	tick := time.NewTicker(period)
	defer tick.Stop()
	var done uint64
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		due := uint64(time.Since(start) / period)
		if due > done+1 {
			late.Add(1)
		}
		for done < due && ctx.Err() == nil {
			done++
			do(done)
		}
	}
}

// report prints one line for the interval since the last one and returns
// the live heap.
func (s *soaker) report(stdout io.Writer, elapsed time.Duration) uint64 {
	s.recvMu.Lock()
	received, lost, dup := s.received, s.lost, s.dup
	tel := s.telWin
	s.telWin = hist{}
	s.recvMu.Unlock()
	s.cmdMu.Lock()
	cmd := s.cmdWin
	s.cmdWin = hist{}
	s.cmdMu.Unlock()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	fmt.Fprintf(stdout, "%8s %9d %9d %5d %4d %8s %8s %8s %7d %5d %8s %8s %8.1fM %6d %7.1fM\n",
		elapsed.Round(time.Second), s.written.Load(), received, lost, dup,
		dur(tel.quantile(0.5)), dur(tel.quantile(0.99)), dur(tel.max),
		s.cmdSent.Load(), s.cmdFail.Load(), dur(cmd.quantile(0.5)), dur(cmd.quantile(0.99)),
		mib(ms.HeapAlloc), runtime.NumGoroutine(), mib(rss()))
	return ms.HeapAlloc
}

// hist is a log-bucketed latency histogram (buckets 1% wide from 1 µs),
// so percentiles over any run length take constant memory.
type hist struct {
	n      uint64
	sum    time.Duration
	max    time.Duration
	counts [histBuckets]uint32
}

const histBuckets = 1900 // 1 µs * 1.01^1900 > 100 s

func bucket(d time.Duration) int {
	us := float64(d) / 1e3
	if us <= 1 {
		return 0
	}
	return min(histBuckets-1, int(math.Log(us)/math.Log(1.01))+1)
}

func (h *hist) add(d time.Duration) {
	h.n++
	h.sum += d
	h.max = max(h.max, d)
	h.counts[bucket(d)]++
}

// quantile returns the upper edge of the bucket holding quantile q (0
// when empty), capped at the maximum seen.
func (h *hist) quantile(q float64) time.Duration {
	if h.n == 0 {
		return 0
	}
	want := uint64(math.Ceil(q * float64(h.n)))
	var c uint64
	for i, k := range h.counts {
		c += uint64(k)
		if c >= want {
			return min(h.max, time.Duration(math.Pow(1.01, float64(i))*1e3))
		}
	}
	return h.max
}

func (h *hist) summary() string {
	if h.n == 0 {
		return "no samples"
	}
	return fmt.Sprintf("%d samples, mean %s, p50 %s, p90 %s, p99 %s, p99.9 %s, max %s",
		h.n, dur(h.sum/time.Duration(h.n)), dur(h.quantile(0.5)), dur(h.quantile(0.9)),
		dur(h.quantile(0.99)), dur(h.quantile(0.999)), dur(h.max))
}

// dur prints a duration with 3 significant digits.
func dur(d time.Duration) string {
	switch {
	case d == 0:
		return "-"
	case d < time.Millisecond:
		return fmt.Sprintf("%dµs", d.Microseconds())
	case d < time.Second:
		return strconv.FormatFloat(float64(d)/1e6, 'f', 2, 64) + "ms"
	}
	return strconv.FormatFloat(d.Seconds(), 'f', 2, 64) + "s"
}

func mib(b uint64) float64 { return float64(b) / (1 << 20) }

func mibs(hs []uint64) string {
	parts := make([]string, len(hs))
	for i, h := range hs {
		parts[i] = strconv.FormatFloat(mib(h), 'f', 1, 64)
	}
	return strings.Join(parts, " ")
}

// rss is the resident set size from /proc/self/statm (0 where there is none).
func rss() uint64 {
	b, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		return 0
	}
	f := strings.Fields(string(b))
	if len(f) < 2 {
		return 0
	}
	pages, err := strconv.ParseUint(f[1], 10, 64)
	if err != nil {
		return 0
	}
	return pages * uint64(os.Getpagesize())
}
