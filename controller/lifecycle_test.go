package controller_test

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/lsst-sal/salgo/controller"
	"github.com/lsst-sal/salgo/internal/testbus"
	"github.com/lsst-sal/salgo/remote"
	"github.com/lsst-sal/salgo/topics"
)

// cscDone waits for the CSC's Done, failing the test at its guard
// deadline.
func cscDone(t *testing.T, csc *controller.CSC, what string) {
	t.Helper()
	select {
	case <-csc.Done():
	case <-testbus.Ctx(t).Done():
		t.Fatalf("%s: Done never closed", what)
	}
}

// TestCSC_InitialOfflineEnds: a CSC whose initial state is OFFLINE runs
// exitControl during Start, as the reference's start_phase2 does, and so
// ends: Done closes with no error and OFFLINE is the last state written.
func TestCSC_InitialOfflineEnds(t *testing.T) {
	d := testbus.Domain(t, nil)
	r := newRemote(t, d, 1)
	var closes atomic.Int32
	csc := startCSC(t, d, 1, controller.WithInitialState(controller.Offline), controller.WithHooks(controller.Hooks{Close: func(context.Context) error { closes.Add(1); return nil }}))
	cscDone(t, csc, "initial state OFFLINE")
	if err := csc.Err(); err != nil {
		t.Errorf("Err %v, want nil", err)
	}
	if n := closes.Load(); n != 1 {
		t.Errorf("the Close hook ran %d times, want 1", n)
	}
	for s := nextState(t, r); s != controller.Offline; s = nextState(t, r) {
	}
}

// TestCSC_StartupTransitionsAsCommands: the transitions to the initial
// state run as received commands do: a BeginStart that reports progress
// (InProgress) does not fail the transition, and the hooks get the CSC's
// own context, which lives after the context given to Start has ended.
func TestCSC_StartupTransitionsAsCommands(t *testing.T) {
	d := testbus.Domain(t, nil)
	var loopCtx context.Context
	var mu sync.Mutex
	csc := newCSC(t, d, 1, controller.WithInitialState(controller.Enabled), controller.WithHooks(controller.Hooks{
		BeginStart: func(ctx context.Context, cmd *controller.Command) error {
			return cmd.InProgress(ctx, 10*time.Second, "")
		},
		SummaryState: func(ctx context.Context, s controller.State) error {
			if s == controller.Enabled {
				mu.Lock()
				loopCtx = ctx // as a hook that starts a telemetry loop with it
				mu.Unlock()
			}
			return nil
		},
	}))
	start, cancel := context.WithCancel(testbus.Ctx(t))
	if err := csc.Start(start); err != nil {
		t.Fatal(err)
	}
	cancel() // Start's caller is done with its context
	if s := csc.State(); s != controller.Enabled {
		t.Fatalf("state %s after Start, want ENABLED (a BeginStart reporting progress failed the startup?)", s.Name())
	}
	mu.Lock()
	ctx := loopCtx
	mu.Unlock()
	if ctx == nil || ctx.Err() != nil {
		t.Fatalf("the SummaryState hook's context after Start's ended: %v; want the CSC's own, alive", ctx)
	}
	csc.Close()
	if ctx.Err() == nil {
		t.Error("the hook's context still alive after Close")
	}
}

// TestCSC_StartTwice: a second Start is an error matching ErrStarted and
// leaves the running CSC alone.
func TestCSC_StartTwice(t *testing.T) {
	d := testbus.Domain(t, nil)
	r := newRemote(t, d, 1)
	csc := startCSC(t, d, 1)
	if err := csc.Start(testbus.Ctx(t)); !errors.Is(err, controller.ErrStarted) {
		t.Fatalf("second Start: %v, want ErrStarted", err)
	}
	select {
	case <-csc.Done():
		t.Fatalf("the second Start closed the CSC: %v", csc.Err())
	default:
	}
	command(t, r, "start", nil)
	if s := csc.State(); s != controller.Disabled {
		t.Errorf("state %s after start, want DISABLED", s.Name())
	}
}

// TestCSC_CloseHookOnEveryPath: the Close hook runs once whatever closes
// the CSC (exitControl, Close, Shutdown, its bus), with the topics still
// open; Shutdown goes to OFFLINE through the SummaryState hook first; a
// hook's error is logged with the reference's text and the close goes on.
func TestCSC_CloseHookOnEveryPath(t *testing.T) {
	for _, path := range []string{"exitControl", "Close", "Shutdown", "bus"} {
		t.Run(path, func(t *testing.T) {
			watch := newLogWatch("Controller.close_tasks failed; close continues")
			cfg, _ := testbus.Config(t, nil)
			cfg.Logger = slog.New(watch)
			d := testbus.Connect(t, cfg)
			r := newRemote(t, d, 1)
			var closes atomic.Int32
			var states []controller.State
			var mu sync.Mutex
			var csc *controller.CSC
			csc = startCSC(t, d, 1, controller.WithHooks(controller.Hooks{
				SummaryState: func(_ context.Context, s controller.State) error {
					mu.Lock()
					states = append(states, s)
					mu.Unlock()
					return nil
				},
				Close: func(ctx context.Context) error {
					closes.Add(1)
					// The topics are still open: the hook may write.
					if _, err := csc.MustTelemetry("scalars").Write(ctx, map[string]any{"int0": int32(7)}); err != nil {
						t.Errorf("write from the Close hook: %v", err)
					}
					return errors.New("hardware would not let go")
				},
			}))
			nextState(t, r)
			switch path {
			case "exitControl":
				command(t, r, "exitControl", nil)
			case "Close":
				csc.Close()
			case "Shutdown":
				if err := csc.Shutdown(testbus.Ctx(t)); err != nil {
					t.Errorf("Shutdown: %v", err)
				}
			case "bus":
				d.Close()
			}
			cscDone(t, csc, path)
			csc.Close()
			if n := closes.Load(); n != 1 {
				t.Errorf("the Close hook ran %d times, want 1", n)
			}
			watch.wait(t, 1)
			mu.Lock()
			defer mu.Unlock()
			wantOffline := path == "exitControl" || path == "Shutdown"
			if got := len(states) > 0 && states[len(states)-1] == controller.Offline; got != wantOffline {
				t.Errorf("SummaryState hook saw %v; OFFLINE last: %v, want %v", states, got, wantOffline)
			}
			if wantOffline {
				for s := nextState(t, r); s != controller.Offline; s = nextState(t, r) {
				}
			}
		})
	}
}

