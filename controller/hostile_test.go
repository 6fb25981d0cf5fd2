package controller_test

import (
	"context"
	"errors"
	"runtime"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

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

// TestHostile_HugeErrorText: a handler whose error quotes 2 MiB of what
// it was sent (a text with multibyte characters) still has its command
// acknowledged: the ack's result and the logMessage's traceback are cut to
// MaxText at a character boundary, ending with how much was cut, so that
// the records fit a Kafka message. Uncut, the ack was never written and
// the commander waited for its timeout.
func TestHostile_HugeErrorText(t *testing.T) {
	d := testbus.Domain(t, nil)
	c, err := controller.New(d, "Example", 1, controller.Config{AllowMissing: true})
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
