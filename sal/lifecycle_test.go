package sal

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/lsst-sal/salgo/controller"
	"github.com/lsst-sal/salgo/internal/leaktest"
)

// lifeCSC is a CSC whose hooks do what deployed CSCs' hooks do: report
// progress (InProgress), log, run a telemetry loop in DISABLED and ENABLED
// (started by the SummaryState hook with its context, stopped by it and
// by the Close hook), read a configuration; and that stops, at the named
// moment, to let the test send a signal there.
type lifeCSC struct {
	at      string        // the moment: start, enable, exitControl, configure, handler
	arrived chan struct{} // closed when the CSC has reached the moment
	once    sync.Once

	closes atomic.Int32
	offs   atomic.Int32 // SummaryState hook calls with OFFLINE

	mu       sync.Mutex
	loopStop chan struct{}
	loopDone chan struct{}
}

func (l *lifeCSC) reach(ctx context.Context, moment string) error {
	if moment != l.at {
		return nil
	}
	l.once.Do(func() { close(l.arrived) })
	<-ctx.Done() // as long work that ends when the CSC is told to stop
	return ctx.Err()
}

func (l *lifeCSC) stopLoop() {
	l.mu.Lock()
	stop, done := l.loopStop, l.loopDone
	l.loopStop, l.loopDone = nil, nil
	l.mu.Unlock()
	if stop != nil {
		close(stop)
		<-done
	}
}

func (l *lifeCSC) make(dir string) CSCMaker {
	return func(b *Bus, index int, opts ...CSCOption) (*CSC, error) {
		var csc *CSC
		progress := func(moment string) func(context.Context, *Command) error {
			return func(ctx context.Context, cmd *Command) error {
				if err := cmd.InProgress(ctx, 10*time.Second, ""); err != nil {
					return err
				}
				csc.Logger().Info("lifecycle: " + moment)
				return l.reach(ctx, moment)
			}
		}
		hooks := Hooks{
			BeginStart:       progress("start"),
			BeginEnable:      progress("enable"),
			BeginExitControl: progress("exitControl"),
			SummaryState: func(ctx context.Context, s State) error {
				if s == Offline {
					l.offs.Add(1)
				}
				if s != Disabled && s != Enabled {
					l.stopLoop()
					return nil
				}
				l.mu.Lock()
				defer l.mu.Unlock()
				if l.loopStop != nil {
					return nil
				}
				stop, done := make(chan struct{}), make(chan struct{})
				l.loopStop, l.loopDone = stop, done
				w := csc.MustTelemetry("scalars")
				go func() {
					defer close(done)
					tick := time.NewTicker(10 * time.Millisecond)
					defer tick.Stop()
					for {
						select {
						case <-stop:
							return
						case <-ctx.Done():
							return
						case <-tick.C:
							if _, err := w.Write(ctx, map[string]any{}); err != nil && ctx.Err() == nil {
								csc.Logger().Error("telemetry loop: " + err.Error())
							}
						}
					}
				}()
				return nil
			},
			Close: func(context.Context) error {
				l.stopLoop()
				l.closes.Add(1)
				csc.Logger().Info("lifecycle: close hook done")
				return nil
			},
		}
		csc, err := b.NewCSC("Example", index, append([]CSCOption{controller.WithVersion("2.0"), controller.WithAllowMissing(), controller.WithHooks(hooks),
			controller.WithHeartbeatInterval(50 * time.Millisecond), controller.WithConfiguration(Configurable{
				Schema:    []byte("title: Example v1\ntype: object\nproperties: {gain: {type: number}}\n"),
				ConfigDir: dir,
				Configure: func(ctx context.Context, _ *Configuration) error {
					csc.Logger().Info("lifecycle: configure")
					return l.reach(ctx, "configure")
				},
			})}, opts...)...)
		if err != nil {
			return nil, err
		}
		err = csc.HandleFunc("setScalars", func(ctx context.Context, _ *Command) error { return l.reach(ctx, "handler") })
		return csc, err
	}
}

// logTrigger calls fire when the CSC logs a line containing text.
type logTrigger struct {
	text string
	fire func()
	once sync.Once
}

func (h *logTrigger) Enabled(context.Context, slog.Level) bool { return true }
func (h *logTrigger) WithAttrs([]slog.Attr) slog.Handler       { return h }
func (h *logTrigger) WithGroup(string) slog.Handler            { return h }
func (h *logTrigger) Handle(_ context.Context, r slog.Record) error {
	if h.text != "" && strings.Contains(r.Message, h.text) {
		h.once.Do(h.fire)
	}
	return nil
}

