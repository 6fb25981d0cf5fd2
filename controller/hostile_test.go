package controller_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/lsst-sal/salgo/controller"
	"github.com/lsst-sal/salgo/internal/testbus"
	"github.com/lsst-sal/salgo/remote"
	"github.com/lsst-sal/salgo/topics"
)

// TestLog_StuckWriterBlocksNothing: while no logMessage can be written (a
// producer whose buffer is full because the broker is away: here a write
// that waits until its bound), a handler that logs three queues' worth of
// errors still returns and its command is acked; the records that did not
// fit are dropped and counted, not waited for.
func TestLog_StuckWriterBlocksNothing(t *testing.T) {
	d := testbus.Domain(t, nil)
	c, err := controller.New(d, "Example", 1, controller.WithAllowMissing())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	controller.SetLogWrite(c, func(ctx context.Context, _ map[string]any) error {
		<-ctx.Done()
		return ctx.Err()
	})
	n := 3 * controller.LogQueueLen
	c.HandleFunc("setScalars", func(context.Context, *controller.Command) error {
		for i := range n {
			c.Logger().Error("the hardware is away", "try", i)
		}
		return nil
	})
	if err := c.Start(testbus.Ctx(t)); err != nil {
		t.Fatal(err)
	}
	r := newRemote(t, d, 1)
	if a := command(t, r, "setScalars", nil); a.Code != topics.CmdComplete {
		t.Fatalf("ack %v, want CMD_COMPLETE", a)
	}
	if got := c.Stats().LogDropped; got < uint64(n-controller.LogQueueLen-1) {
		t.Errorf("LogDropped %d after %d records with the writer stuck, want at least %d", got, n, n-controller.LogQueueLen-1)
	}
}

// TestCommandFlood_Bounded: a flood of long concurrent commands (anyone on
// the bus can send them) runs at most DefaultMaxConcurrent handlers at
// once: the goroutines stay bounded, and every command beyond the limit is
// refused at once with a text that says why.
func TestCommandFlood_Bounded(t *testing.T) {
	d := testbus.Domain(t, nil)
	c, err := controller.New(d, "Example", 1, controller.WithAllowMissing(), controller.WithConcurrent("wait"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.HandleFunc("wait", func(ctx context.Context, _ *controller.Command) error {
		<-ctx.Done()
		return ctx.Err()
	})
	ctx := testbus.Ctx(t)
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	r := newRemote(t, d, 1)
	base := runtime.NumGoroutine()
	const n = 2000
	var refused []*remote.Future
	for range n {
		f, err := r.StartCommand(ctx, "wait", map[string]any{"duration": 3600.0}, remote.WithTimeout(time.Hour))
		if err != nil {
			t.Fatal(err)
		}
		refused = append(refused, f)
	}
	waitFor(t, "every command read", func() bool { return c.Stats().Received == n })
	if g := runtime.NumGoroutine() - base; g > controller.DefaultMaxConcurrent+50 {
		t.Errorf("%d goroutines more with %d commands in flight, want at most the limit %d and a few", g, n, controller.DefaultMaxConcurrent)
	}
	if got := c.Stats().Rejected; got != n-controller.DefaultMaxConcurrent {
		t.Errorf("%d commands refused, want %d", got, n-controller.DefaultMaxConcurrent)
	}
	want := "Failed: too many commands running at once (limit 100); try again later"
	f := refused[n-1]
	a, err := f.Wait(ctx)
	var ae *remote.AckError
	if !errors.As(err, &ae) || ae.Ack.Code != topics.CmdFailed || ae.Ack.Result != want {
		t.Errorf("the last command: %v %v, want CMD_FAILED %q", a, err, want)
	}
}

// flood is a raw sender of commands on the bus: it writes command records
// as fast as the producer takes them (no Remote, no future per command)
// and gathers the final acks that answer it.
type flood struct {
	w *topics.Writer

	mu   sync.Mutex
	acks map[int32]*topics.Ack // final acks by seqNum
}

func newFlood(t *testing.T, d *topics.Domain, c *controller.Controller, cmd string) *flood {
	t.Helper()
	comp := c.Component()
	in, err := d.NewInstance(comp, c.Index(), "flood@test")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(in.Close)
	f := &flood{acks: map[int32]*topics.Ack{}}
	if f.w, err = in.Writer(comp.Command(cmd)); err != nil {
		t.Fatal(err)
	}
	r, err := in.Reader(comp.Ack(), topics.ReaderOptions{QueueLen: 10_000})
	if err != nil {
		t.Fatal(err)
	}
	r.SetCallback(func(rec map[string]any) {
		a := topics.AckFromRecord(rec)
		if a.Identity != "flood@test" || !a.Code.Final() {
			return
		}
		f.mu.Lock()
		f.acks[a.SeqNum] = a
		f.mu.Unlock()
	})
	if err := in.Start(testbus.Ctx(t)); err != nil {
		t.Fatal(err)
	}
	return f
}

// send queues n commands with seqNums from, from+1, ...
func (f *flood) send(t *testing.T, from, n int) {
	t.Helper()
	for seq := from; seq < from+n; seq++ {
		if err := controller.WriteSeqAsync(testbus.Ctx(t), f.w, map[string]any{}, int32(seq), nil); err != nil {
			t.Fatal(err)
		}
	}
}

// finals returns the number of final acks received.
func (f *flood) finals() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.acks)
}

