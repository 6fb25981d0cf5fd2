package controller_test

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/lsst-sal/salgo/controller"
	"github.com/lsst-sal/salgo/internal/testbus"
	"github.com/lsst-sal/salgo/remote"
)

// TestCSC_Loop: a loop added with Loop writes its first sample after
// summaryState ENABLED is on the bus, none after DISABLED, starts again
// at the next ENABLED, and stops with the CSC's close.
func TestCSC_Loop(t *testing.T) {
	d := testbus.Domain(t, nil)
	var csc *controller.CSC
	var calls atomic.Int32
	csc = newCSC(t, d, 1)
	if err := csc.Loop("telemetry", 5*time.Millisecond, 1, func(ctx context.Context) error {
		n := calls.Add(1)
		_, err := csc.MustTelemetry("scalars").Write(ctx, map[string]any{"int0": n})
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if err := csc.Start(testbus.Ctx(t)); err != nil {
		t.Fatal(err)
	}
	if err := csc.Loop("late", time.Second, 1, nil); err == nil {
		t.Error("Loop after Start: no error")
	}
	r := newRemote(t, d, 1)
	tel := r.MustTelemetry("scalars")
	command(t, r, "start", nil)
	if n := calls.Load(); n != 0 {
		t.Fatalf("the loop ran %d times before ENABLED", n)
	}
	command(t, r, "enable", nil)
	var enabled map[string]any
	for enabled == nil || enabled["summaryState"] != int32(controller.Enabled) {
		var err error
		if enabled, err = r.MustEvent("summaryState").Next(testbus.Ctx(t)); err != nil {
			t.Fatal(err)
		}
	}
	first, err := tel.Next(testbus.Ctx(t))
	if err != nil {
		t.Fatal(err)
	}
	if first["private_sndStamp"].(float64) < enabled["private_sndStamp"].(float64) {
		t.Errorf("the first sample was sent before summaryState ENABLED")
	}
	command(t, r, "disable", nil)
	stopped := calls.Load()
	command(t, r, "setLogLevel", map[string]any{"level": int32(20)}) // time passes, many periods
	if n := calls.Load(); n != stopped {
		t.Errorf("the loop ran %d more times after DISABLED", n-stopped)
	}
	command(t, r, "enable", nil)
	waitFor(t, "the loop running again", func() bool { return calls.Load() > stopped })
	csc.Close()
	n := calls.Load()
	if calls.Load() != n {
		t.Error("the loop runs after Close")
	}
}

// TestCSC_LoopFault: a loop whose function fails sends the CSC to FAULT
// with its code and text, from the loop itself, without a deadlock; the
// loop ends and no sample follows the FAULT state.
func TestCSC_LoopFault(t *testing.T) {
	d := testbus.Domain(t, nil)
	var calls atomic.Int32
	var sawFault atomic.Bool
	csc := newCSC(t, d, 1, controller.WithHooks(controller.Hooks{SummaryState: func(_ context.Context, s controller.State) error {
		if s == controller.Fault {
			sawFault.Store(true)
		}
		return nil
	}}))
	if err := csc.Loop("telemetry", time.Millisecond, 42, func(ctx context.Context) error {
		if calls.Add(1) == 3 {
			return errors.New("the sensor went away")
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if err := csc.Start(testbus.Ctx(t)); err != nil {
		t.Fatal(err)
	}
	r := newRemote(t, d, 1)
	command(t, r, "start", nil)
	command(t, r, "enable", nil)
	for s := nextState(t, r); s != controller.Fault; s = nextState(t, r) {
	}
	// The errorCode event is written before the FAULT state, but another
	// topic's record may reach the Remote after it: the first errorCode
	// after the start's 0 is the fault's.
	ec := map[string]any{"errorCode": int32(0)}
	for ec["errorCode"] == int32(0) {
		var err error
		if ec, err = r.MustEvent("errorCode").Next(testbus.Ctx(t)); err != nil {
			t.Fatal(err)
		}
	}
	if ec["errorCode"] != int32(42) || !strings.HasPrefix(ec["errorReport"].(string), "telemetry failed: the sensor went away") {
		t.Errorf("errorCode %v, want 42 and the loop's error", ec)
	}
	waitFor(t, "the SummaryState hook told of FAULT", sawFault.Load) // it runs after the state is written
	if n := calls.Load(); n != 3 {
		t.Errorf("the loop ran %d times, want 3 (none after its failure)", n)
	}
	// The CSC answers: FAULT → standby works.
	if a, err := r.Command(testbus.Ctx(t), "standby", nil, remote.WithTimeout(10*time.Second)); err != nil {
		t.Fatalf("standby after the loop's fault: %v %v", a, err)
	}
}
