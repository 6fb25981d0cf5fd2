package faults

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/lsst-sal/salgo/internal/embedded"
	"github.com/lsst-sal/salgo/remote"
	"github.com/lsst-sal/salgo/sal"
	"github.com/lsst-sal/salgo/topics"
	salxml "github.com/lsst-sal/salgo/xml"
)

// Environment variables of the fault tests (besides TS_XML_DIR and
// LSST_SCHEMA_REGISTRY_URL).
const (
	envFaults  = "SALGO_FAULTS"      // 1 runs the tests
	envKafkaSh = "SALGO_KAFKA_SH"    // path of scripts/kafka/kafka.sh
	envPort    = "SALGO_FAULTS_PORT" // first port to try
)

// faultEnv is what every fault test needs: kafka.sh and a registry.
type faultEnv struct {
	kafkaSh  string
	registry string
}

func needFaults(t *testing.T) *faultEnv {
	t.Helper()
	if os.Getenv(envFaults) != "1" {
		t.Skip(envFaults + " is not 1: the fault tests start, kill and restart their own Kafka brokers with scripts/kafka/kafka.sh " +
			"(Java 17+, Maven); run them with SALGO_FAULTS=1 (scripts/ci-integration.sh does)")
	}
	if os.Getenv(salxml.EnvDir) == "" {
		t.Skip(salxml.EnvDir + " is unset: the fault tests stream MTM1M3 forceActuatorData, which only ts_xml defines")
	}
	sh := os.Getenv(envKafkaSh)
	if sh == "" {
		sh = filepath.Join("..", "..", "scripts", "kafka", "kafka.sh")
	}
	sh, err := filepath.Abs(sh)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(sh); err != nil {
		t.Fatalf("%s=%q: %v", envKafkaSh, sh, err)
	}
	e := &faultEnv{kafkaSh: sh, registry: os.Getenv(topics.EnvRegistry)}
	if e.registry == "" {
		// The registry is not under test: the SDK's in-process one will do.
		c, err := embedded.Start(embedded.Options{})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(c.Close)
		e.registry = c.RegistryURL()
	}
	return e
}

// --- brokers ---------------------------------------------------------------

// brokers is a single broker (kafka.sh start) or a cluster (kafka.sh
// cluster-start) in a run folder of its own, on ports of its own.
type brokers struct {
	t     *testing.T
	sh    string
	dir   string
	env   []string // KAFKA_* ports for kafka.sh
	addrs []string // PLAINTEXT addresses, node i at addrs[i-1]
	nodes int      // 0 for a single broker
}

// portBlock returns the first base port (from SALGO_FAULTS_PORT, default
// 29092, in steps of 100) at which base+o is free for every offset.
func portBlock(t *testing.T, offsets ...int) int {
	t.Helper()
	start := 29092
	if v := os.Getenv(envPort); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1024 || n > 60000 {
			t.Fatalf("%s=%q is not a port between 1024 and 60000", envPort, v)
		}
		start = n
	}
	for base := start; base+100 < 65535 && base < start+5000; base += 100 {
		free := true
		for _, o := range offsets {
			ln, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", base+o))
			if err != nil {
				free = false
				break
			}
			ln.Close()
		}
		if free {
			return base
		}
	}
	t.Fatalf("no free block of ports from %d (set %s)", start, envPort)
	return 0
}

// kafkaEnv is the environment for kafka.sh without the variables of
// another broker (CI exports those of its shared broker).
func kafkaEnv(extra []string) []string {
	var out []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		switch k {
		case "KAFKA_RUN_DIR", "KAFKA_PID", "KAFKA_MTLS", "KAFKA_EXTRA_PROPS", "KAFKA_PORT", "KAFKA_SSL_PORT",
			"KAFKA_SASL_PORT", "KAFKA_CONTROLLER_PORT", "KAFKA_CLUSTER_SIZE", "KAFKA_HEAP_OPTS":
			continue
		}
		out = append(out, kv)
	}
	return append(out, extra...)
}