// TestHostile_QueueOverflow: commands that run one at a time, sent faster
// than they run: the topic's queue (QueueLen, 1000) drops the oldest, and
// the drops are counted in the Controller's Stats.Overflow, not lost
// silently; the commands kept are all answered.
func TestHostile_QueueOverflow(t *testing.T) {
	const queue, extra = 1000, 50
	d := testbus.Domain(t, nil)
	release := make(chan struct{})
	running := make(chan struct{}, 1)
	c := startController(t, d, 1, map[string]controller.HandlerFunc{
		"setScalars": func(ctx context.Context, cmd *controller.Command) error {
			select {
			case running <- struct{}{}:
			default:
			}
			select {
			case <-release:
				return nil
			case <-ctx.Done():
				return ctx.Err()
			}
		},
	})
	var once sync.Once
	free := func() { once.Do(func() { close(release) }) }
	t.Cleanup(free) // before the Controller's Close: the handlers end first
	f := newFlood(t, d, c, "setScalars")
	f.send(t, 1, 1)
	select {
	case <-running: // the first command is out of the queue, in its handler
	case <-testbus.Ctx(t).Done():
		t.Fatal("the first command never ran")
	}
	f.send(t, 2, queue+extra)
	waitFor(t, fmt.Sprintf("%d commands dropped and counted in Stats.Overflow", extra), func() bool { return c.Stats().Overflow == extra })
	free()
	waitFor(t, "the queued commands answered", func() bool { return f.finals() == 1+queue })
	if s := c.Stats(); s.Received != 1+queue || s.Completed != 1+queue || s.Overflow != extra {
		t.Errorf("stats %+v, want %d received and completed, %d overflow", s, 1+queue, extra)
	}
}

