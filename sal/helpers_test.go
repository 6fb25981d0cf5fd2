package sal_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/lsst-sal/salgo/controller"
	"github.com/lsst-sal/salgo/sal"
)

// TestSetSummaryState: the reference's set_summary_state: the commands
// from the current state in order, the states passed returned; nothing
// sent for the current state; FAULT refused; a failing command named in
// the error, which wraps its AckError.
func TestSetSummaryState(t *testing.T) {
	b := newBus(t)
	csc := startCSC(t, b, 1)
	r := newRemote(t, b, 1)
	ctx := ctxT(t)
	states, err := sal.SetSummaryState(ctx, r, sal.Enabled, "")
	if err != nil || !slices.Equal(states, []sal.State{sal.Standby, sal.Disabled, sal.Enabled}) {
		t.Fatalf("to ENABLED: %v, %v", states, err)
	}
	if got, err := sal.WaitForSummaryState(ctx, r, sal.Enabled); err != nil || got != sal.Enabled {
		t.Fatalf("WaitForSummaryState(ENABLED): %v, %v", got, err)
	}
	if states, err := sal.SetSummaryState(ctx, r, sal.Enabled, ""); err != nil || !slices.Equal(states, []sal.State{sal.Enabled}) {
		t.Errorf("to the current state: %v, %v", states, err)
	}
	if _, err := sal.SetSummaryState(ctx, r, sal.Fault, ""); err == nil || !strings.Contains(err.Error(), "Cannot go into FAULT state") {
		t.Errorf("to FAULT: %v", err)
	}
	if err := csc.Fault(ctx, 3, "broken", ""); err != nil {
		t.Fatal(err)
	}
	if _, err := sal.WaitForSummaryState(ctx, r, sal.Fault); err != nil {
		t.Fatal(err)
	}
	states, err = sal.SetSummaryState(ctx, r, sal.Offline, "")
	if err != nil || !slices.Equal(states, []sal.State{sal.Fault, sal.Standby, sal.Offline}) {
		t.Errorf("FAULT to OFFLINE: %v, %v", states, err)
	}

	// A CSC that refuses enable.
	csc2 := startCSC(t, b, 2, controller.WithHooks(sal.Hooks{BeginEnable: func(context.Context, *sal.Command) error { return sal.Expectedf("not today") }}))
	r2 := newRemote(t, b, 2)
	states, err = sal.SetSummaryState(ctx, r2, sal.Enabled, "")
	if !errors.Is(err, sal.ErrCommandFailed) || !strings.HasPrefix(err.Error(), "Error on cmd=cmd_enable, initial_state=5: ") ||
		!slices.Equal(states, []sal.State{sal.Standby, sal.Disabled}) || csc2.State() != sal.Disabled {
		t.Errorf("a refused enable: %v, %v, state %s", states, err, csc2.State().Name())
	}
}

// TestGet: Get returns a field as its canonical type, and otherwise an
// error naming the field and both types.
func TestGet(t *testing.T) {
	rec := map[string]any{"state": uint8(8), "reason": "done"}
	if v, err := sal.Get[uint8](rec, "state"); err != nil || v != 8 {
		t.Errorf("sal.Get[uint8] state: %v, %v; want 8", v, err)
	}
	_, err := sal.Get[int32](rec, "state")
	if !errors.Is(err, sal.ErrFieldType) || err.Error() != `sal: field "state" holds a uint8 (8), not a int32: sal: field holds another type` {
		t.Errorf("sal.Get[int32] of a uint8: %v", err)
	}
	if _, err := sal.Get[string](rec, "nope"); !errors.Is(err, sal.ErrNoField) || !strings.Contains(err.Error(), `"nope"`) {
		t.Errorf("Get of a missing field: %v", err)
	}
}
