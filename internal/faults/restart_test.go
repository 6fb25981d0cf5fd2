package faults

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/lsst-sal/salgo/controller"
	"github.com/lsst-sal/salgo/remote"
	"github.com/lsst-sal/salgo/sal"
	"github.com/lsst-sal/salgo/topics"
)

const (
	telemetryRate = 1000 // forceActuatorData records per second
	commandRate   = 100  // commands per second
	// maxInFlight bounds the commands in flight, as a client waiting for
	// its acks does: a broker outage then leaves at most this many queued,
	// below the Controller's command queue (1000; beyond it the oldest
	// commands are dropped, counted, and time out at the Remote).
	maxInFlight = 200
	downTime    = 3 * time.Second
	// commandTimeout is each command's own timeout, counted from the send:
	// long enough to outlast a broker restart (16 s after SIGKILL on a
	// quiet machine, over a minute on a loaded one, and a command sent
	// just before the kill waits through all of it).
	commandTimeout = 3 * time.Minute
)

// TestBrokerRestart streams MTM1M3 forceActuatorData at 1 kHz while the
// single broker is killed (SIGKILL), restarted on the same data after a
// few seconds, then stopped (SIGTERM) and restarted the same way. Two
// streams run through both faults: one at acks=all with the idempotent
// producer, from a Controller that also takes ~100 commands/s from a
// Remote, and one at acks=1 on a second Bus.
func TestBrokerRestart(t *testing.T) {
	e := needFaults(t)
	t.Setenv(topics.EnvReplication, "1")
	b := e.startBroker(t)
	ps := []*pipeline{
		newPipeline(t, e, b.addrs, "all", true),
		newPipeline(t, e, b.addrs, "1", false),
	}
	t0 := time.Now()
	for _, p := range ps {
		p.start(t)
	}
	for _, p := range ps {
		if !waitFor(time.Minute, func() bool {
			return p.arr.unique() >= telemetryRate && (p.cm == nil || p.cm.completedSince(t0) >= commandRate/2)
		}) {
			t.Fatalf("acks=%s, before the faults: the reader got %d records within a minute", p.acks, p.arr.unique())
		}
	}
	for _, fault := range []string{"kill", "stop"} {
		restart(t, b, fault, ps)
	}
	for _, p := range ps {
		p.halt(t)
	}
	for _, p := range ps {
		p.check(t)
	}
}

// restart stops the broker with kafka.sh kill or stop, starts it again
// after downTime, and waits until every pipeline runs again: the readers
// and the Remote reconnect by themselves.
func restart(t *testing.T, b *brokers, fault string, ps []*pipeline) {
	tFault := time.Now()
	b.must(fault, b.dir)
	var probe func()
	if fault == "kill" && ps[0].ctrl != nil {
		probe = giveUpProbe(t, ps[0].bus, ps[0].ctrl.MustEvent("heartbeat"))
	}
	time.Sleep(downTime)
	b.must("start", b.dir)
	tBack := time.Now()
	t.Logf("broker down %.1f s (kafka.sh %s, %v, kafka.sh start)", tBack.Sub(tFault).Seconds(), fault, downTime)
	if probe != nil {
		probe()
	}
	for _, p := range ps {
		seqAtBack := p.st.lastSeq.Load()
		if !waitFor(90*time.Second, func() bool { return p.arr.newest() >= seqAtBack+2*telemetryRate }) {
			t.Errorf("acks=%s, after the %s: the reader did not get records written after the restart within 90 s (newest seqNum %d, restart at %d)",
				p.acks, fault, p.arr.newest(), seqAtBack)
		}
		if p.cm != nil && !waitFor(90*time.Second, func() bool { return p.cm.completedSince(tBack) >= commandRate }) {
			t.Errorf("acks=%s, after the %s: only %d commands sent after the restart completed within 90 s", p.acks, fault, p.cm.completedSince(tBack))
		}
	}
}

// pipeline is one Bus with a telemetry stream and a reader of it, and
// (with commands) a Controller taking commands from a Remote.
type pipeline struct {
	acks string
	logs *logCapture
	bus  *sal.Bus
	st   *stream
	arr  *arrivals
	rd   *topics.Reader
	// with commands
	ctrl    *sal.Controller
	cm      *commander
	handled *atomic.Int64
	halted  bool
}

