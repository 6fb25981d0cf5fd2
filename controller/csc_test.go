package controller_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/lsst-sal/salgo/controller"
	"github.com/lsst-sal/salgo/internal/testbus"
	"github.com/lsst-sal/salgo/internal/testcsc"
	"github.com/lsst-sal/salgo/remote"
	"github.com/lsst-sal/salgo/topics"
)

// startCSC starts an Example CSC like the reference's TestCsc (see
// internal/testcsc): setScalars, setArrays and wait need ENABLED.
func startCSC(t testing.TB, d *topics.Domain, index int, opts ...controller.CSCOption) *controller.CSC {
	t.Helper()
	csc := newCSC(t, d, index, opts...)
	if err := csc.Start(testbus.Ctx(t)); err != nil {
		t.Fatal(err)
	}
	return csc
}

func newCSC(t testing.TB, d *topics.Domain, index int, opts ...controller.CSCOption) *controller.CSC {
	t.Helper()
	opts = append([]controller.CSCOption{controller.WithEnabledCommands(testcsc.EnabledCommands()...), controller.WithConcurrent(testcsc.Concurrent()...)}, opts...)
	csc, err := controller.NewCSC(d, "Example", index, opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(csc.Close)
	if err := testcsc.Handle(csc, testcsc.Complete); err != nil {
		t.Fatal(err)
	}
	return csc
}

func command(t testing.TB, r *remote.Remote, name string, params map[string]any) *topics.Ack {
	t.Helper()
	a, err := r.Command(testbus.Ctx(t), name, params, remote.WithTimeout(20*time.Second))
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return a
}

// nextState returns the next summaryState the Remote reads.
func nextState(t testing.TB, r *remote.Remote) controller.State {
	t.Helper()
	rec, err := r.MustEvent("summaryState").Next(testbus.Ctx(t))
	if err != nil {
		t.Fatal(err)
	}
	return controller.State(rec["summaryState"].(int32))
}

// TestCSC_StandardStateTransitions is the reference's
// check_standard_state_transitions: in each state only the allowed
// commands succeed; every other fails with CMD_FAILED and the reference's
// text, and the state does not change; the CSC is done after exitControl.
func TestCSC_StandardStateTransitions(t *testing.T) {
	d := testbus.Domain(t, nil)
	csc := startCSC(t, d, 1)
	r := newRemote(t, d, 1)
	ctx := testbus.Ctx(t)
	enabledCmds := []string{"setArrays", "setScalars", "wait"}
	all := append([]string{"start", "enable", "disable", "standby", "exitControl"}, enabledCmds...)
	allowed := map[controller.State][]string{
		controller.Standby:  {"start", "exitControl"},
		controller.Disabled: {"enable", "standby"},
		controller.Enabled:  append([]string{"disable"}, enabledCmds...),
	}
	check := func(state controller.State) {
		t.Helper()
		if got := nextState(t, r); got != state {
			t.Fatalf("summaryState %s, want %s", got.Name(), state.Name())
		}
		for _, c := range all {
			if slices.Contains(allowed[state], c) {
				continue
			}
			params := map[string]any{}
			if c == "wait" {
				params["duration"] = 0.0
			}
			ack, err := r.Command(ctx, c, params, remote.WithTimeout(10*time.Second))
			var ae *remote.AckError
			if !errors.As(err, &ae) {
				t.Fatalf("%s in %s: got %v, %v; want CMD_FAILED", c, state.Name(), ack, err)
			}
			want := fmt.Sprintf("Failed: %s not allowed in state %s", c, state.PyRepr())
			if slices.Contains(enabledCmds, c) {
				want = fmt.Sprintf("Failed: Not allowed in state=%s", state.PyRepr())
			}
			if ae.Ack.Code != topics.CmdFailed || ae.Ack.Error != 1 || ae.Ack.Result != want {
				t.Errorf("%s in %s: %s error=%d %q; want CMD_FAILED error=1 %q", c, state.Name(), ae.Ack.Code, ae.Ack.Error, ae.Ack.Result, want)
			}
			if csc.State() != state {
				t.Fatalf("%s in %s changed the state to %s", c, state.Name(), csc.State().Name())
			}
		}
		command(t, r, "setLogLevel", map[string]any{"level": 20}) // works in every state
	}
	check(controller.Standby)
	command(t, r, "start", nil)
	check(controller.Disabled)
	command(t, r, "enable", nil)
	check(controller.Enabled)
	command(t, r, "setArrays", nil)
	command(t, r, "setScalars", nil)
	command(t, r, "wait", map[string]any{"duration": 0.0})
	command(t, r, "disable", nil)
	if s := nextState(t, r); s != controller.Disabled {
		t.Fatalf("after disable: %s", s.Name())
	}
	command(t, r, "standby", nil)
	if s := nextState(t, r); s != controller.Standby {
		t.Fatalf("after standby: %s", s.Name())
	}
	command(t, r, "exitControl", nil)
	if s := nextState(t, r); s != controller.Offline {
		t.Fatalf("after exitControl: %s", s.Name())
	}
	select {
	case <-csc.Done():
	case <-ctx.Done():
		t.Fatal("CSC not done after exitControl")
	}
}

// TestCSC_RequireEnabledTexts: commands that need ENABLED are refused
// with BaseCsc's assert_enabled texts, the FAULT variant naming the last
// errorCode and errorReport.
func TestCSC_RequireEnabledTexts(t *testing.T) {
	d := testbus.Domain(t, nil)
	csc := startCSC(t, d, 1)
	r := newRemote(t, d, 1)
	refused := func(cmd, want string) {
		t.Helper()
		_, err := r.Command(testbus.Ctx(t), cmd, nil)
		var ae *remote.AckError
		if !errors.As(err, &ae) || ae.Ack.Result != want {
			t.Errorf("%s: %v; want %q", cmd, err, want)
		}
	}
	refused("setScalars", "Failed: Not allowed in state=<State.STANDBY: 5>")
	if err := csc.RequireEnabled("move"); err == nil || err.Error() != "move not allowed in state=<State.STANDBY: 5>" {
		t.Errorf("RequireEnabled(move): %v", err)
	}
	command(t, r, "fault", nil)
	refused("setArrays", "Failed: Not allowed in Fault state: errorCode=1, errorReport='executing the fault command'")
	if err := csc.Fault(testbus.Ctx(t), 52, "it's broken", ""); err != nil {
		t.Fatal(err)
	}
	if err := csc.RequireEnabled("move"); err == nil || err.Error() != `move not allowed in Fault state: errorCode=52, errorReport="it's broken"` {
		t.Errorf("RequireEnabled(move) in FAULT: %v", err)
	}
}

// TestCSC_TransitionsSerialised: state-changing commands run one at a
// time, each checked against the state when it runs: an exitControl that
// arrives while a slow start is under way is refused once start has made
// the CSC DISABLED, and the CSC is not done.
func TestCSC_TransitionsSerialised(t *testing.T) {
	d := testbus.Domain(t, nil)
	ctx := testbus.Ctx(t)
	entered := make(chan struct{})
	release := make(chan struct{})
	csc := startCSC(t, d, 1, controller.WithHooks(controller.Hooks{
		BeginStart: func(context.Context, *controller.Command) error {
			close(entered)
			<-release
			return nil
		},
	}))
	r := newRemote(t, d, 1)
	start, err := r.StartCommand(ctx, "start", nil)
	if err != nil {
		t.Fatal(err)
	}
	<-entered
	exit, err := r.StartCommand(ctx, "exitControl", nil)
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the CSC received exitControl", func() bool { return csc.Stats().Received == 2 })
	close(release)
	if _, err := start.Wait(ctx); err != nil {
		t.Fatalf("start: %v", err)
	}
	a, err := exit.Wait(ctx)
	if !errors.Is(err, remote.ErrCommandFailed) || a.Result != "Failed: exitControl not allowed in state <State.DISABLED: 1>" {
		t.Errorf("exitControl during start: %v, %v; want it refused in DISABLED", a, err)
	}
	if s := csc.State(); s != controller.Disabled {
		t.Errorf("state %s, want DISABLED", s.Name())
	}
	select {
	case <-csc.Done():
		t.Error("the CSC is done although exitControl was refused")
	default:
	}
}

// TestCSC_CloseConcurrent: Close from several goroutines at once, and
// again, returns once the CSC is closed, every time.
func TestCSC_CloseConcurrent(t *testing.T) {
	d := testbus.Domain(t, nil)
	csc := startCSC(t, d, 1)
	var wg sync.WaitGroup
	gate := make(chan struct{})
	for range 64 {
		wg.Go(func() { <-gate; csc.Close() })
	}
	close(gate)
	wg.Wait()
	csc.Close()
	if err := csc.Start(testbus.Ctx(t)); !errors.Is(err, topics.ErrClosed) {
		t.Errorf("Start after Close: %v, want ErrClosed", err)
	}
	if _, err := csc.MustEvent("scalars").Write(testbus.Ctx(t), map[string]any{}); !errors.Is(err, topics.ErrClosed) {
		t.Errorf("write after Close: %v, want ErrClosed", err)
	}
}

// TestCSC_DoneAfterExitControlAck: Done closes once the exitControl ack
// has been written, so a program that exits on Done does not cut it off.
func TestCSC_DoneAfterExitControlAck(t *testing.T) {
	d := testbus.Domain(t, nil)
	ctx := testbus.Ctx(t)
	csc := startCSC(t, d, 1)
	in, err := d.NewInstance(csc.Component(), 1, "watcher@host")
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	acks, err := in.Reader(csc.Component().Ack(), topics.ReaderOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := in.Start(ctx); err != nil {
		t.Fatal(err)
	}
	r := newRemote(t, d, 1)
	f, err := r.StartCommand(ctx, "exitControl", nil)
	if err != nil {
		t.Fatal(err)
	}
	select {
	case <-csc.Done():
	case <-ctx.Done():
		t.Fatal("not done after exitControl")
	}
	// The ack is on the broker: a reader that was not waiting for it
	// reads it now.
	rec, err := acks.Next(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if a := topics.AckFromRecord(rec); a.SeqNum != f.SeqNum() || a.Code != topics.CmdComplete {
		t.Errorf("ack %v, want CMD_COMPLETE for seqNum %d", a, f.SeqNum())
	}
}

// TestCSC_Fault: Fault writes errorCode (forced) then summaryState FAULT;
// standby leaves FAULT and clears errorCode.
func TestCSC_Fault(t *testing.T) {
	d := testbus.Domain(t, nil)
	csc := startCSC(t, d, 1)
	r := newRemote(t, d, 1)
	ctx := testbus.Ctx(t)
	ec := r.MustEvent("errorCode")
	if rec, err := ec.Next(ctx); err != nil || rec["errorCode"] != int32(0) {
		t.Fatalf("errorCode at start: %v %v", rec, err)
	}
	nextState(t, r) // STANDBY
	command(t, r, "fault", nil)
	rec, err := ec.Next(ctx)
	if err != nil || rec["errorCode"] != int32(1) || rec["errorReport"] != "executing the fault command" {
		t.Errorf("errorCode after fault: %v %v", rec, err)
	}
	if s := nextState(t, r); s != controller.Fault || csc.State() != controller.Fault {
		t.Errorf("state after fault: %s", s.Name())
	}
	command(t, r, "standby", nil)
	if s := nextState(t, r); s != controller.Standby {
		t.Errorf("state after standby from FAULT: %s", s.Name())
	}
	if rec, err := ec.Next(ctx); err != nil || rec["errorCode"] != int32(0) || rec["errorReport"] != "" {
		t.Errorf("errorCode after leaving FAULT: %v %v", rec, err)
	}
}

// TestCSC_Hooks: a Begin hook that fails leaves the state and fails the
// command; an End hook that fails reverts it; SummaryState sees the
// initial state and every state after.
func TestCSC_Hooks(t *testing.T) {
	d := testbus.Domain(t, nil)
	var mu sync.Mutex
	var states []controller.State
	failBegin, failEnd := true, true
	csc := startCSC(t, d, 1, controller.WithHooks(controller.Hooks{
		BeginEnable: func(context.Context, *controller.Command) error {
			mu.Lock()
			defer mu.Unlock()
			if failBegin {
				failBegin = false
				return errors.New("not ready")
			}
			return nil
		},
		EndDisable: func(context.Context, *controller.Command) error {
			mu.Lock()
			defer mu.Unlock()
			if failEnd {
				failEnd = false
				return errors.New("stuck")
			}
			return nil
		},
		SummaryState: func(_ context.Context, s controller.State) error {
			mu.Lock()
			defer mu.Unlock()
			states = append(states, s)
			return nil
		},
	}))
	r := newRemote(t, d, 1)
	ctx := testbus.Ctx(t)
	command(t, r, "start", map[string]any{"configurationOverride": "night.yaml"})
	if a, err := r.Command(ctx, "enable", nil); err == nil || a.Result != "Failed: not ready" || csc.State() != controller.Disabled {
		t.Errorf("enable with a failing BeginEnable: %v, %v, state %s", a, err, csc.State().Name())
	}
	command(t, r, "enable", nil)
	if a, err := r.Command(ctx, "disable", nil); err == nil || a.Result != "Failed: stuck" || csc.State() != controller.Enabled {
		t.Errorf("disable with a failing EndDisable: %v, %v, state %s", a, err, csc.State().Name())
	}
	command(t, r, "disable", nil)
	mu.Lock()
	defer mu.Unlock()
	want := []controller.State{controller.Standby, controller.Disabled, controller.Enabled, controller.Disabled}
	if !slices.Equal(states, want) {
		t.Errorf("SummaryState saw %v, want %v", states, want)
	}
}

// TestCSC_StartupEvents: Start writes logLevel, simulationMode,
// softwareVersions (with the version given), summaryState and errorCode,
// and heartbeats; setLogLevel is answered.
func TestCSC_StartupEvents(t *testing.T) {
	d := testbus.Domain(t, nil)
	startCSC(t, d, 1, controller.WithVersion("1.2.3"), controller.WithSimulationMode(1), controller.WithValidSimulationModes(0, 1), controller.WithSubsystemVersions("pump=3.1"))
	r := newRemote(t, d, 1)
	ctx := testbus.Ctx(t)
	for name, want := range map[string]map[string]any{
		"logLevel":         {"level": int32(20)},
		"simulationMode":   {"mode": int32(1)},
		"softwareVersions": {"cscVersion": "1.2.3", "xmlVersion": d.Definitions().Version(), "salVersion": "", "subsystemVersions": "pump=3.1"},
		"summaryState":     {"summaryState": int32(controller.Standby)},
		"errorCode":        {"errorCode": int32(0)},
	} {
		rec := r.MustEvent(name).Get()
		for k, v := range want {
			if rec == nil || rec[k] != v {
				t.Errorf("%s: %v, want %s=%v", name, rec, k, v)
			}
		}
	}
	if _, err := r.MustEvent("heartbeat").Next(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := controller.NewCSC(d, "Example", 2, controller.WithInitialState(42)); err == nil {
		t.Error("initial state 42 accepted")
	}
}

// TestCSC_LogMessage: the CSC's logger publishes logMessage at or above
// its level (INFO by default).
func TestCSC_LogMessage(t *testing.T) {
	d := testbus.Domain(t, nil)
	csc := startCSC(t, d, 1)
	r := newRemote(t, d, 1)
	ctx := testbus.Ctx(t)
	csc.Logger().Warn("pump pressure low", "bar", 1.5)
	rec, err := r.MustEvent("logMessage").Next(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if rec["level"] != int32(30) || rec["message"] != "pump pressure low bar=1.5" {
		t.Errorf("logMessage %v %q", rec["level"], rec["message"])
	}
	csc.Logger().Debug("not published")
	csc.Logger().Info("published")
	if rec, err := r.MustEvent("logMessage").Next(ctx); err != nil || rec["message"] != "published" {
		t.Errorf("got %v %v", rec["message"], err)
	}
}

// TestCSC_CheckDuplicate: a CSC that checks for duplicates starts when
// none runs, and refuses to start beside a running one.
func TestCSC_CheckDuplicate(t *testing.T) {
	d := testbus.Domain(t, nil)
	startCSC(t, d, 7, controller.WithCheckDuplicate())
	dup := newCSC(t, d, 7, controller.WithCheckDuplicate())
	if err := dup.Start(testbus.Ctx(t)); !errors.Is(err, controller.ErrDuplicate) {
		t.Fatalf("second instance: %v, want ErrDuplicate", err)
	}
}

// TestCSC_GenericCommandsAreTheCSCs: a handler for one of the state
// machine's commands is refused with an error that says to use the hooks;
// the CSC's own commands take handlers by any of their names.
func TestCSC_GenericCommandsAreTheCSCs(t *testing.T) {
	d := testbus.Domain(t, nil)
	csc, err := controller.NewCSC(d, "Example", 1, controller.WithAllowMissing())
	if err != nil {
		t.Fatal(err)
	}
	defer csc.Close()
	nop := func(context.Context, *controller.Command) error { return nil }
	for _, n := range []string{"start", "cmd_enable", "command_disable", "standby", "exitControl", "setLogLevel"} {
		if err := csc.HandleFunc(n, nop); err == nil || !strings.Contains(err.Error(), "Hooks") {
			t.Errorf("handler for %s: %v, want an error pointing to the hooks", n, err)
		}
	}
	if err := csc.HandleFunc("cmd_setScalars", nop); err != nil {
		t.Errorf("handler for cmd_setScalars: %v", err)
	}
	if err := csc.HandleFunc("setScalar", nop); err == nil || !strings.Contains(err.Error(), "did you mean setScalars") {
		t.Errorf("handler for a typo: %v", err)
	}
	if csc.Name() != "Example:1" || csc.Index() != 1 || csc.Identity() != "Example:1" || csc.Component().Name != "Example" {
		t.Errorf("names %s %d %s", csc.Name(), csc.Index(), csc.Identity())
	}
}

// TestCSC_StartupOrder: Start writes, as the reference's BaseCsc, logLevel,
// the first heartbeat, simulationMode, softwareVersions, summaryState,
// errorCode, in that order of write calls (private_sndStamp).
func TestCSC_StartupOrder(t *testing.T) {
	d := testbus.Domain(t, nil)
	startCSC(t, d, 1)
	r := newRemote(t, d, 1)
	order := []string{"logLevel", "heartbeat", "simulationMode", "softwareVersions", "summaryState", "errorCode"}
	var last float64
	for _, ev := range order {
		rec, err := r.MustEvent(ev).Next(testbus.Ctx(t)) // history first: the first heartbeat is not the newest one
		if err != nil {
			t.Fatal(err)
		}
		snd := rec["private_sndStamp"].(float64)
		if ev != "heartbeat" && snd < last { // the heartbeat read back is the newest, not the first
			t.Errorf("%s written before the events that precede it (%v)", ev, order)
		}
		if ev != "heartbeat" {
			last = snd
		}
	}
	if r.MustEvent("configurationsAvailable").Get() != nil {
		t.Error("a CSC that is not configurable wrote configurationsAvailable")
	}
}

// TestCSC_SimulationMode: a mode outside the valid ones is refused at
// construction with the reference's text; the SimulationMode hook runs in
// Start before simulationMode is written, and its error fails Start,
// which ends the CSC.
func TestCSC_SimulationMode(t *testing.T) {
	d := testbus.Domain(t, nil)
	if _, err := controller.NewCSC(d, "Example", 1, controller.WithSimulationMode(2)); err == nil || err.Error() != "controller: simulation_mode=2 not in valid_simulation_modes=[0]" {
		t.Errorf("invalid mode: %v", err)
	}
	var seen int32 = -1
	csc := startCSC(t, d, 1, controller.WithSimulationMode(1), controller.WithValidSimulationModes(0, 1), controller.WithHooks(controller.Hooks{SimulationMode: func(_ context.Context, m int32) error { seen = m; return nil }}))
	if seen != 1 || csc.SimulationMode() != 1 {
		t.Errorf("hook saw %d, getter %d", seen, csc.SimulationMode())
	}
	bad := newCSC(t, d, 2, controller.WithHooks(controller.Hooks{SimulationMode: func(context.Context, int32) error { return errors.New("no simulator") }}))
	if err := bad.Start(testbus.Ctx(t)); err == nil || !strings.Contains(err.Error(), "no simulator") {
		t.Fatalf("Start with a failing SimulationMode hook: %v", err)
	}
	select {
	case <-bad.Done():
		if bad.Err() == nil {
			t.Error("Err is nil after a failed start")
		}
	default:
		t.Error("not done after a failed start")
	}
}

// TestCSC_StateFromCode: SetState writes summaryState (and errorCode 0 on
// leaving FAULT) from the CSC's own code; Fault writes errorCode, then
// summaryState, then a CRITICAL logMessage, and a Fault from within its
// SummaryState hook does nothing.
func TestCSC_StateFromCode(t *testing.T) {
	d := testbus.Domain(t, nil)
	var csc *controller.CSC
	calls := 0
	csc = startCSC(t, d, 1, controller.WithHooks(controller.Hooks{SummaryState: func(ctx context.Context, s controller.State) error {
		if s == controller.Fault {
			calls++
			return csc.Fault(ctx, 99, "again", "") // re-entered: ignored
		}
		return nil
	}}))
	r := newRemote(t, d, 1)
	ctx := testbus.Ctx(t)
	nextState(t, r) // STANDBY
	if err := csc.SetState(ctx, controller.Disabled); err != nil {
		t.Fatal(err)
	}
	if s := nextState(t, r); s != controller.Disabled {
		t.Errorf("after SetState(DISABLED): %s", s.Name())
	}
	if err := csc.Fault(ctx, 7, "it's broken", "trace"); err != nil {
		t.Fatal(err)
	}
	if s := nextState(t, r); s != controller.Fault || calls != 1 {
		t.Errorf("after Fault: %s, hook calls %d", s.Name(), calls)
	}
	// errorCode is another topic than summaryState: read it in its own order.
	ecR := r.MustEvent("errorCode")
	if ec, err := ecR.Next(ctx); err != nil || ec["errorCode"] != int32(0) {
		t.Fatalf("errorCode at start: %v %v", ec, err)
	}
	ec, err := ecR.Next(ctx)
	if err != nil || ec["errorCode"] != int32(7) || ec["errorReport"] != "it's broken" || ec["traceback"] != "trace" {
		t.Errorf("errorCode after Fault: %v %v", ec, err)
	}
	var crit map[string]any
	for crit == nil || crit["level"] != int32(50) {
		var err error
		if crit, err = r.MustEvent("logMessage").Next(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if crit["message"] != `Fault! errorCode=7, errorReport="it's broken"` {
		t.Errorf("CRITICAL logMessage %q", crit["message"])
	}
	if err := csc.SetState(ctx, controller.Standby); err != nil {
		t.Fatal(err)
	}
	if s := nextState(t, r); s != controller.Standby {
		t.Errorf("after SetState(STANDBY): %s", s.Name())
	}
	if ec, err := ecR.Next(ctx); err != nil || ec["errorCode"] != int32(0) {
		t.Errorf("errorCode after leaving FAULT: %v %v", ec, err)
	}
	if err := csc.SetState(ctx, 42); err == nil {
		t.Error("SetState(42) accepted")
	}
}

// TestCSC_SummaryStateHookFails: a SummaryState hook that fails fails the
// command that caused it; the state goes back and no summaryState is
// written.
func TestCSC_SummaryStateHookFails(t *testing.T) {
	d := testbus.Domain(t, nil)
	csc := startCSC(t, d, 1, controller.WithHooks(controller.Hooks{SummaryState: func(_ context.Context, s controller.State) error {
		if s == controller.Disabled {
			return errors.New("cannot connect")
		}
		return nil
	}}))
	r := newRemote(t, d, 1)
	a, err := r.Command(testbus.Ctx(t), "start", nil)
	if err == nil || a.Result != "Failed: cannot connect" || csc.State() != controller.Standby {
		t.Errorf("start with a failing hook: %v %v, state %s", a, err, csc.State().Name())
	}
	command(t, r, "exitControl", nil) // still STANDBY, so allowed
	// summaryState in its own order: STANDBY, then OFFLINE, no DISABLED between.
	for _, want := range []controller.State{controller.Standby, controller.Offline} {
		if s := nextState(t, r); s != want {
			t.Errorf("summaryState %s, want %s (the failed start wrote none)", s.Name(), want.Name())
		}
	}
}

// TestCSC_DuplicateText: the duplicate check's error is the reference's
// ExpectedError text and matches ErrDuplicate.
func TestCSC_DuplicateText(t *testing.T) {
	d := testbus.Domain(t, nil)
	startCSC(t, d, 3, controller.WithHeartbeatInterval(50*time.Millisecond))
	dup := newCSC(t, d, 3, controller.WithCheckDuplicate(), controller.WithHeartbeatInterval(50*time.Millisecond))
	err := dup.Start(testbus.Ctx(t))
	var ee *controller.ExpectedError
	if !errors.Is(err, controller.ErrDuplicate) || !errors.As(err, &ee) ||
		!strings.HasPrefix(err.Error(), fmt.Sprintf("Example:3 with origin=%d quitting: found another instance with origin=", os.Getpid())) {
		t.Errorf("duplicate: %v", err)
	}
}
