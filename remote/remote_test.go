package remote_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/lsst-sal/salgo/controller"
	"github.com/lsst-sal/salgo/internal/leaktest"
	"github.com/lsst-sal/salgo/internal/testbus"
	"github.com/lsst-sal/salgo/internal/testcsc"
	"github.com/lsst-sal/salgo/remote"
	"github.com/lsst-sal/salgo/topics"
	salxml "github.com/lsst-sal/salgo/xml"
)

func TestMain(m *testing.M) { leaktest.VerifyTestMain(m) }

// startCSC starts an Example CSC answering as the reference's TestCsc
// (see internal/testcsc).
func startCSC(t testing.TB, d *topics.Domain, index int) *controller.CSC {
	t.Helper()
	csc, err := controller.NewCSC(d, "Example", index, controller.WithEnabledCommands(testcsc.EnabledCommands()...), controller.WithConcurrent(testcsc.Concurrent()...))
	if err != nil {
		t.Fatal(err)
	}
	if err := testcsc.Handle(csc, testcsc.Complete); err != nil {
		t.Fatal(err)
	}
	if err := csc.Start(testbus.Ctx(t)); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(csc.Close)
	return csc
}

func newRemote(t testing.TB, d *topics.Domain, index int, opts ...remote.Option) *remote.Remote {
	t.Helper()
	r, err := remote.New(d, "Example", index, opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(r.Close)
	if err := r.Start(testbus.Ctx(t)); err != nil {
		t.Fatal(err)
	}
	return r
}

func enable(t testing.TB, r *remote.Remote) {
	t.Helper()
	for _, c := range []string{"start", "enable"} {
		if _, err := r.Command(testbus.Ctx(t), c, nil); err != nil {
			t.Fatalf("%s: %v", c, err)
		}
	}
}

// done waits for f to end; the test's guard deadline turns a Future that
// never ends into a failure.
func done(t testing.TB, f *remote.Future) (*topics.Ack, error) {
	t.Helper()
	select {
	case <-f.Done():
		return f.Result()
	case <-testbus.Ctx(t).Done():
		t.Fatalf("command %s (seqNum %d) never ended", f.Command(), f.SeqNum())
		return nil, nil
	}
}

// TestFuture_EndsWithoutWaiter: a command nobody waits on still ends: at
// its final ack (Done closes, Result holds the ack) and, with no ack at
// all, at its own timeout (a local CMD_NOACK and a *TimeoutError); either
// way it leaves the Remote's pending table.
func TestFuture_EndsWithoutWaiter(t *testing.T) {
	d := testbus.Domain(t, nil)
	startCSC(t, d, 1)
	r := newRemote(t, d, 1)
	ctx := testbus.Ctx(t)
	f, err := r.StartCommand(ctx, "start", nil)
	if err != nil {
		t.Fatal(err)
	}
	if a, err := done(t, f); err != nil || a.Code != topics.CmdComplete || a.Result != "Done" {
		t.Errorf("start: Result %v, %v; want CMD_COMPLETE Done", a, err)
	}

	// Nobody answers index 9: 1,000 fire-and-forget commands time out.
	silent := newRemote(t, d, 9)
	fs := make([]*remote.Future, 1000)
	for i := range fs {
		if fs[i], err = silent.StartCommand(ctx, "setScalars", nil, remote.WithTimeout(time.Millisecond)); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range fs {
		a, err := done(t, f)
		var te *remote.TimeoutError
		if !errors.As(err, &te) || !errors.Is(err, remote.ErrTimeout) || a == nil || a.Code != topics.CmdNoAck || te.Last != a {
			t.Fatalf("unanswered command: Result %v, %v; want the local CMD_NOACK and a *TimeoutError carrying it", a, err)
		}
		if a.SeqNum != f.SeqNum() || a.Result != "No command acknowledgement seen" {
			t.Fatalf("local NOACK %+v for seqNum %d", a, f.SeqNum())
		}
	}
	if n := silent.Pending(); n != 0 {
		t.Errorf("%d commands still pending after all ended", n)
	}
	if n := r.Pending(); n != 0 {
		t.Errorf("%d commands still pending after the final ack", n)
	}
}

// TestFuture_CancelledCallKeepsCommand: a ctx that ends a call to Next or
// Wait ends that call only; the command goes on and its final ack is
// seen by the next call.
func TestFuture_CancelledCallKeepsCommand(t *testing.T) {
	d := testbus.Domain(t, nil)
	startCSC(t, d, 1)
	r := newRemote(t, d, 1)
	enable(t, r)
	ctx := testbus.Ctx(t)
	// Three seconds without an INPROGRESS ack: long enough that the final
	// ack cannot come before the calls below, however loaded the machine.
	f, err := r.StartCommand(ctx, "wait", map[string]any{"duration": -3}, remote.WithTimeout(20*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if a, err := f.Next(cancelled); !errors.Is(err, context.Canceled) || errors.Is(err, remote.ErrTimeout) {
		t.Fatalf("Next with a cancelled ctx: %v, %v; want context.Canceled", a, err)
	}
	short, cancel2 := context.WithDeadline(ctx, time.Now())
	defer cancel2()
	if a, err := f.Wait(short); !errors.Is(err, context.DeadlineExceeded) || !errors.Is(err, remote.ErrTimeout) || a == nil {
		t.Fatalf("Wait with an expired ctx: %v, %v; want a *TimeoutError wrapping DeadlineExceeded", a, err)
	}
	select {
	case <-f.Done():
		t.Fatal("the command ended when a call's ctx did")
	default:
	}
	if a, err := f.Wait(ctx); err != nil || a.Code != topics.CmdComplete {
		t.Fatalf("Wait after the cancelled calls: %v, %v; want CMD_COMPLETE", a, err)
	}
}

// TestFuture_NextInOrder: Next returns every ack in order (INPROGRESS,
// then the final one), then keeps returning the final one; NextAck makes
// Command return the first ack.
func TestFuture_NextInOrder(t *testing.T) {
	d := testbus.Domain(t, nil)
	startCSC(t, d, 1)
	r := newRemote(t, d, 1)
	enable(t, r)
	ctx := testbus.Ctx(t)
	f, err := r.StartCommand(ctx, "wait", map[string]any{"duration": 0.05})
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range []topics.AckCode{topics.CmdInProgress, topics.CmdComplete, topics.CmdComplete} {
		a, err := f.Next(ctx)
		if err != nil || a.Code != want {
			t.Fatalf("Next %d: %v, %v; want %s", i, a, err, want)
		}
		if want == topics.CmdInProgress && a.Timeout != 50*time.Millisecond {
			t.Errorf("INPROGRESS timeout %s, want 50ms", a.Timeout)
		}
	}
	a, err := r.Command(ctx, "wait", map[string]any{"duration": 0.05}, remote.WithNextAck())
	if err != nil || a.Code != topics.CmdInProgress {
		t.Errorf("Command with NextAck: %v, %v; want the CMD_INPROGRESS", a, err)
	}
}

// TestFuture_InProgressExtendsTimeout: a command whose timeout is shorter
// than its run completes when a CMD_INPROGRESS ack extends it, and times
// out, carrying that ack, when it does not.
func TestFuture_InProgressExtendsTimeout(t *testing.T) {
	d := testbus.Domain(t, nil)
	startCSC(t, d, 1)
	r := newRemote(t, d, 1)
	enable(t, r)
	ctx := testbus.Ctx(t)
	// The budgets leave the INPROGRESS ack three seconds to arrive,
	// however loaded the machine.
	f, err := r.StartCommand(ctx, "wait", map[string]any{"duration": 3.3}, remote.WithTimeout(3*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	if a, err := done(t, f); err != nil || a.Code != topics.CmdComplete {
		t.Errorf("extended by INPROGRESS: %v, %v; want CMD_COMPLETE", a, err)
	}
	// A handler that says it needs 200 ms more, then never finishes: the
	// command times out after 3 s + 200 ms, carrying the INPROGRESS ack.
	c, err := controller.New(d, "Example", 2, controller.WithAllowMissing())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	release := make(chan struct{})
	defer close(release)
	c.HandleFunc("wait", func(ctx context.Context, cmd *controller.Command) error {
		if err := cmd.InProgress(ctx, 200*time.Millisecond, "a bit more"); err != nil {
			return err
		}
		<-release
		return nil
	})
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	r2 := newRemote(t, d, 2)
	f, err = r2.StartCommand(ctx, "wait", nil, remote.WithTimeout(3*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	a, err := done(t, f)
	var te *remote.TimeoutError
	if !errors.As(err, &te) || a == nil || a.Code != topics.CmdInProgress || a.Result != "a bit more" || te.Last != a {
		t.Fatalf("after INPROGRESS, no final ack: %v, %v; want a *TimeoutError carrying the INPROGRESS", a, err)
	}
	if el := time.Since(f.Started()); el < 3200*time.Millisecond {
		t.Errorf("timed out %s after the start, before its extended budget of 3.2s", el)
	}
}

// TestFuture_FailedAck: a failed final ack ends the command with an
// *AckError matching ErrCommandFailed, from Wait, Next and Result.
func TestFuture_FailedAck(t *testing.T) {
	d := testbus.Domain(t, nil)
	startCSC(t, d, 1)
	r := newRemote(t, d, 1)
	ctx := testbus.Ctx(t)
	a, err := r.Command(ctx, "enable", nil)
	var ae *remote.AckError
	if !errors.As(err, &ae) || !errors.Is(err, remote.ErrCommandFailed) || a.Code != topics.CmdFailed ||
		a.Result != "Failed: enable not allowed in state <State.STANDBY: 5>" || ae.Ack != a {
		t.Fatalf("enable in STANDBY: %v, %v", a, err)
	}
	if ae.Error() == "" || ae.Command != "enable" || ae.Remote != "Example:1" {
		t.Errorf("AckError %+v", ae)
	}
	f, err := r.StartCommand(ctx, "enable", nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Next(ctx); !errors.Is(err, remote.ErrCommandFailed) {
		t.Errorf("Next: %v", err)
	}
	if _, err := f.Result(); !errors.Is(err, remote.ErrCommandFailed) {
		t.Errorf("Result: %v", err)
	}
}

// TestRemote_CloseEndsPending: Close ends the commands in flight with
// ErrClosed (topics.ErrClosed, the SDK's one closed sentinel), and a
// closed Remote refuses new commands with it.
func TestRemote_CloseEndsPending(t *testing.T) {
	d := testbus.Domain(t, nil)
	startCSC(t, d, 1)
	r := newRemote(t, d, 1)
	enable(t, r)
	ctx := testbus.Ctx(t)
	f, err := r.StartCommand(ctx, "wait", map[string]any{"duration": 30.0})
	if err != nil {
		t.Fatal(err)
	}
	if a, err := f.Next(ctx); err != nil || a.Code != topics.CmdInProgress {
		t.Fatalf("first ack %v %v", a, err)
	}
	waiting := make(chan error, 1)
	go func() { _, err := f.Wait(ctx); waiting <- err }()
	var wg sync.WaitGroup
	for range 2 {
		wg.Go(r.Close)
	}
	wg.Wait()
	if _, err := done(t, f); !errors.Is(err, topics.ErrClosed) || !errors.Is(err, remote.ErrClosed) {
		t.Errorf("Result after Close: %v, want ErrClosed", err)
	}
	if err := <-waiting; !errors.Is(err, topics.ErrClosed) {
		t.Errorf("Wait across Close: %v, want ErrClosed", err)
	}
	if _, err := r.Command(ctx, "setScalars", nil); !errors.Is(err, topics.ErrClosed) {
		t.Errorf("command of a closed Remote: %v, want ErrClosed", err)
	}
	if n := r.Pending(); n != 0 {
		t.Errorf("%d pending after Close", n)
	}
}

// TestRemote_Names: names, lookups by bare, SAL and attribute name with
// errors naming the close matches, and the read-only and include/exclude
// settings.
func TestRemote_Names(t *testing.T) {
	d := testbus.Domain(t, nil)
	r := newRemote(t, d, 1, remote.WithInclude("summaryState", "tel_scalars", "logevent_scalars"), remote.WithIdentity("me@here"))
	if r.Name() != "Example:1" || r.Index() != 1 || r.Component().Name != "Example" || r.Identity() != "me@here" {
		t.Errorf("names: %s %d %s %s", r.Name(), r.Index(), r.Component().Name, r.Identity())
	}
	if got := r.EventNames(); !slices.Equal(got, []string{"scalars", "summaryState"}) {
		t.Errorf("events with Include: %v", got)
	}
	if got := r.TelemetryNames(); !slices.Equal(got, []string{"scalars"}) {
		t.Errorf("telemetry with Include: %v", got)
	}
	// A bare name that is both an event and a telemetry topic names both,
	// as ts_salobj's include and exclude lists do.
	both := newRemote(t, d, 1, remote.WithInclude("scalars"), remote.WithReadOnly())
	if ev, tel := both.EventNames(), both.TelemetryNames(); !slices.Equal(ev, []string{"scalars"}) || !slices.Equal(tel, []string{"scalars"}) {
		t.Errorf("Include scalars: events %v, telemetry %v; want both scalars", ev, tel)
	}
	if _, err := both.Event("summaryState"); err == nil || strings.Count(err.Error(), "remote:") != 1 {
		t.Errorf("Event of a topic left out: %v, want one remote: prefix", err)
	}
	for _, n := range []string{"summaryState", "logevent_summaryState", "evt_summaryState"} {
		if rd, err := r.Event(n); err != nil || rd.Topic().SALName != "logevent_summaryState" {
			t.Errorf("Event(%q): %v, %v", n, rd, err)
		}
	}
	if rd, err := r.Telemetry("tel_scalars"); err != nil || rd != r.MustTelemetry("scalars") {
		t.Errorf("Telemetry(tel_scalars): %v, %v", rd, err)
	}
	for _, tc := range []struct {
		lookup func(string) (*topics.Reader, error)
		name   string
		want   string
	}{
		{r.Event, "sumaryState", `remote: Example has no event "sumaryState" (did you mean summaryState?)`},
		{r.Event, "heartbeat", `the Example:1 Remote does not read event heartbeat`},
		{r.Telemetry, "summaryState", `Example has no telemetry "summaryState"`},
	} {
		_, err := tc.lookup(tc.name)
		if !errors.Is(err, remote.ErrNoSuchTopic) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("lookup %q: %v; want ErrNoSuchTopic containing %q", tc.name, err, tc.want)
		}
	}
	func() {
		defer func() {
			if p := recover(); p == nil || !strings.Contains(fmt.Sprint(p), "did you mean summaryState") {
				t.Errorf("MustEvent of a typo: panic %v", p)
			}
		}()
		r.MustEvent("summaryStat")
	}()
	if len(r.CommandNames()) == 0 {
		t.Error("no commands")
	}
	_, err := r.Command(testbus.Ctx(t), "setScalar", nil)
	if !errors.Is(err, remote.ErrNoSuchCommand) || !errors.Is(err, salxml.ErrUnknownTopic) || !strings.Contains(err.Error(), `remote: Example has no command "setScalar" (did you mean setScalars`) {
		t.Errorf("unknown command: %v", err)
	}
	ro := newRemote(t, d, 1, remote.WithReadOnly(), remote.WithExclude("heartbeat"))
	if _, err := ro.Event("heartbeat"); err == nil || len(ro.CommandNames()) != 0 {
		t.Error("ReadOnly+Exclude: wrong readers or commands")
	}
	if _, err := ro.Command(testbus.Ctx(t), "start", nil); err == nil || !strings.Contains(err.Error(), "read-only") {
		t.Errorf("a read-only Remote's command: %v", err)
	}
	for name, bad := range map[string][]remote.Option{
		"include and exclude": {remote.WithInclude("summaryState"), remote.WithExclude("heartbeat")},
		"no such topic":       {remote.WithInclude("nosuch")},
	} {
		if _, err := remote.New(d, "Example", 1, bad...); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	if _, err := remote.New(d, "NoSuch", 0); err == nil {
		t.Error("unknown component accepted")
	}
}

// commandMetrics records the command outcomes a Remote observes.
type commandMetrics struct {
	mu       sync.Mutex
	outcomes map[string]int
}

func (m *commandMetrics) Attach(func() []topics.TopicStats) func() { return func() {} }
func (m *commandMetrics) KafkaHooks(string) []any                  { return nil }
func (m *commandMetrics) WriteLatency(topics.TopicInfo) topics.Observer {
	return nil
}
func (m *commandMetrics) Latency(topics.TopicInfo) topics.Observer { return nil }
func (m *commandMetrics) ObserveCommand(t topics.TopicInfo, outcome string, d time.Duration) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if d < 0 {
		outcome += " (negative duration)"
	}
	m.outcomes[t.Topic+" "+outcome]++
}

// TestFuture_Metrics: every command's end is observed once, with its
// outcome, whoever ends it (the poll goroutine at the final ack, the
// timer at the timeout, Close), and without a data race on the command's
// start time (run with -race).
func TestFuture_Metrics(t *testing.T) {
	m := &commandMetrics{outcomes: map[string]int{}}
	cfg, _ := testbus.Config(t, nil)
	cfg.Metrics = m
	d := testbus.Connect(t, cfg)
	startCSC(t, d, 1)
	r := newRemote(t, d, 1)
	ctx := testbus.Ctx(t)
	var fs []*remote.Future
	for range 20 {
		f, err := r.StartCommand(ctx, "setScalars", nil) // refused in STANDBY
		if err != nil {
			t.Fatal(err)
		}
		fs = append(fs, f)
	}
	silent := newRemote(t, d, 9)
	for range 5 {
		f, err := silent.StartCommand(ctx, "start", nil, remote.WithTimeout(time.Millisecond))
		if err != nil {
			t.Fatal(err)
		}
		fs = append(fs, f)
	}
	for _, f := range fs {
		done(t, f)
	}
	closing, err := silent.StartCommand(ctx, "enable", nil)
	if err != nil {
		t.Fatal(err)
	}
	silent.Close()
	done(t, closing)
	m.mu.Lock()
	defer m.mu.Unlock()
	want := map[string]int{"command_setScalars CMD_FAILED": 20, "command_start timeout": 5, "command_enable closed": 1}
	if len(m.outcomes) != len(want) {
		t.Errorf("observed %v, want %v", m.outcomes, want)
	}
	for k, n := range want {
		if m.outcomes[k] != n {
			t.Errorf("observed %v, want %v", m.outcomes, want)
			break
		}
	}
}

// TestCommand_ConcurrentWaits: commands of one Remote waited on from
// several goroutines at once each get their own acks.
func TestCommand_ConcurrentWaits(t *testing.T) {
	d := testbus.Domain(t, nil)
	startCSC(t, d, 1)
	r := newRemote(t, d, 1)
	enable(t, r)
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			if _, err := r.Command(testbus.Ctx(t), "wait", map[string]any{"duration": 0.3}); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
}

// TestCommand_TwoIdentities: two Remotes of one CSC, with their own
// identities, each match only the acks of their own commands.
func TestCommand_TwoIdentities(t *testing.T) {
	d := testbus.Domain(t, nil)
	startCSC(t, d, 1)
	ra := newRemote(t, d, 1, remote.WithIdentity("alice@example"))
	rb := newRemote(t, d, 1, remote.WithIdentity("bob@example"))
	enable(t, ra)
	var wg sync.WaitGroup
	for _, r := range []*remote.Remote{ra, rb} {
		wg.Go(func() {
			for range 20 {
				f, err := r.StartCommand(testbus.Ctx(t), "setScalars", nil)
				if err != nil {
					t.Error(err)
					return
				}
				a, err := f.Wait(testbus.Ctx(t))
				if err != nil {
					t.Error(err)
					return
				}
				if a.Identity != r.Identity() || a.SeqNum != f.SeqNum() {
					t.Errorf("%s got an ack for %s seq %d", r.Identity(), a.Identity, a.SeqNum)
				}
			}
		})
	}
	wg.Wait()
}