// newPipeline connects and starts everything but the stream. With
// commands, the stream is written by a Controller of MTM1M3 and read by a
// Remote; without, by two plain Instances.
func newPipeline(t *testing.T, e *faultEnv, addrs []string, acks string, commands bool) *pipeline {
	p := &pipeline{acks: acks, logs: &logCapture{}, arr: newArrivals()}
	t.Cleanup(func() { p.logs.report(t) })
	p.bus = e.connect(t, addrs, acks, subname(t), p.logs)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	t0 := time.Now()
	comp, err := p.bus.Component("MTM1M3")
	if err != nil {
		t.Fatal(err)
	}
	tp := comp.Telemetry("forceActuatorData")
	var w *topics.Writer
	if commands {
		p.ctrl, err = p.bus.NewController("MTM1M3", 0, controller.WithAllowMissing())
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(p.ctrl.Close)
		p.handled = &atomic.Int64{}
		if err := p.ctrl.HandleFunc("setLogLevel", func(context.Context, *sal.Command) error {
			p.handled.Add(1)
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		if err := p.ctrl.Start(ctx); err != nil {
			t.Fatal(err)
		}
		rem, err := p.bus.NewRemote(ctx, "MTM1M3", 0, remote.WithInclude("forceActuatorData"), remote.WithQueueLen(20000))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(rem.Close)
		p.rd, w = rem.MustTelemetry("forceActuatorData"), p.ctrl.MustTelemetry("forceActuatorData")
		p.cm = newCommander(rem, "setLogLevel", commandRate, maxInFlight, commandTimeout)
	} else {
		win, err := p.bus.NewInstance(comp, 0, "faults-writer")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(win.Close)
		rin, err := p.bus.NewInstance(comp, 0, "faults-reader")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(rin.Close)
		if w, err = win.Writer(tp); err != nil {
			t.Fatal(err)
		}
		if p.rd, err = rin.Reader(tp, topics.ReaderOptions{QueueLen: 20000}); err != nil {
			t.Fatal(err)
		}
		if err := win.Start(ctx); err != nil {
			t.Fatal(err)
		}
		if err := rin.Start(ctx); err != nil {
			t.Fatal(err)
		}
	}
	p.rd.SetCallback(p.arr.add)
	p.st = newStream(w, telemetryRate)
	t.Logf("acks=%s: MTM1M3 %s started in %.1f s", acks, map[bool]string{true: "Controller and Remote", false: "writer and reader"}[commands], time.Since(t0).Seconds())
	return p
}

func (p *pipeline) start(t *testing.T) {
	go p.st.run(t)
	if p.cm != nil {
		go p.cm.run()
	}
	t.Cleanup(func() { p.halt(t) })
}

// halt stops the stream and the commands; no command may still be in
// flight a minute after its deadline.
func (p *pipeline) halt(t *testing.T) {
	if p.halted {
		return
	}
	p.halted = true
	p.st.halt()
	if p.cm != nil {
		if n := p.cm.halt(commandTimeout + time.Minute); n > 0 {
			t.Errorf("acks=%s: %d commands neither ended nor failed within a minute of their deadline: a hang", p.acks, n)
		}
	}
}

// giveUpProbe, run while no broker answers, writes record A with a
// 300 ms context (its Write gives up) and then record B with a generous
// one, to the same topic. The returned function, called once the broker is
// back, checks that B's Write succeeded: a record whose Write gave up
// must not take down the records buffered behind it (franz-go fails a
// whole batch when the context of its first record ends), and that A, as
// the SDK documents, stayed queued and was delivered.
func giveUpProbe(t *testing.T, bus *sal.Bus, w *topics.Writer) func() {
	before := w.Stats()
	actx, acancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	_, errA := w.Write(actx, w.New())
	acancel()
	errB := make(chan error, 1)
	go func() {
		bctx, bcancel := context.WithTimeout(context.Background(), 3*time.Minute)
		defer bcancel()
		_, err := w.Write(bctx, w.New())
		errB <- err
	}()
	return func() {
		if errA == nil {
			t.Errorf("a Write with a 300 ms context succeeded while the broker was down")
		}
		if err := <-errB; err != nil {
			t.Errorf("record B failed because record A's Write gave up before it: %v", err)
		}
		fctx, fcancel := context.WithTimeout(context.Background(), time.Minute)
		defer fcancel()
		if err := bus.Flush(fctx); err != nil {
			t.Error(err)
		}
		after := w.Stats()
		t.Logf("give-up probe: A's Write returned %v; WriterStats then %+v, now %+v", errA, before, after)
		if got := after.Written - before.Written; got != 2 {
			t.Errorf("%d of the records A and B were acknowledged, want 2 (A's record stays queued when its Write gives up); failed: %d", got, after.Failed-before.Failed)
		}
	}
}

// check settles the stream, judges it and the commands.
func (p *pipeline) check(t *testing.T) {
	tl := settle(t, p.acks, p.bus, p.st, p.arr)
	stats := p.rd.Stats()
	t.Logf("acks=%s ReaderStats: %+v", p.acks, stats)
	judge(t, p.acks, tl, stats)
	if got, want := stats.Lost, uint64(tl.ackedMissing+tl.failedMissing); got != want {
		t.Errorf("acks=%s: ReaderStats.Lost = %d, but %d acknowledged and %d failed records are missing: a silent loss or a miscount", p.acks, got, tl.ackedMissing, tl.failedMissing)
	}
	if p.cm == nil {
		return
	}
	outcomes, samples := p.cm.summary()
	t.Logf("acks=%s commands: %s (%d ticks skipped with %d in flight); the Controller handled %d (%+v)",
		p.acks, fmtOutcomes(outcomes, samples), p.cm.skipped.Load(), maxInFlight, p.handled.Load(), p.ctrl.Stats())
	if sum(outcomes) == 0 {
		t.Errorf("acks=%s: no command was sent", p.acks)
	}
	if n := sum(outcomes) - outcomes["completed"]; n > 0 && p.acks == "all" {
		t.Errorf("acks=all: %d of %d commands did not complete: %s", n, sum(outcomes), fmtOutcomes(outcomes, samples))
	}
}

func sum(m map[string]int) int {
	n := 0
	for _, v := range m {
		n += v
	}
	return n
}

func fmtOutcomes(o map[string]int, samples map[string]string) string {
	var parts []string
	for k, v := range o {
		p := fmt.Sprintf("%d %s", v, k)
		if s := samples[k]; s != "" {
			p += fmt.Sprintf(" (e.g. %s)", s)
		}
		parts = append(parts, p)
	}
	sort.Strings(parts)
	return strings.Join(parts, ", ")
}
