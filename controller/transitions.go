package controller

import (
	"errors"
	"fmt"
	"slices"
)

// chain is the reference's ordered chain of states, OFFLINE ↔ STANDBY ↔
// DISABLED ↔ ENABLED, and the command of each edge, up and down.
var (
	chain = []State{Offline, Standby, Disabled, Enabled}
	up    = []string{"enterControl", "start", "enable"}
	down  = []string{"exitControl", "standby", "disable"}
)

// ErrNoPath is matched by TransitionCommands' error for a target of FAULT.
//
//lint:ignore ST1005 salobj's text, byte for byte
var ErrNoPath = errors.New("Cannot go into FAULT state using state transition commands")

// TransitionCommands returns the commands that take a CSC from one state to
// another, as the reference's set_summary_state does: the run of edges of
// the chain OFFLINE ↔ STANDBY ↔ DISABLED ↔ ENABLED between them (up:
// enterControl, start, enable; down: disable, standby, exitControl); from
// FAULT, standby first. None from a state to itself; there is no path to
// FAULT.
func TransitionCommands(from, to State) ([]string, error) {
	if to == Fault {
		return nil, ErrNoPath
	}
	var cmds []string
	if from == Fault {
		cmds, from = append(cmds, "standby"), Standby
	}
	i, j := slices.Index(chain, from), slices.Index(chain, to)
	if i < 0 || j < 0 {
		return nil, fmt.Errorf("controller: no transitions from %s to %s", from.PyRepr(), to.PyRepr())
	}
	for ; i < j; i++ {
		cmds = append(cmds, up[i])
	}
	for ; i > j; i-- {
		cmds = append(cmds, down[i-1])
	}
	return cmds, nil
}

// ExpectedStates returns from followed by the state after each command of
// TransitionCommands(from, to), as the reference's
// get_expected_summary_states.
func ExpectedStates(from, to State) ([]State, error) {
	cmds, err := TransitionCommands(from, to)
	if err != nil {
		return nil, err
	}
	states := []State{from}
	cur := from
	for _, c := range cmds {
		switch c {
		case "standby":
			cur = Standby
		case "enterControl":
			cur = Standby
		case "start":
			cur = Disabled
		case "enable":
			cur = Enabled
		case "disable":
			cur = Disabled
		case "exitControl":
			cur = Offline
		}
		states = append(states, cur)
	}
	return states, nil
}