// run runs kafka.sh with args and returns its stdout; its stderr goes to
// the test log. A kafka.sh that runs longer than 4 minutes is killed.
func (b *brokers) run(args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", append([]string{b.sh}, args...)...)
	cmd.Env = kafkaEnv(b.env)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	t0 := time.Now()
	err := cmd.Run()
	msg := strings.TrimSpace(errb.String())
	if err != nil {
		return out.String(), fmt.Errorf("kafka.sh %s: %v after %.1f s:\n%s", strings.Join(args, " "), err, time.Since(t0).Seconds(), msg)
	}
	b.t.Logf("kafka.sh %s (%.1f s): %s", strings.Join(args, " "), time.Since(t0).Seconds(), lastLine(msg))
	return out.String(), nil
}

func (b *brokers) must(args ...string) string {
	b.t.Helper()
	out, err := b.run(args...)
	if err != nil {
		b.t.Fatal(err)
	}
	return out
}

func lastLine(s string) string {
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		return s[i+1:]
	}
	return s
}

// startBroker starts a single broker (PLAINTEXT, SSL, SASL and controller
// ports base..base+3) in a fresh run folder; it is stopped and its folder
// removed when the test ends.
func (e *faultEnv) startBroker(t *testing.T) *brokers {
	t.Helper()
	base := portBlock(t, 0, 1, 2, 3)
	dir, err := os.MkdirTemp("", "salgo-faults-kafka.")
	if err != nil {
		t.Fatal(err)
	}
	b := &brokers{t: t, sh: e.kafkaSh, dir: dir, env: []string{
		fmt.Sprintf("KAFKA_PORT=%d", base), fmt.Sprintf("KAFKA_SSL_PORT=%d", base+1),
		fmt.Sprintf("KAFKA_SASL_PORT=%d", base+2), fmt.Sprintf("KAFKA_CONTROLLER_PORT=%d", base+3),
		"KAFKA_HEAP_OPTS=-Xms128m -Xmx384m",
	}, addrs: []string{fmt.Sprintf("127.0.0.1:%d", base)}}
	t.Cleanup(func() { b.cleanup("stop") })
	b.must("start", dir)
	return b
}

// startCluster starts an n-node cluster (kafka.sh cluster-start).
func (e *faultEnv) startCluster(t *testing.T, n int) *brokers {
	t.Helper()
	var offs []int
	for i := range n {
		offs = append(offs, 10*i, 10*i+3)
	}
	base := portBlock(t, offs...)
	dir, err := os.MkdirTemp("", "salgo-faults-cluster.")
	if err != nil {
		t.Fatal(err)
	}
	b := &brokers{t: t, sh: e.kafkaSh, dir: dir, nodes: n, env: []string{
		fmt.Sprintf("KAFKA_PORT=%d", base), fmt.Sprintf("KAFKA_CONTROLLER_PORT=%d", base+3),
	}}
	for i := range n {
		b.addrs = append(b.addrs, fmt.Sprintf("127.0.0.1:%d", base+10*i))
	}
	t.Cleanup(func() { b.cleanup("cluster-stop") })
	b.must("cluster-start", strconv.Itoa(n), dir)
	return b
}

// cleanup stops the brokers and removes their folder; when the test
// failed it first shows the end of each broker log.
func (b *brokers) cleanup(verb string) {
	if b.t.Failed() {
		logs, _ := filepath.Glob(filepath.Join(b.dir, "broker.log"))
		more, _ := filepath.Glob(filepath.Join(b.dir, "node*", "broker.log"))
		for _, f := range append(logs, more...) {
			data, _ := os.ReadFile(f)
			lines := strings.Split(strings.TrimSpace(string(data)), "\n")
			b.t.Logf("--- last lines of %s:\n%s", f, strings.Join(lines[max(0, len(lines)-15):], "\n"))
		}
	}
	if _, err := b.run(verb, "--clean", b.dir); err != nil {
		b.t.Errorf("stopping the brokers: %v", err)
	}
}