// TestHostile_FullProducer: with the producer's buffer full (the broker
// takes no records from this Controller), a handler whose failure is
// logged still has its ack queued and returns, so the next command of the
// topic runs; logging returns at once, and what does not fit in the
// logMessage queue is dropped and counted, with a rate-limited warning on
// the process log; once the broker takes records again, logging reaches
// the bus.
func TestHostile_FullProducer(t *testing.T) {
	cfg, local := testbus.Config(t, nil)
	if local == nil {
		t.Skip("needs the embedded broker: the test holds the Controller's produce requests in it")
	}
	const maxBuffered = 3
	cfg.KafkaProducer = map[string]any{"queue.buffering.max.messages": maxBuffered}
	var logs testbus.SyncBuffer
	cfg.Logger = slog.New(slog.NewTextHandler(&logs, nil))
	d := testbus.Connect(t, cfg)

	calls := make(chan int, 10)
	c, err := controller.New(d, "Example", 1, controller.WithAllowMissing())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	// The writer waits for each record for the whole outage (its own
	// 10 s would let it take a second record from the queue if the test
	// ran slowly, and so drop one record fewer).
	controller.SetLogWait(c, time.Hour)
	c.HandleFunc("setArrays", func(ctx context.Context, cmd *controller.Command) error {
		calls <- int(cmd.SeqNum)
		return errors.New("disk full")
	})
	if err := c.Start(testbus.Ctx(t)); err != nil {
		t.Fatal(err)
	}
	r := newRemote(t, d, 1)

	// Hold every produce request but the peer's commands: the
	// Controller's records stay buffered in its producer.
	cmdIDs := commandTopicIDs(t, cfg.Brokers, cfg.Subname)
	hold := make(chan struct{})
	var once sync.Once
	unhold := func() { once.Do(func() { close(hold) }) }
	kc := local.Kafka()
	kc.ControlKey(int16(kmsg.Produce), func(req kmsg.Request) (kmsg.Response, error, bool) {
		select {
		case <-hold:
			return nil, nil, false
		default:
		}
		for _, tp := range req.(*kmsg.ProduceRequest).Topics {
			if !cmdIDs[tp.TopicID] && !strings.Contains(tp.Topic, ".command_") {
				kc.SleepControl(func() { <-hold })
				break
			}
		}
		return nil, nil, false
	})
	t.Cleanup(unhold) // before the Controller's Close

	// Fill the buffer but one record: the first command's ack takes
	// the last place, and its logMessage finds none.
	tel := c.MustTelemetry("scalars")
	for range maxBuffered - 1 {
		if err := tel.WriteAsync(context.Background(), map[string]any{}, nil); err != nil {
			t.Fatal(err)
		}
	}
	peer := testbus.NewPeer(t, d, "peer@test", 7, 1)
	tp := c.Component().Command("setArrays")
	for seq := int32(1); seq <= 2; seq++ {
		peer.Write(tp, peer.Record(tp, map[string]any{"private_seqNum": seq}))
		select {
		case got := <-calls:
			if got != int(seq) {
				t.Fatalf("handler ran for seqNum %d, want %d", got, seq)
			}
		case <-testbus.Ctx(t).Done():
			t.Fatalf("the handler never ran for seqNum %d: the one before, which failed and logged it, never returned", seq)
		}
	}
	waitFor(t, "both failures acknowledged (queued)", func() bool { return c.Stats().Failed == 2 })

	// Logging while the bus takes nothing returns at once.
	const n = 1500
	logged := make(chan struct{})
	go func() {
		defer close(logged)
		for i := range n {
			c.Logger().Error("flood", "i", i)
		}
	}()
	select {
	case <-logged:
	case <-testbus.Ctx(t).Done():
		t.Fatal("logging blocked while the producer's buffer is full")
	}
	// The first failure's logMessage is held by the writer, which waits
	// for room in the producer; the flood goes to a queue of LogQueueLen:
	// its excess is dropped, and counted. (The second failure is not
	// logged yet: its final ack waits for room in the producer, for up to
	// ackWait, 30 s, and the failure is logged after the ack is queued.
	// Meanwhile the topic's next command would wait too.)
	const wantDropped = n - controller.LogQueueLen
	if s := c.Stats(); s.LogDropped < wantDropped {
		t.Errorf("stats %+v: want at least %d logMessage records dropped", s, wantDropped)
	}
	const warning = "controller: logMessage dropped: the queue of records to write is full (is the broker away?)"
	if got := logs.String(); !strings.Contains(got, warning) || strings.Count(got, warning) > 2 {
		t.Errorf("process log does not hold the warning %q once (rate-limited):\n%.2000s", warning, got)
	}
	t.Logf("%d logMessage records dropped", c.Stats().LogDropped)

	// Once the broker takes records again, the writer writes what waits:
	// the first failure, then the flood's first LogQueueLen records
	// (the second failure's record goes in the queue, or is dropped,
	// once its ack is queued). Then a new record has room, and reaches
	// the bus.
	unhold()
	ctx := testbus.Ctx(t)
	next := func(what string) map[string]any {
		t.Helper()
		rec, err := r.MustEvent("logMessage").Next(ctx)
		if err != nil {
			t.Fatalf("no logMessage %s after the outage: %v", what, err)
		}
		return rec
	}
	last := fmt.Sprintf("flood i=%d", controller.LogQueueLen-1)
	for next("of the flood")["message"] != last {
	}
	c.Logger().Error("after the outage")
	for next("after the outage")["message"] != "after the outage" {
	}
}

