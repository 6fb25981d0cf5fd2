package sal_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/lsst-sal/salgo/controller"
	"github.com/lsst-sal/salgo/remote"
	"github.com/lsst-sal/salgo/sal"
	salxml "github.com/lsst-sal/salgo/xml"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m,
		goleak.IgnoreTopFunction("net/http.(*persistConn).writeLoop"),
		goleak.IgnoreTopFunction("net/http.(*persistConn).readLoop"),
		goleak.IgnoreTopFunction("internal/poll.runtime_pollWait"),
	)
}

var subSeq int

// newBus connects a Bus for one test: the bus of the LSST_* variables when
// set, else an embedded one; each test gets its own topic subname.
func newBus(t testing.TB) *sal.Bus {
	t.Helper()
	subSeq++
	name := strings.NewReplacer("/", "_", "#", "").Replace(t.Name())
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	if os.Getenv("SALGO_TEST_LOG") != "" {
		logger = slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	b, err := sal.Connect(ctx,
		sal.WithSubname(fmt.Sprintf("t%d_%d_%s", os.Getpid(), subSeq, name)),
		sal.WithDefinitions(salxml.Embedded()),
		sal.WithLogger(logger))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	return b
}

func ctxT(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// startCSC starts an Example CSC like the reference's TestCsc.
func startCSC(t testing.TB, b *sal.Bus, index int, opts ...controller.CSCOption) *sal.CSC {
	t.Helper()
	opts = append([]controller.CSCOption{
		controller.EnabledCommands("setScalars", "setArrays", "wait"),
		controller.ControllerOptions(controller.Concurrent("wait")),
	}, opts...)
	csc, err := b.NewCSC("Example", index, opts...)
	if err != nil {
		t.Fatal(err)
	}
	nop := func(context.Context, *controller.Command) error { return nil }
	csc.HandleFunc("setScalars", nop)
	csc.HandleFunc("setArrays", nop)
	csc.HandleFunc("wait", func(ctx context.Context, cmd *controller.Command) error {
		d := time.Duration(cmd.Data["duration"].(float64) * float64(time.Second))
		if d >= 0 {
			if err := cmd.InProgress(ctx, d, ""); err != nil {
				return err
			}
		} else {
			d = -d
		}
		select {
		case <-time.After(d):
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	})
	csc.HandleFunc("fault", func(ctx context.Context, cmd *controller.Command) error {
		return csc.Fault(ctx, 1, "executing the fault command", "")
	})
	if err := csc.Start(ctxT(t)); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(csc.Close)
	return csc
}

func newRemote(t testing.TB, b *sal.Bus, index int, opts ...remote.Option) *sal.Remote {
	t.Helper()
	r, err := b.NewRemote(ctxT(t), "Example", index, opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(r.Close)
	return r
}

// waitState waits for the Remote to see the CSC in state want.
// It returns once the latest summaryState is want and drops the older
// states still queued, so a later waitState cannot take one of them (the
// DISABLED on the way to ENABLED, say) for a new transition.
func waitState(t testing.TB, r *sal.Remote, want sal.State) {
	t.Helper()
	ctx := ctxT(t)
	ev := r.Event("summaryState")
	for {
		if rec := ev.Get(); rec != nil && sal.State(rec["summaryState"].(int32)) == want {
			if err := ev.Flush(); err != nil {
				t.Fatal(err)
			}
			return
		}
		rec, err := ev.Next(ctx)
		if err != nil {
			t.Fatalf("waiting for %s: %v", want.Name(), err)
		}
		if sal.State(rec["summaryState"].(int32)) == want {
			return
		}
	}
}

// TestCSC_StandardStateTransitions is the reference's
// check_standard_state_transitions: in each state only the allowed
// commands succeed; every other fails with CMD_FAILED and the reference's text.
func TestCSC_StandardStateTransitions(t *testing.T) {
	b := newBus(t)
	csc := startCSC(t, b, 1)
	r := newRemote(t, b, 1)
	ctx := ctxT(t)
	enabledCmds := []string{"setArrays", "setScalars", "wait"}
	all := append([]string{"start", "enable", "disable", "standby", "exitControl"}, enabledCmds...)
	allowed := map[sal.State][]string{
		sal.Standby:  {"start", "exitControl"},
		sal.Disabled: {"enable", "standby"},
		sal.Enabled:  append([]string{"disable"}, enabledCmds...),
	}
	check := func(state sal.State) {
		t.Helper()
		waitState(t, r, state)
		for _, c := range all {
			if contains(allowed[state], c) {
				continue
			}
			params := map[string]any{}
			if c == "wait" {
				params["duration"] = 0.0
			}
			ack, err := r.Command(ctx, c, params, remote.Timeout(10*time.Second))
			var ae *remote.AckError
			if !errors.As(err, &ae) {
				t.Fatalf("%s in %s: got %v, %v; want CMD_FAILED", c, state.Name(), ack, err)
			}
			want := fmt.Sprintf("Failed: %s not allowed in state %s", c, state)
			if ae.Ack.Code != sal.CmdFailed || ae.Ack.Error != 1 || ae.Ack.Result != want {
				t.Errorf("%s in %s: %s error=%d %q; want CMD_FAILED error=1 %q", c, state.Name(), ae.Ack.Code, ae.Ack.Error, ae.Ack.Result, want)
			}
			if csc.State() != state {
				t.Fatalf("%s in %s changed the state to %s", c, state.Name(), csc.State().Name())
			}
		}
		// setLogLevel works in every state.
		if _, err := r.Command(ctx, "setLogLevel", map[string]any{"level": 10}); err != nil {
			t.Errorf("setLogLevel in %s: %v", state.Name(), err)
		}
	}
	cmd := func(name string) {
		t.Helper()
		if _, err := r.Command(ctx, name, nil, remote.Timeout(10*time.Second)); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
	}
	check(sal.Standby)
	cmd("start")
	check(sal.Disabled)
	cmd("enable")
	check(sal.Enabled)
	for _, c := range enabledCmds {
		params := map[string]any{}
		if c == "wait" {
			params["duration"] = 0.0
		}
		if _, err := r.Command(ctx, c, params); err != nil {
			t.Errorf("%s in ENABLED: %v", c, err)
		}
	}
	cmd("disable")
	waitState(t, r, sal.Disabled)
	cmd("standby")
	waitState(t, r, sal.Standby)
	cmd("exitControl")
	waitState(t, r, sal.Offline)
	select {
	case <-csc.Done():
	case <-ctx.Done():
		t.Fatal("CSC not done after exitControl")
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func enable(t testing.TB, r *sal.Remote) {
	t.Helper()
	for _, c := range []string{"start", "enable"} {
		if _, err := r.Command(ctxT(t), c, nil); err != nil {
			t.Fatalf("%s: %v", c, err)
		}
	}
}

func TestCommand_InProgressExtendsTimeout(t *testing.T) {
	b := newBus(t)
	startCSC(t, b, 1)
	r := newRemote(t, b, 1)
	enable(t, r)
	f, err := r.StartCommand(ctxT(t), "wait", map[string]any{"duration": 0.6}, remote.Timeout(300*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	var codes []sal.AckCode
	for {
		a, err := f.Next(ctxT(t))
		if err != nil {
			t.Fatalf("after %v: %v", codes, err)
		}
		codes = append(codes, a.Code)
		if a.Code.Final() {
			break
		}
	}
	if fmt.Sprint(codes) != fmt.Sprint([]sal.AckCode{sal.CmdInProgress, sal.CmdComplete}) {
		t.Errorf("acks %v", codes)
	}
}

func TestCommand_TimeoutWithoutAck(t *testing.T) {
	b := newBus(t)
	r := newRemote(t, b, 1) // no CSC at all
	ack, err := r.Command(ctxT(t), "enable", nil, remote.Timeout(200*time.Millisecond))
	var te *remote.TimeoutError
	if !errors.As(err, &te) || !errors.Is(err, sal.ErrTimeout) {
		t.Fatalf("got %v", err)
	}
	if ack.Code != sal.CmdNoAck || te.Last.Code != sal.CmdNoAck || te.Last.Result != "No command acknowledgement seen" {
		t.Errorf("last ack %v", te.Last)
	}
}

func TestCommand_TimeoutAfterInProgress(t *testing.T) {
	b := newBus(t)
	c, err := b.NewController("Example", 1, controller.AllowMissing())
	if err != nil {
		t.Fatal(err)
	}
	release := make(chan struct{})
	c.HandleFunc("wait", func(ctx context.Context, cmd *controller.Command) error {
		if err := cmd.InProgress(ctx, 10*time.Millisecond, "almost done"); err != nil {
			return err
		}
		select {
		case <-release:
		case <-ctx.Done():
		}
		return nil
	})
	if err := c.Start(ctxT(t)); err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	defer close(release)
	r := newRemote(t, b, 1)
	ack, err := r.Command(ctxT(t), "wait", map[string]any{"duration": 1.0}, remote.Timeout(2*time.Second))
	var te *remote.TimeoutError
	if !errors.As(err, &te) {
		t.Fatalf("got %v, %v", ack, err)
	}
	if te.Last.Code != sal.CmdInProgress || te.Last.Result != "almost done" || ack != te.Last {
		t.Errorf("last ack %v", te.Last)
	}
}

func TestCommand_ContextDeadlineWins(t *testing.T) {
	b := newBus(t)
	r := newRemote(t, b, 1)
	f, err := r.StartCommand(ctxT(t), "enable", nil) // default timeout: an hour
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	_, err = f.Wait(ctx)
	if !errors.Is(err, sal.ErrTimeout) || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("got %v", err)
	}
}

func TestCommand_ConcurrentWaits(t *testing.T) {
	b := newBus(t)
	startCSC(t, b, 1)
	r := newRemote(t, b, 1)
	enable(t, r)
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := r.Command(ctxT(t), "wait", map[string]any{"duration": 0.3})
			errs <- err
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
}

func TestCommand_AbortedOnClose(t *testing.T) {
	b := newBus(t)
	csc := startCSC(t, b, 1)
	r := newRemote(t, b, 1)
	enable(t, r)
	f, err := r.StartCommand(ctxT(t), "wait", map[string]any{"duration": 30.0})
	if err != nil {
		t.Fatal(err)
	}
	if a, err := f.Next(ctxT(t)); err != nil || a.Code != sal.CmdInProgress {
		t.Fatalf("first ack %v %v", a, err)
	}
	csc.Close()
	a, err := f.Wait(ctxT(t))
	if !errors.Is(err, sal.ErrCommandFailed) || a.Code != sal.CmdAborted || a.Result != "Aborted" {
		t.Fatalf("got %v, %v", a, err)
	}
}

func TestCommand_TwoIdentities(t *testing.T) {
	b := newBus(t)
	startCSC(t, b, 1)
	ra := newRemote(t, b, 1, remote.Identity("alice@example"))
	rb := newRemote(t, b, 1, remote.Identity("bob@example"))
	enable(t, ra)
	var wg sync.WaitGroup
	for _, r := range []*sal.Remote{ra, rb} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 20 {
				f, err := r.StartCommand(ctxT(t), "setScalars", nil)
				if err != nil {
					t.Error(err)
					return
				}
				a, err := f.Wait(ctxT(t))
				if err != nil {
					t.Error(err)
					return
				}
				if a.Identity != r.Identity() || a.SeqNum != f.SeqNum() {
					t.Errorf("%s got an ack for %s seq %d", r.Identity(), a.Identity, a.SeqNum)
				}
			}
		}()
	}
	wg.Wait()
}

func TestIndexedPair(t *testing.T) {
	b := newBus(t)
	c1 := startCSC(t, b, 1)
	c2 := startCSC(t, b, 2)
	all := newRemote(t, b, 0, remote.ReadOnly())
	// The index-0 reader sees the summaryState of both, history first.
	seen := map[int32]bool{}
	ctx := ctxT(t)
	for len(seen) < 2 {
		rec, err := all.Event("summaryState").Next(ctx)
		if err != nil {
			t.Fatal(err)
		}
		seen[rec["salIndex"].(int32)] = true
	}
	r1 := newRemote(t, b, 1)
	if _, err := r1.Command(ctx, "start", nil); err != nil {
		t.Fatal(err)
	}
	if c1.State() != sal.Disabled || c2.State() != sal.Standby {
		t.Errorf("states after start to index 1: %s %s", c1.State().Name(), c2.State().Name())
	}
	if s := c2.Stats(); s.Received != 0 {
		t.Errorf("CSC 2 received %d commands meant for index 1", s.Received)
	}
}

func TestController_MissingHandlers(t *testing.T) {
	b := newBus(t)
	c, err := b.NewController("Example", 3)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := c.Start(ctxT(t)); err == nil || !strings.Contains(err.Error(), "no handler") {
		t.Fatalf("Start without handlers: %v", err)
	}
	c2, err := b.NewController("Example", 4, controller.AllowMissing())
	if err != nil {
		t.Fatal(err)
	}
	defer c2.Close()
	if err := c2.Start(ctxT(t)); err != nil {
		t.Fatal(err)
	}
	r := newRemote(t, b, 4)
	_, err = r.Command(ctxT(t), "fault", nil)
	var ae *remote.AckError
	if !errors.As(err, &ae) || ae.Ack.Result != "Failed: This command is not supported" {
		t.Fatalf("got %v", err)
	}
}

func TestAck_CmdType(t *testing.T) {
	b := newBus(t)
	startCSC(t, b, 1)
	r := newRemote(t, b, 1)
	a, err := r.Command(ctxT(t), "start", nil)
	if err != nil {
		t.Fatal(err)
	}
	want := r.Component().CmdType("command_start")
	if int(a.CmdType) != want || a.SALIndex != 1 {
		t.Errorf("cmdtype %d (want %d), salIndex %d", a.CmdType, want, a.SALIndex)
	}
}

func TestCSC_CheckDuplicate(t *testing.T) {
	b := newBus(t)
	startCSC(t, b, 7, controller.CheckDuplicate()) // none running: starts
	dup, err := b.NewCSC("Example", 7, controller.CheckDuplicate(), controller.ControllerOptions(controller.AllowMissing()))
	if err != nil {
		t.Fatal(err)
	}
	defer dup.Close()
	if err := dup.Start(ctxT(t)); !errors.Is(err, controller.ErrDuplicate) {
		t.Fatalf("second instance: %v", err)
	}
}

func TestCSC_LogMessageAndHeartbeat(t *testing.T) {
	b := newBus(t)
	csc := startCSC(t, b, 1)
	r := newRemote(t, b, 1)
	if _, err := r.Event("heartbeat").Next(ctxT(t)); err != nil {
		t.Fatal(err)
	}
	csc.Logger().Warn("pump pressure low", "bar", 1.5)
	rec, err := r.Event("logMessage").Next(ctxT(t))
	if err != nil {
		t.Fatal(err)
	}
	if rec["level"] != int32(30) || rec["message"] != "pump pressure low bar=1.5" || rec["name"] != "Example:1" {
		t.Errorf("logMessage %v %q %v", rec["level"], rec["message"], rec["name"])
	}
	// INFO is the default level; DEBUG messages are not published.
	csc.Logger().Debug("not published")
	csc.Logger().Info("published")
	rec, err = r.Event("logMessage").Next(ctxT(t))
	if err != nil || rec["message"] != "published" {
		t.Errorf("got %v %v", rec["message"], err)
	}
	sv := r.Event("softwareVersions").Get()
	if sv == nil || sv["cscVersion"] != "unknown" {
		t.Errorf("softwareVersions %v", sv)
	}
}
