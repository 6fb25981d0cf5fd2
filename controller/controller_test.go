package controller_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/lsst-sal/salgo/controller"
	"github.com/lsst-sal/salgo/internal/leaktest"
	"github.com/lsst-sal/salgo/internal/testbus"
	"github.com/lsst-sal/salgo/remote"
	"github.com/lsst-sal/salgo/topics"
	salxml "github.com/lsst-sal/salgo/xml"
)

func TestMain(m *testing.M) { leaktest.VerifyTestMain(m) }

func newRemote(t testing.TB, d *topics.Domain, index int) *remote.Remote {
	t.Helper()
	r, err := remote.New(d, "Example", index)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(r.Close)
	if err := r.Start(testbus.Ctx(t)); err != nil {
		t.Fatal(err)
	}
	return r
}

// waitFor polls cond until it holds; the test's guard deadline turns a
// condition that never holds into a failure naming it.
func waitFor(t testing.TB, what string, cond func() bool) {
	t.Helper()
	ctx := testbus.Ctx(t)
	for !cond() {
		select {
		case <-ctx.Done():
			t.Fatalf("never happened: %s", what)
		case <-time.After(2 * time.Millisecond):
		}
	}
}

// startController starts a plain Controller of Example with the given
// handlers (the others answer "This command is not supported").
func startController(t testing.TB, d *topics.Domain, index int, handlers map[string]controller.HandlerFunc, opts ...controller.Option) *controller.Controller {
	t.Helper()
	c, err := controller.New(d, "Example", index, append(opts, controller.WithAllowMissing())...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	for name, h := range handlers {
		if err := c.Handle(name, h); err != nil {
			t.Fatal(err)
		}
	}
	if err := c.Start(testbus.Ctx(t)); err != nil {
		t.Fatal(err)
	}
	return c
}

// TestController_HandlerOutcomes: each handler outcome becomes the
// reference's final ack.
func TestController_HandlerOutcomes(t *testing.T) {
	d := testbus.Domain(t, nil)
	outcome := make(chan error, 1)
	c := startController(t, d, 1, map[string]controller.HandlerFunc{
		"setScalars": func(ctx context.Context, cmd *controller.Command) error { return <-outcome },
		"setArrays":  func(context.Context, *controller.Command) error { panic("kaboom") },
	})
	r := newRemote(t, d, 1)
	ctx := testbus.Ctx(t)
	for _, tc := range []struct {
		err    error
		code   topics.AckCode
		errNum int32
		result string
	}{
		{nil, topics.CmdComplete, 0, "Done"},
		{errors.New("boom"), topics.CmdFailed, 1, "Failed: boom"},
		{context.Canceled, topics.CmdAborted, 1, "Aborted"},
		{context.DeadlineExceeded, topics.CmdTimeout, 1, "Timeout"},
		{&controller.AckResult{Code: topics.CmdNoPerm, ErrorCode: 7, Result: "not yours"}, topics.CmdNoPerm, 7, "not yours"},
	} {
		outcome <- tc.err
		a, _ := r.Command(ctx, "setScalars", nil)
		if a == nil || a.Code != tc.code || a.Error != tc.errNum || a.Result != tc.result {
			t.Errorf("handler returned %v: ack %v, want %s error=%d %q", tc.err, a, tc.code, tc.errNum, tc.result)
		}
	}
	a, _ := r.Command(ctx, "setArrays", nil)
	if a == nil || a.Code != topics.CmdFailed || a.Result != "Failed: handler panicked: kaboom" {
		t.Errorf("panicking handler: %v", a)
	}
	a, _ = r.Command(ctx, "fault", nil)
	if a == nil || a.Code != topics.CmdFailed || a.Result != "Failed: This command is not supported" {
		t.Errorf("command without a handler (AllowMissing): %v", a)
	}
	if s := c.Stats(); s.Received != 7 || s.Completed != 1 || s.Failed != 6 || s.Rejected != 1 {
		t.Errorf("stats %+v, want 7 received, 1 completed, 6 failed, 1 rejected", s)
	}
}

// TestController_DuplicateCommand: a command record that reaches the log
// twice (same origin, identity and seqNum) runs its handler once and is
// acked once; the repeat is counted.
func TestController_DuplicateCommand(t *testing.T) {
	d := testbus.Domain(t, nil)
	ctx := testbus.Ctx(t)
	var mu sync.Mutex
	var runs []int32
	c := startController(t, d, 1, map[string]controller.HandlerFunc{
		"setScalars": func(_ context.Context, cmd *controller.Command) error {
			mu.Lock()
			runs = append(runs, cmd.SeqNum)
			mu.Unlock()
			return nil
		},
	})
	comp := c.Component()
	// A peer that writes the same command twice, then another one.
	in, err := d.NewInstance(comp, 1, "peer@host")
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	w, err := in.Writer(comp.Command("setScalars"))
	if err != nil {
		t.Fatal(err)
	}
	acks, err := in.Reader(comp.Ack(), topics.ReaderOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := in.Start(ctx); err != nil {
		t.Fatal(err)
	}
	for _, seq := range []int32{42, 42, 43} {
		if _, err := controller.WriteSeq(ctx, w, map[string]any{}, seq); err != nil {
			t.Fatal(err)
		}
	}
	var got []int32
	for len(got) == 0 || got[len(got)-1] != 43 {
		rec, err := acks.Next(ctx)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, topics.AckFromRecord(rec).SeqNum)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(runs) != 2 || runs[0] != 42 || runs[1] != 43 {
		t.Errorf("handler ran for seqNums %v, want [42 43]", runs)
	}
	if len(got) != 2 {
		t.Errorf("acks for seqNums %v, want one each for 42 and 43", got)
	}
	if s := c.Stats(); s.Duplicates != 1 || s.Received != 3 {
		t.Errorf("stats %+v, want 3 received, 1 duplicate", s)
	}
}

// TestController_BadCommands: commands with seqNum 0 or negative (which
// stop the reference's controller) are dropped and counted, with no ack;
// data that breaks a bound is answered CMD_FAILED naming the field; the
// controller goes on answering.
func TestController_BadCommands(t *testing.T) {
	d := testbus.Domain(t, nil)
	ctx := testbus.Ctx(t)
	c := startController(t, d, 1, map[string]controller.HandlerFunc{
		"setScalars": func(context.Context, *controller.Command) error { return nil },
		"setArrays":  func(context.Context, *controller.Command) error { return nil },
	})
	comp := c.Component()
	// Commands as a broken peer writes them: through topics, with the
	// data of its own choosing framed as is.
	in, err := d.NewInstance(comp, 1, "raw@test")
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	acks, err := in.Reader(comp.Ack(), topics.ReaderOptions{QueueLen: 1000})
	if err != nil {
		t.Fatal(err)
	}
	scal, err := in.Writer(comp.Command("setScalars"))
	if err != nil {
		t.Fatal(err)
	}
	if err := in.Start(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := controller.WriteSeq(ctx, scal, map[string]any{}, 0); err == nil {
		t.Fatal("the SDK's own writer sent seqNum 0")
	}
	peer := testbus.NewPeer(t, d, "raw@test", 1, 1)
	for _, seq := range []int32{0, -5} {
		peer.Write(comp.Command("setScalars"), peer.Record(comp.Command("setScalars"), map[string]any{"private_seqNum": seq}))
	}
	peer.Write(comp.Command("setArrays"), peer.Record(comp.Command("setArrays"), map[string]any{"private_seqNum": int32(77), "int0": []int32{1, 2, 3}}))
	if _, err := controller.WriteSeq(ctx, scal, map[string]any{}, 78); err != nil {
		t.Fatal(err)
	}
	var got []*topics.Ack
	for len(got) == 0 || got[len(got)-1].SeqNum != 78 {
		rec, err := acks.Next(ctx)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, topics.AckFromRecord(rec))
	}
	// setArrays and setScalars have topics of their own: their acks come
	// in either order.
	for _, a := range got {
		switch a.SeqNum {
		case 77:
			if a.Code != topics.CmdFailed || !strings.Contains(a.Result, "invalid command data") || !strings.Contains(a.Result, "int0") {
				t.Errorf("ack of the bad array: %v", a)
			}
		case 78:
			if a.Code != topics.CmdComplete {
				t.Errorf("ack of the good command after the bad ones: %v", a)
			}
		default:
			t.Errorf("ack for seqNum %d", a.SeqNum)
		}
	}
	waitFor(t, "3 commands rejected", func() bool { return c.Stats().Rejected == 3 })
}

// TestController_CloseAbortsRunning: Close acknowledges a running handler
// CMD_ABORTED (its ctx is cancelled), waits for it, is safe twice and
// concurrently, and a closed controller does not start again.
func TestController_CloseAbortsRunning(t *testing.T) {
	d := testbus.Domain(t, nil)
	ctx := testbus.Ctx(t)
	running := make(chan struct{})
	c := startController(t, d, 1, map[string]controller.HandlerFunc{
		"wait": func(ctx context.Context, cmd *controller.Command) error {
			close(running)
			<-ctx.Done()
			return ctx.Err()
		},
	})
	r := newRemote(t, d, 1)
	f, err := r.StartCommand(ctx, "wait", nil)
	if err != nil {
		t.Fatal(err)
	}
	<-running
	var wg sync.WaitGroup
	for range 3 {
		wg.Go(c.Close)
	}
	wg.Wait()
	if a, err := f.Wait(ctx); !errors.Is(err, remote.ErrCommandFailed) || a.Code != topics.CmdAborted || a.Result != "Aborted" {
		t.Errorf("running command at Close: %v, %v; want CMD_ABORTED", a, err)
	}
	if err := c.Start(ctx); !errors.Is(err, topics.ErrClosed) {
		t.Errorf("Start after Close: %v, want ErrClosed", err)
	}
}

// TestController_Concurrent: commands named in Concurrent run at once;
// the others of one topic one at a time.
func TestController_Concurrent(t *testing.T) {
	d := testbus.Domain(t, nil)
	ctx := testbus.Ctx(t)
	const n = 4
	var mu sync.Mutex
	inWait, inScalars, maxWait, maxScalars := 0, 0, 0, 0
	allIn := make(chan struct{})
	release := make(chan struct{})
	enter := func(in, most *int) {
		mu.Lock()
		*in++
		*most = max(*most, *in)
		if in == &inWait && *in == n {
			close(allIn)
		}
		mu.Unlock()
	}
	leave := func(in *int) { mu.Lock(); *in--; mu.Unlock() }
	startController(t, d, 1, map[string]controller.HandlerFunc{
		"wait": func(ctx context.Context, cmd *controller.Command) error {
			enter(&inWait, &maxWait)
			defer leave(&inWait)
			<-release
			return nil
		},
		"setScalars": func(ctx context.Context, cmd *controller.Command) error {
			enter(&inScalars, &maxScalars)
			defer leave(&inScalars)
			return nil
		},
	}, controller.WithConcurrent("wait"))
	r := newRemote(t, d, 1)
	var fs []*remote.Future
	for range n {
		f, err := r.StartCommand(ctx, "wait", nil)
		if err != nil {
			t.Fatal(err)
		}
		fs = append(fs, f)
	}
	select {
	case <-allIn: // all four waits are in their handlers at once
	case <-ctx.Done():
		t.Fatal("concurrent waits did not all run at once")
	}
	close(release)
	for range n {
		f, err := r.StartCommand(ctx, "setScalars", nil)
		if err != nil {
			t.Fatal(err)
		}
		fs = append(fs, f)
	}
	for _, f := range fs {
		if _, err := f.Wait(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if maxScalars != 1 {
		t.Errorf("up to %d setScalars handlers ran at once, want 1", maxScalars)
	}
	if _, err := controller.New(d, "Example", 1, controller.WithConcurrent("nosuch")); err == nil {
		t.Error("Concurrent of an unknown command accepted")
	}
}

// TestController_Setup: names, writers, handler registration rules,
// write-only controllers and the missing-handler check.
func TestController_Setup(t *testing.T) {
	d := testbus.Domain(t, nil)
	ctx := testbus.Ctx(t)
	c, err := controller.New(d, "Example", 3, controller.WithIdentity("me"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if c.Name() != "Example:3" || c.Index() != 3 || c.Identity() != "me" || c.Component().Name != "Example" {
		t.Errorf("names: %s %d %s", c.Name(), c.Index(), c.Identity())
	}
	if w, err := c.Event("evt_summaryState"); err != nil || w != c.MustEvent("summaryState") || c.MustTelemetry("tel_scalars") == nil {
		t.Errorf("writers: %v, %v", w, err)
	}
	if _, err := c.Event("sumaryState"); !errors.Is(err, salxml.ErrUnknownTopic) || !strings.Contains(err.Error(), "did you mean summaryState") {
		t.Errorf("unknown event: %v", err)
	}
	if err := c.HandleFunc("setScalars", nil); err == nil {
		t.Error("nil handler accepted")
	}
	if err := c.HandleFunc("nosuch", nil); err == nil {
		t.Error("handler for an unknown command accepted")
	}
	if err := c.Start(ctx); err == nil || !strings.Contains(err.Error(), "no handler") {
		t.Errorf("Start with no handlers: %v", err)
	}
	wo, err := controller.New(d, "Example", 4, controller.WithWriteOnly())
	if err != nil {
		t.Fatal(err)
	}
	defer wo.Close()
	if err := wo.Start(ctx); err != nil {
		t.Fatal(err)
	}
	if err := wo.HandleFunc("start", func(context.Context, *controller.Command) error { return nil }); err == nil {
		t.Error("Handle after Start accepted")
	}
	if err := wo.Start(ctx); err == nil {
		t.Error("Start twice accepted")
	}
	if _, err := wo.MustEvent("scalars").Write(ctx, map[string]any{"int0": 1}); err != nil {
		t.Errorf("write-only controller's event: %v", err)
	}
	if _, err := controller.New(d, "NoSuch", 0); err == nil {
		t.Error("unknown component accepted")
	}
}

// TestAck_CmdType: an ack carries the command's index in the sorted SAL
// topic names of the component, and the CSC's SAL index.
func TestAck_CmdType(t *testing.T) {
	d := testbus.Domain(t, nil)
	startCSC(t, d, 1)
	r := newRemote(t, d, 1)
	a := command(t, r, "start", nil)
	if want := r.Component().CmdType("command_start"); int(a.CmdType) != want || a.SALIndex != 1 {
		t.Errorf("cmdtype %d (want %d), salIndex %d", a.CmdType, want, a.SALIndex)
	}
}

// TestController_WriteOnlyWritesNothingOfItsOwn: a write-only Controller
// writes only what its program writes (no logLevel at start), while a
// Controller that reads its commands writes logLevel at start.
func TestController_WriteOnlyWritesNothingOfItsOwn(t *testing.T) {
	d := testbus.Domain(t, nil)
	ctx := testbus.Ctx(t)
	wo, err := controller.New(d, "Example", 1, controller.WithWriteOnly())
	if err != nil {
		t.Fatal(err)
	}
	defer wo.Close()
	if err := wo.Start(ctx); err != nil {
		t.Fatal(err)
	}
	c := startController(t, d, 2, nil)
	r1, r2 := newRemote(t, d, 1), newRemote(t, d, 2)
	// The written-by-the-program record on index 1, after which nothing
	// of the Controller's own can come unseen.
	if _, err := wo.MustEvent("logLevel").Write(ctx, map[string]any{"level": 42}); err != nil {
		t.Fatal(err)
	}
	if rec, err := r1.MustEvent("logLevel").Next(ctx); err != nil || rec["level"] != int32(42) {
		t.Errorf("write-only controller's first logLevel: %v %v, want the program's 42", rec, err)
	}
	if rec, err := r2.MustEvent("logLevel").Next(ctx); err != nil || rec["level"] != int32(20) {
		t.Errorf("controller's logLevel at start: %v %v, want 20", rec, err)
	}
	_ = c
}