// commandTopicIDs returns the IDs of the command topics of a subname
// (produce requests name topics by ID from Kafka 4 on).
func commandTopicIDs(t *testing.T, brokers []string, subname string) map[[16]byte]bool {
	return topicIDs(t, brokers, "."+subname+".", ".command_")
}

// topicIDs returns the IDs of the topics whose names hold every part.
func topicIDs(t *testing.T, brokers []string, parts ...string) map[[16]byte]bool {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(brokers...))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	details, err := kadm.NewClient(cl).ListTopics(testbus.Ctx(t))
	if err != nil {
		t.Fatal(err)
	}
	ids := map[[16]byte]bool{}
	for name, d := range details {
		all := true
		for _, p := range parts {
			all = all && strings.Contains(name, p)
		}
		if all {
			ids[d.ID] = true
		}
	}
	if len(ids) == 0 {
		t.Fatalf("no topics named with %q found", parts)
	}
	return ids
}

// TestHostile_HugeErrorText: a handler whose error quotes 2 MiB of what
// it was sent (a text with multibyte characters) still has its command
// acknowledged: the ack's result and the logMessage's traceback are cut to
// MaxText at a character boundary, ending with how much was cut, so that
// the records fit a Kafka message. Uncut, the ack was never written and
// the commander waited for its timeout.
func TestHostile_HugeErrorText(t *testing.T) {
	d := testbus.Domain(t, nil)
	c, err := controller.New(d, "Example", 1, controller.WithAllowMissing())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	huge := strings.Repeat("é", 1<<20) // 2 MiB
	c.HandleFunc("setScalars", func(context.Context, *controller.Command) error {
		return errors.New("cannot use " + huge)
	})
	if err := c.Start(testbus.Ctx(t)); err != nil {
		t.Fatal(err)
	}
	r := newRemote(t, d, 1)
	a, err := r.Command(testbus.Ctx(t), "setScalars", nil, remote.WithTimeout(20*time.Second))
	if a == nil || a.Code != topics.CmdFailed {
		t.Fatalf("ack %v (%v), want CMD_FAILED", a, err)
	}
	check := func(what, text, prefix string) {
		t.Helper()
		if len(text) > controller.MaxText || !utf8.ValidString(text) || !strings.HasPrefix(text, prefix) ||
			!strings.HasSuffix(text, " more bytes]") {
			t.Errorf("%s: %d bytes, valid UTF-8 %v, begins %.30q, ends %q; want at most %d bytes of valid UTF-8 beginning %q and ending with the cut",
				what, len(text), utf8.ValidString(text), text, text[max(0, len(text)-30):], controller.MaxText, prefix)
		}
	}
	check("ack result", a.Result, "Failed: cannot use éé")
	for {
		rec, err := r.MustEvent("logMessage").Next(testbus.Ctx(t))
		if err != nil {
			t.Fatalf("no logMessage of the failure: %v", err)
		}
		if strings.HasPrefix(rec["message"].(string), "Callback setScalars failed") {
			check("logMessage traceback", rec["traceback"].(string), "Go error chain")
			break
		}
	}
}

// TestLog_FailedWritesCounted: logMessage records whose write fails (the
// broker refuses them, or the write's bound passes) are counted in
// Stats.LogDropped, as those that found the queue full are: nothing is
// lost without a count.
func TestLog_FailedWritesCounted(t *testing.T) {
	d := testbus.Domain(t, nil)
	c, err := controller.New(d, "Example", 1, controller.WithAllowMissing())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	controller.SetLogWrite(c, func(context.Context, map[string]any) error {
		return errors.New("the broker refused it")
	})
	if err := c.Start(testbus.Ctx(t)); err != nil {
		t.Fatal(err)
	}
	const n = 5
	for i := range n {
		c.Logger().Error("lost", "i", i)
	}
	waitFor(t, fmt.Sprintf("%d failed logMessage writes counted in LogDropped", n), func() bool { return c.Stats().LogDropped == n })
}
