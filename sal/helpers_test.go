package sal_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

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
	csc2 := startCSC(t, b, 2, sal.WithHooks(sal.Hooks{BeginEnable: func(context.Context, *sal.Command) error { return sal.Expectedf("not today") }}))
	r2 := newRemote(t, b, 2)
	states, err = sal.SetSummaryState(ctx, r2, sal.Enabled, "")
	if !errors.Is(err, sal.ErrCommandFailed) || !strings.HasPrefix(err.Error(), "Error on cmd=cmd_enable, initial_state=5: ") ||
		!slices.Equal(states, []sal.State{sal.Standby, sal.Disabled}) || csc2.State() != sal.Disabled {
		t.Errorf("a refused enable: %v, %v, state %s", states, err, csc2.State().Name())
	}
}