var leaderRE = regexp.MustCompile(`Partition: 0\s+Leader: (-?\d+)\s+Replicas: ([\d,]+)\s+Isr: ([\d,]*)`)

// leader returns the leader node of partition 0 of topic and its in-sync
// replicas, as the Kafka tools describe them (a JVM start: a few seconds).
func (b *brokers) leader(topic string) (int, string, error) {
	out, err := b.run("tool", "org.apache.kafka.tools.TopicCommand", "--bootstrap-server", strings.Join(b.addrs, ","), "--describe", "--topic", topic)
	if err != nil {
		return 0, "", err
	}
	m := leaderRE.FindStringSubmatch(out)
	if m == nil {
		return 0, "", fmt.Errorf("no leader of %s[0] in the TopicCommand output:\n%s", topic, out)
	}
	id, _ := strconv.Atoi(m[1])
	return id, "replicas " + m[2] + ", in sync " + m[3], nil
}

// --- the SDK side ------------------------------------------------------------

// subname returns a topic subname unique to the test and the moment.
func subname(t *testing.T) string {
	name := strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' {
			return r
		}
		return '_'
	}, t.Name())
	return fmt.Sprintf("faults_%s_%d", name, time.Now().UnixNano()%1e9)
}

// connect makes a Bus on addrs with the given acks ("all" means acks=all
// with the idempotent producer) and topic subname.
func (e *faultEnv) connect(t *testing.T, addrs []string, acks, sub string, logs *logCapture) *sal.Bus {
	t.Helper()
	opts := []sal.Option{
		sal.WithBrokers(addrs...), sal.WithRegistry(e.registry), sal.WithSubname(sub),
		sal.WithLogger(slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelWarn}))),
	}
	if acks == "all" {
		opts = append(opts, sal.WithIdempotence())
	} else {
		t.Setenv(topics.EnvIdempotent, "false")
		opts = append(opts, sal.WithAcks(acks))
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	b, err := sal.Connect(ctx, opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := b.Close(); err != nil {
			t.Errorf("closing the bus: %v", err)
		}
	})
	return b
}

// logCapture keeps the SDK's warnings: a count, the first and the last
// few lines (and all of them on stderr with SALGO_TEST_LOG set).
type logCapture struct {
	mu          sync.Mutex
	n           int
	first, last []string
}

func (l *logCapture) Write(p []byte) (int, error) {
	if os.Getenv("SALGO_TEST_LOG") != "" {
		os.Stderr.Write(p)
	}
	line := strings.TrimSpace(string(p))
	if len(line) > 400 {
		line = line[:400] + "..."
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.n++
	if len(l.first) < 5 {
		l.first = append(l.first, line)
	} else {
		l.last = append(l.last, line)
		if len(l.last) > 5 {
			l.last = l.last[1:]
		}
	}
	return len(p), nil
}

func (l *logCapture) report(t *testing.T) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.n == 0 {
		return
	}
	t.Logf("the SDK logged %d warnings or errors; first and last:\n  %s\n  ...\n  %s", l.n, strings.Join(l.first, "\n  "), strings.Join(l.last, "\n  "))
}

var _ io.Writer = (*logCapture)(nil)

// stream writes one topic at a fixed rate with WriteAsync and records the
// outcome of every private_seqNum.
type stream struct {
	w    *topics.Writer
	rate int

	mu       sync.Mutex
	outcome  map[int32]bool // seqNum -> acknowledged (false: failed)
	firstErr error
	maxLat   time.Duration
	sent     atomic.Int64 // records handed to WriteAsync
	lastSeq  atomic.Int32 // private_seqNum of the newest record handed over
	reported atomic.Int64 // outcomes reported

	stop chan struct{}
	done chan struct{}
}

