package controller_test

import (
	"context"
	"testing"

	"github.com/lsst-sal/salgo/controller"
	"github.com/lsst-sal/salgo/internal/testbus"
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