// TestRunCSC_SignalMatrix: a signal at any moment of a CSC program's life
// ends it the same way, for every initial state: exit status 0,
// "signal_handler" printed, OFFLINE the last summaryState on the bus (none
// if the CSC had written no state yet), the Close hook run once, the
// SummaryState hook told OFFLINE, and no goroutine left behind.
func TestRunCSC_SignalMatrix(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "_init.yaml"), []byte("gain: 1.0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("LSST_SITE", "here")
	opts := shared(t)
	// Which moments each initial state passes through.
	moments := map[string][]string{
		"offline":  {"made", "duplicate", "exitControl"},
		"standby":  {"made", "duplicate", "handler"},
		"disabled": {"made", "duplicate", "configure", "start", "handler"},
		"enabled":  {"made", "duplicate", "configure", "start", "enable", "handler"},
	}
	index := 10
	for _, state := range []string{"offline", "standby", "disabled", "enabled"} {
		for _, moment := range moments[state] {
			index++
			t.Run(state+"/"+moment, func(t *testing.T) {
				base := leaktest.Begin()
				ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
				defer cancel()
				// The test's own bus, closed before the leak check.
				b, err := Connect(ctx, opts...)
				if err != nil {
					t.Fatal(err)
				}
				defer b.Close()
				signal, send := context.WithCancel(ctx)
				defer send()
				l := &lifeCSC{at: moment, arrived: make(chan struct{})}
				trig := &logTrigger{fire: send}
				if moment == "duplicate" {
					trig.text = "checking for an already-running instance"
				}
				mk := l.make(dir)
				made := make(chan struct{})
				spec := RunSpec{Name: "ExampleCsc", Component: "Example", Version: "2.0", StateFlag: true, Configurable: true,
					Bus: append(append([]Option(nil), opts...), WithLogger(slog.New(trig))),
					Make: func(b *Bus, index int, o ...CSCOption) (*CSC, error) {
						csc, err := mk(b, index, o...)
						close(made)
						if moment == "made" {
							send() // before Start is even called
						}
						return csc, err
					}}
				var res runResult
				var wg sync.WaitGroup
				wg.Go(func() { res = run(signal, spec, fmt.Sprint(index), "--state", state) })
				switch moment {
				case "made", "duplicate":
				case "handler":
					r, err := b.NewRemote(ctx, "Example", index)
					if err != nil {
						t.Fatal(err)
					}
					want, _ := ParseState(state)
					if _, err := WaitForSummaryState(ctx, r, want); err != nil {
						t.Fatal(err)
					}
					f, err := r.StartCommand(ctx, "setScalars", nil)
					if err != nil {
						t.Fatal(err)
					}
					<-l.arrived
					send()
					if a, err := f.Wait(ctx); err == nil || a == nil || a.Code != CmdAborted {
						t.Errorf("the command running at the signal: %v, %v; want CMD_ABORTED", a, err)
					}
					r.Close()
				default:
					select {
					case <-l.arrived:
					case <-ctx.Done():
						t.Fatalf("the CSC never reached %s", moment)
					}
					send()
				}
				wg.Wait()
				if res.code != 0 || res.stdout != "signal_handler\n" {
					t.Errorf("exit %d, stdout %q, stderr %q; want 0 and signal_handler", res.code, res.stdout, res.stderr)
				}
				select {
				case <-made:
					if n := l.closes.Load(); n != 1 {
						t.Errorf("the Close hook ran %d times, want 1", n)
					}
				default:
				}
				// A late joiner reads what the CSC left on the bus: OFFLINE,
				// or nothing if the signal came before it wrote a state
				// (during the duplicate check; before Start, it may or may
				// not have got that far).
				r, err := b.NewRemote(ctx, "Example", index)
				if err != nil {
					t.Fatal(err)
				}
				last := r.MustEvent("summaryState").Get()
				b.Close()
				reported := last != nil
				if want := moment != "made" && moment != "duplicate"; want && !reported || moment == "duplicate" && reported {
					t.Errorf("the last summaryState on the bus: %v; want a state written: %v", last, want)
				}
				if reported && last["summaryState"] != int32(Offline) {
					t.Errorf("the last summaryState on the bus: %v, want OFFLINE; stderr:\n%s", last["summaryState"], res.stderr)
				}
				if n, want := l.offs.Load(), map[bool]int32{true: 1}[reported]; n != want {
					t.Errorf("the SummaryState hook saw OFFLINE %d times, want %d", n, want)
				}
				base.Verify(t)
			})
		}
	}
}