func newStream(w *topics.Writer, rate int) *stream {
	return &stream{w: w, rate: rate, outcome: make(map[int32]bool, 1<<16), stop: make(chan struct{}), done: make(chan struct{})}
}

// run writes until stop; when it falls behind (a blocked WriteAsync) it
// skips ahead rather than bursting more than a second's worth.
func (s *stream) run(t *testing.T) {
	defer close(s.done)
	rec := s.w.New()
	start := time.Now()
	n := 0
	for {
		select {
		case <-s.stop:
			return
		default:
		}
		due := int(time.Since(start) * time.Duration(s.rate) / time.Second)
		if due-n > s.rate {
			n = due - s.rate
		}
		for ; n < due; n++ {
			err := s.w.WriteAsync(context.Background(), rec, s.report)
			if err != nil {
				t.Errorf("WriteAsync: %v", err)
				return
			}
			s.sent.Add(1)
			seq, _ := rec["private_seqNum"].(int32)
			s.lastSeq.Store(seq)
		}
		time.Sleep(time.Millisecond)
	}
}

func (s *stream) report(r topics.WriteResult, err error) {
	s.mu.Lock()
	s.outcome[r.SeqNum] = err == nil
	if err != nil && s.firstErr == nil {
		s.firstErr = err
	}
	if err == nil && r.Latency > s.maxLat {
		s.maxLat = r.Latency
	}
	s.mu.Unlock()
	s.reported.Add(1)
}

func (s *stream) halt() {
	close(s.stop)
	<-s.done
}

// arrivals records what a reader delivered: how often each
// private_seqNum came, and the longest silence between two records.
type arrivals struct {
	mu     sync.Mutex
	count  map[int32]int
	maxSeq int32
	last   time.Time
	maxGap time.Duration
	pauses []time.Duration // silences over a second, in order
}

func newArrivals() *arrivals { return &arrivals{count: make(map[int32]int, 1<<16)} }

func (a *arrivals) add(rec map[string]any) {
	now := time.Now()
	seq, _ := rec["private_seqNum"].(int32)
	a.mu.Lock()
	defer a.mu.Unlock()
	a.count[seq]++
	a.maxSeq = max(a.maxSeq, seq)
	if gap := now.Sub(a.last); !a.last.IsZero() {
		a.maxGap = max(a.maxGap, gap)
		if gap > time.Second {
			a.pauses = append(a.pauses, gap)
		}
	}
	a.last = now
}

func (a *arrivals) unique() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return len(a.count)
}

func (a *arrivals) newest() int32 {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.maxSeq
}

// tally compares what the writer reported with what the reader got.
type tally struct {
	sent, acked, failed int
	unique, duplicates  int // seqNums received, and extra copies
	ackedMissing        int // acknowledged, never received
	failedMissing       int // failed, never received, below the newest received (a seqNum gap)
	failedDelivered     int // reported failed, yet received
	ackedAfterLast      int // acknowledged, above the newest received
	pending             int // no outcome reported
	maxGap              time.Duration
	pauses              []time.Duration
	maxLat              time.Duration
	firstErr            error
	missingSample       []int32
}

func (s *stream) tally(a *arrivals) tally {
	s.mu.Lock()
	defer s.mu.Unlock()
	a.mu.Lock()
	defer a.mu.Unlock()
	r := tally{sent: int(s.sent.Load()), unique: len(a.count), maxGap: a.maxGap, pauses: append([]time.Duration(nil), a.pauses...),
		maxLat: s.maxLat, firstErr: s.firstErr}
	for seq, ok := range s.outcome {
		_, got := a.count[seq]
		switch {
		case ok:
			r.acked++
			if !got {
				r.ackedMissing++
				if seq > a.maxSeq {
					r.ackedAfterLast++
				}
				if len(r.missingSample) < 10 {
					r.missingSample = append(r.missingSample, seq)
				}
			}
		default:
			r.failed++
			if got {
				r.failedDelivered++
			} else if seq < a.maxSeq {
				r.failedMissing++
			}
		}
	}
	for _, n := range a.count {
		r.duplicates += n - 1
	}
	r.pending = r.sent - len(s.outcome)
	return r
}

