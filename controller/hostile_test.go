package controller_test

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/lsst-sal/salgo/controller"
	"github.com/lsst-sal/salgo/internal/bus"
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
	c, err := controller.New(d, "Example", 1, controller.Config{AllowMissing: true})
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
	c, err := controller.New(d, "Example", 1, controller.Config{AllowMissing: true, Concurrent: []string{"wait"}})
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
		a := bus.AckFromRecord(rec)
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
		if err := bus.WriteSeqAsync(testbus.Ctx(t), f.w, map[string]any{}, int32(seq), nil); err != nil {
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
