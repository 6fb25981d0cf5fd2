package controller_test

import (
	"context"
	"errors"
	"runtime"
	"testing"
	"time"

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
