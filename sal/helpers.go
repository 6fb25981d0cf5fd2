package sal

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/lsst-sal/salgo/controller"
)

// SetSummaryState takes a CSC to state target as ts_salobj's
// set_summary_state does: it reads the current state (the newest
// summaryState, from history if need be), sends the transition commands
// from there in order (TransitionCommands; start with override as its
// configurationOverride), each waiting for its final ack, and returns the
// states passed: the first, then the one after each command (it trusts
// the acks and does not wait for summaryState). A target of FAULT is
// refused. A command that fails ends it with an error naming the command
// and the state the CSC was in, wrapping the command's error.
func SetSummaryState(ctx context.Context, r *Remote, target State, override string, opts ...CommandOption) ([]State, error) {
	if target == Fault {
		return nil, controller.ErrNoPath
	}
	ev, err := r.Event("summaryState")
	if err != nil {
		return nil, err
	}
	rec, err := ev.Await(ctx)
	if err != nil {
		//lint:ignore ST1005 salobj's text, byte for byte
		return nil, fmt.Errorf("Cannot get summaryState from %s: %w", r.Name(), err)
	}
	cur := State(rec["summaryState"].(int32))
	states, err := controller.ExpectedStates(cur, target)
	if err != nil {
		return nil, err
	}
	cmds, _ := controller.TransitionCommands(cur, target)
	for i, cmd := range cmds {
		var params map[string]any
		if cmd == "start" {
			params = map[string]any{"configurationOverride": override}
		}
		if _, err := r.Command(ctx, cmd, params, opts...); err != nil {
			//lint:ignore ST1005 salobj's text, byte for byte
			return states[:i+1], fmt.Errorf("Error on cmd=cmd_%s, initial_state=%d: %w", cmd, cur, err)
		}
	}
	return states, nil
}

// WaitForSummaryState waits until the newest summaryState of r is one of
// states (at once if it is already) and returns it. It follows the newest
// value (Reader.AwaitNewer) and leaves the reader's queue alone. ctx
// bounds the wait.
func WaitForSummaryState(ctx context.Context, r *Remote, states ...State) (State, error) {
	if len(states) == 0 {
		return 0, errors.New("sal: WaitForSummaryState needs at least one state")
	}
	ev, err := r.Event("summaryState")
	if err != nil {
		return 0, err
	}
	rec, err := ev.Await(ctx)
	for {
		if err != nil {
			return 0, fmt.Errorf("sal: waiting for %s summaryState %v: %w", r.Name(), states, err)
		}
		if s := State(rec["summaryState"].(int32)); slices.Contains(states, s) {
			return s, nil
		}
		rec, err = ev.AwaitNewer(ctx, rec)
	}
}
