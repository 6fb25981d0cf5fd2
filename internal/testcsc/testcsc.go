// Package testcsc is the Go version of ts_salobj's TestCsc for the SDK's
// own tests, written once: the tests of remote, controller, sal and
// saltest make their CSC of the Example (or Test) component with
// EnabledCommands and Concurrent and give it these handlers with Handle.
// It is for tests only. (examples/testcsc is the same CSC as a program an
// author reads; it uses the public API only, so it has its own copy.)
package testcsc

import (
	"context"
	"strings"
	"time"

	"github.com/lsst-sal/salgo/controller"
)

// EnabledCommands returns the commands that need ENABLED, as TestCsc's.
func EnabledCommands() []string { return []string{"setScalars", "setArrays", "wait"} }

// Concurrent returns the commands that run beside others, as TestCsc's.
func Concurrent() []string { return []string{"wait"} }

// Mode says what setScalars and setArrays do.
type Mode int

const (
	// Complete: they complete and write nothing.
	Complete Mode = iota
	// Echo: they write their data to the event (set_write: only if it
	// changed) and the telemetry topic named scalars or arrays, as
	// TestCsc's do_setScalars and do_setArrays.
	Echo
)

// Handle gives csc TestCsc's handlers: setScalars and setArrays as m
// says; wait sends CMD_INPROGRESS with its duration and completes after
// it (a negative duration: no CMD_INPROGRESS, it completes after minus
// the duration, to test timeouts); fault faults with code 1.
func Handle(csc *controller.CSC, m Mode) error {
	set := func(context.Context, *controller.Command) error { return nil }
	arrays := set
	if m == Echo {
		set, arrays = echo(csc, "scalars"), echo(csc, "arrays")
	}
	for _, h := range []struct {
		name string
		fn   func(context.Context, *controller.Command) error
	}{
		{"setScalars", set},
		{"setArrays", arrays},
		{"wait", wait},
		{"fault", func(ctx context.Context, _ *controller.Command) error {
			return csc.Fault(ctx, 1, "executing the fault command", "")
		}},
	} {
		if err := csc.HandleFunc(h.name, h.fn); err != nil {
			return err
		}
	}
	return nil
}

func wait(ctx context.Context, cmd *controller.Command) error {
	d := time.Duration(cmd.Data["duration"].(float64) * float64(time.Second))
	if d >= 0 {
		if err := cmd.InProgress(ctx, d, ""); err != nil {
			return err
		}
	} else {
		d = -d
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// echo writes a command's data, less private_ fields and salIndex, to the
// event and the telemetry topic named topic.
func echo(csc *controller.CSC, topic string) func(context.Context, *controller.Command) error {
	return func(ctx context.Context, cmd *controller.Command) error {
		fields := map[string]any{}
		for k, v := range cmd.Data {
			if !strings.HasPrefix(k, "private_") && k != "salIndex" {
				fields[k] = v
			}
		}
		if _, err := csc.MustEvent(topic).SetWrite(ctx, fields, false); err != nil {
			return err
		}
		_, err := csc.MustTelemetry(topic).Write(ctx, fields)
		return err
	}
}