// TestBusClose_EndsEverything: closing the bus closes every Remote,
// Controller and CSC on it: a command in flight ends with ErrClosed at
// once (not at its timeout), the CSC's Done closes and its goroutines
// stop (the package's leak check).
func TestBusClose_EndsEverything(t *testing.T) {
	d := testbus.Domain(t, nil)
	csc := startCSC(t, d, 1, controller.WithInitialState(controller.Enabled))
	r := newRemote(t, d, 1)
	f, err := r.StartCommand(testbus.Ctx(t), "wait", map[string]any{"duration": 3600.0}, remote.WithTimeout(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	d.Close()
	if _, err := f.Wait(testbus.Ctx(t)); !errors.Is(err, topics.ErrClosed) {
		t.Errorf("command in flight after the bus closed: %v, want ErrClosed", err)
	}
	cscDone(t, csc, "bus closed")
}

// TestCSC_ShutdownDuringExitControl: a termination signal that lands
// while the startup exitControl (initial state OFFLINE) is between its
// new state and its summaryState write aborts that write; Shutdown then
// still leaves OFFLINE as the last state on the bus, not the STANDBY
// written before. (CI's SIGTERM runs caught this: --state offline,
// SIGTERM 3 s into the start.)
func TestCSC_ShutdownDuringExitControl(t *testing.T) {
	d := testbus.Domain(t, nil)
	r := newRemote(t, d, 1)
	var csc *controller.CSC
	shut := make(chan error, 1)
	csc = newCSC(t, d, 1, controller.WithInitialState(controller.Offline), controller.WithHooks(controller.Hooks{
		SummaryState: func(ctx context.Context, s controller.State) error {
			if s == controller.Offline && ctx.Err() == nil {
				// The signal arrives now: Shutdown aborts this
				// transition; the hook has done its work and returns.
				go func() { shut <- csc.Shutdown(testbus.Ctx(t)) }()
				<-ctx.Done()
			}
			return nil
		},
	}))
	_ = csc.Start(testbus.Ctx(t)) // cut short by the Shutdown
	if err := <-shut; err != nil {
		t.Errorf("Shutdown: %v", err)
	}
	cscDone(t, csc, "Shutdown")
	for s := nextState(t, r); s != controller.Offline; s = nextState(t, r) {
		if s != controller.Standby {
			t.Fatalf("summaryState %s on the bus, want STANDBY then OFFLINE", s.Name())
		}
	}
}

// TestCSC_ShutdownDuringFirstReport: a signal while Start's first
// summaryState write waits for the broker cuts that write short, but the
// record is handed over and reaches the bus; Shutdown still writes
// OFFLINE after it. (The CSC counted a state as written only once the
// broker had answered, so Shutdown skipped OFFLINE as if the CSC had
// written nothing, and STANDBY stayed the last state.)
func TestCSC_ShutdownDuringFirstReport(t *testing.T) {
	cfg, local := testbus.Config(t, nil)
	if local == nil {
		t.Skip("needs the embedded broker: the test holds produce requests in it")
	}
	d := testbus.Connect(t, cfg)
	r := newRemote(t, d, 1) // creates the topics, so that their IDs are known
	states := topicIDs(t, cfg.Brokers, "."+cfg.Subname+".", "Example.logevent_summaryState")
	hold, held := make(chan struct{}), make(chan struct{})
	var once, release sync.Once
	unhold := func() { release.Do(func() { close(hold) }) }
	t.Cleanup(unhold)
	kc := local.Kafka()
	kc.ControlKey(int16(kmsg.Produce), func(req kmsg.Request) (kmsg.Response, error, bool) {
		for _, tp := range req.(*kmsg.ProduceRequest).Topics {
			if states[tp.TopicID] || strings.HasSuffix(tp.Topic, "Example.logevent_summaryState") {
				once.Do(func() { close(held) })
				kc.SleepControl(func() { <-hold })
				break
			}
		}
		return nil, nil, false
	})
	csc := newCSC(t, d, 1)
	started := make(chan error, 1)
	go func() { started <- csc.Start(testbus.Ctx(t)) }()
	select {
	case <-held: // STANDBY is in the broker's hands
	case <-testbus.Ctx(t).Done():
		t.Fatal("Start never wrote summaryState")
	}
	shut := make(chan error, 1)
	go func() { shut <- csc.Shutdown(testbus.Ctx(t)) }()
	if err := <-started; err == nil {
		t.Error("Start cut short by Shutdown returned no error")
	}
	unhold() // STANDBY, then whatever Shutdown wrote, reach the log
	if err := <-shut; err != nil {
		t.Errorf("Shutdown: %v", err)
	}
	cscDone(t, csc, "Shutdown")
	if s := nextState(t, r); s != controller.Standby {
		t.Fatalf("first state on the bus %s, want STANDBY", s.Name())
	}
	if s := nextState(t, r); s != controller.Offline {
		t.Errorf("state after STANDBY %s, want OFFLINE", s.Name())
	}
}