// commander sends commands at a fixed rate, each on its own goroutine
// with a generous deadline, and records how each one ended.
type commander struct {
	r        *sal.Remote
	name     string
	rate     int
	maxAhead int64         // at most this many commands in flight: ticks beyond are skipped
	timeout  time.Duration // the command's own timeout; its ctx gets 20 s more
	skipped  atomic.Int64

	wg       sync.WaitGroup
	mu       sync.Mutex
	outcomes map[string]int
	samples  map[string]string
	started  []time.Time // send times of the completed commands
	inFlight atomic.Int64
	stop     chan struct{}
	done     chan struct{}
}

func newCommander(r *sal.Remote, name string, rate int, maxAhead int64, timeout time.Duration) *commander {
	return &commander{r: r, name: name, rate: rate, maxAhead: maxAhead, timeout: timeout,
		outcomes: map[string]int{}, samples: map[string]string{}, stop: make(chan struct{}), done: make(chan struct{})}
}

func (c *commander) run() {
	defer close(c.done)
	tick := time.NewTicker(time.Second / time.Duration(c.rate))
	defer tick.Stop()
	for {
		select {
		case <-c.stop:
			return
		case <-tick.C:
		}
		if c.inFlight.Load() >= c.maxAhead {
			c.skipped.Add(1)
			continue
		}
		c.wg.Add(1)
		c.inFlight.Add(1)
		go c.one(time.Now())
	}
}

func (c *commander) one(start time.Time) {
	defer c.wg.Done()
	defer c.inFlight.Add(-1)
	ctx, cancel := context.WithTimeout(context.Background(), c.timeout+20*time.Second)
	defer cancel()
	var kind string
	f, err := c.r.StartCommand(ctx, c.name, nil, remote.WithTimeout(c.timeout))
	if err != nil {
		kind = "send failed"
	} else {
		_, err = f.Wait(ctx)
		switch {
		case err == nil:
			kind = "completed"
		case errors.Is(err, sal.ErrTimeout):
			kind = "timed out"
		case errors.Is(err, sal.ErrCommandFailed):
			kind = "failed ack"
		default:
			kind = "other error"
		}
	}
	c.mu.Lock()
	c.outcomes[kind]++
	if err != nil && c.samples[kind] == "" {
		c.samples[kind] = err.Error()
	}
	if kind == "completed" {
		c.started = append(c.started, start)
	}
	c.mu.Unlock()
}

// completedSince counts completed commands sent at or after t.
func (c *commander) completedSince(t time.Time) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := 0
	for _, s := range c.started {
		if !s.Before(t) {
			n++
		}
	}
	return n
}

// halt stops sending and waits up to limit for every command to end; it
// returns how many did not (a hang: each has a ctx deadline before limit).
func (c *commander) halt(limit time.Duration) int64 {
	close(c.stop)
	<-c.done
	ended := make(chan struct{})
	go func() { c.wg.Wait(); close(ended) }()
	select {
	case <-ended:
		return 0
	case <-time.After(limit):
		return c.inFlight.Load()
	}
}

func (c *commander) summary() (map[string]int, map[string]string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	o, s := map[string]int{}, map[string]string{}
	for k, v := range c.outcomes {
		o[k] = v
	}
	for k, v := range c.samples {
		s[k] = v
	}
	return o, s
}

// settle flushes the bus, waits for the outcome of every write and for
// the reader to drain, and tallies the stream.
func settle(t *testing.T, acks string, bus *sal.Bus, st *stream, arr *arrivals) tally {
	fctx, fcancel := context.WithTimeout(context.Background(), time.Minute)
	defer fcancel()
	if err := bus.Flush(fctx); err != nil {
		t.Errorf("acks=%s: flush after the stream: %v", acks, err)
	}
	if !waitFor(30*time.Second, func() bool { return st.reported.Load() == st.sent.Load() }) {
		t.Errorf("acks=%s: %d of %d writes never reported an outcome", acks, st.sent.Load()-st.reported.Load(), st.sent.Load())
	}
	drain(st, arr, time.Minute)
	tl := st.tally(arr)
	t.Logf("acks=%s telemetry: %d written, %d acknowledged, %d failed (first error: %v; %d of them received anyway), %d pending; "+
		"the reader got %d distinct records, %d duplicates; acknowledged but never received %d; silences at the reader over 1 s: %v; slowest acknowledgement %.2f s",
		acks, tl.sent, tl.acked, tl.failed, tl.firstErr, tl.failedDelivered, tl.pending,
		tl.unique, tl.duplicates, tl.ackedMissing, roundAll(tl.pauses), tl.maxLat.Seconds())
	return tl
}

// judge checks a settled stream. Whatever acks, nothing acknowledged is
// missing above the newest record received (the stream went on well past
// the fault, so a loss there would be silent); with acks=all and the
// idempotent producer nothing acknowledged is missing at all and nothing
// is duplicated. The caller compares ReaderStats.Lost with the seqNums
// missing below the newest received (one reader may serve two streams).
func judge(t *testing.T, acks string, tl tally, stats topics.ReaderStats) {
	if tl.ackedAfterLast > 0 {
		t.Errorf("acks=%s: %d acknowledged records above the newest received never arrived (e.g. %v)", acks, tl.ackedAfterLast, tl.missingSample)
	}
	if tl.pending > 0 {
		t.Errorf("acks=%s: %d writes never reported an outcome", acks, tl.pending)
	}
	if stats.Overflow > 0 || stats.Undecodable > 0 {
		t.Errorf("acks=%s: the reader dropped %d records (queue overflow) and %d undecodable: not the broker's doing", acks, stats.Overflow, stats.Undecodable)
	}
	if acks == "all" {
		if tl.ackedMissing > 0 {
			t.Errorf("acks=all: %d acknowledged records lost (e.g. seqNums %v)", tl.ackedMissing, tl.missingSample)
		}
		if tl.duplicates > 0 || stats.OutOfOrder > 0 || stats.Duplicates > 0 {
			t.Errorf("acks=all + idempotence: %d duplicates delivered, %d dropped as duplicates, %d dropped as out of order", tl.duplicates, stats.Duplicates, stats.OutOfOrder)
		}
	} else {
		t.Logf("acks=%s: %d acknowledged records lost, %d failed writes missing, %d duplicates delivered (ReaderStats: Lost %d, Duplicates %d, OutOfOrder %d)",
			acks, tl.ackedMissing, tl.failedMissing, tl.duplicates, stats.Lost, stats.Duplicates, stats.OutOfOrder)
	}
}

func roundAll(ds []time.Duration) []time.Duration {
	out := make([]time.Duration, len(ds))
	for i, d := range ds {
		out[i] = d.Round(10 * time.Millisecond)
	}
	return out
}

// drain waits until the reader holds every acknowledged record, or until
// it received nothing new for 10 s, or limit passed.
func drain(s *stream, a *arrivals, limit time.Duration) {
	deadline := time.Now().Add(limit)
	last, since := -1, time.Now()
	for time.Now().Before(deadline) && time.Since(since) < 10*time.Second {
		if s.tally(a).ackedMissing == 0 {
			return
		}
		if n := a.unique(); n != last {
			last, since = n, time.Now()
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// waitFor polls cond every 50 ms until it holds or limit passes.
func waitFor(limit time.Duration, cond func() bool) bool {
	deadline := time.Now().Add(limit)
	for !cond() {
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(50 * time.Millisecond)
	}
	return true
}
