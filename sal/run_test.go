package sal

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/lsst-sal/salgo/controller"
	"github.com/lsst-sal/salgo/internal/embedded"
	salxml "github.com/lsst-sal/salgo/xml"
)

// makeExample is a CSC author's constructor for the tests.
func makeExample(b *Bus, index int, opts ...CSCOption) (*CSC, error) {
	csc, err := b.NewCSC("Example", index, append([]CSCOption{controller.WithVersion("2.0"), controller.WithAllowMissing()}, opts...)...)
	return csc, err
}

func quietLogger() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

// shared starts an embedded broker and registry that the runner's bus and
// the test's bus both use.
func shared(t *testing.T) []Option {
	t.Helper()
	c, err := embedded.Start(embedded.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return []Option{WithBrokers(c.Brokers()...), WithRegistry(c.RegistryURL()), WithSubname("run_" + strings.ReplaceAll(t.Name(), "/", "_")),
		WithDefinitions(salxml.Embedded()), WithLogger(quietLogger())}
}

// runnerPeer is the test's side of a runner test: the shared broker's
// options (for the runner's RunSpec.Bus), a bus on them, a Remote of
// Example:index and a context of a minute, all ended by t.Cleanup.
func runnerPeer(t *testing.T, index int) ([]Option, *Bus, *Remote, context.Context) {
	t.Helper()
	opts := shared(t)
	b, err := Connect(context.Background(), opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	t.Cleanup(cancel)
	r, err := b.NewRemote(ctx, "Example", index)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(r.Close)
	return opts, b, r, ctx
}

type runResult struct {
	code           int
	stdout, stderr string
}

func run(ctx context.Context, spec RunSpec, args ...string) runResult {
	var out, errb bytes.Buffer
	code := runCSC(ctx, spec, args, &out, &errb)
	return runResult{code, out.String(), errb.String()}
}

// TestRunCSC_CommandLine: the command line reads as salobj's amain parser:
// the index required for an indexed component, the flags in its order,
// argparse's texts and exit codes; the program's own flags are set.
func TestRunCSC_CommandLine(t *testing.T) {
	var port int
	var host string
	var dry bool
	spec := RunSpec{Name: "ExampleCsc", Component: "Example", Version: "2.0", Make: makeExample,
		StateFlag: true, Configurable: true, ValidSimulationModes: []int32{0, 1},
		Bus: []Option{WithDefinitions(salxml.Embedded()), WithLogger(quietLogger())},
		Flags: func(f *Flags) {
			f.Int(&port, "--port", 5000, "port")
			f.String(&host, "--host", "localhost", "host")
			f.Bool(&dry, "--dry-run", "do nothing")
		}}
	for _, tc := range []struct {
		args        []string
		code        int
		stdout, err string
	}{
		{nil, 2, "", "Run ExampleCsc: error: the following arguments are required: index\n"},
		{[]string{"x"}, 2, "", "Run ExampleCsc: error: argument index: invalid int value: 'x'\n"},
		{[]string{"1", "--state", "fault"}, 2, "", "Run ExampleCsc: error: argument --state: invalid choice: 'fault' (choose from 'offline', 'standby', 'disabled', 'enabled')\n"},
		{[]string{"--version"}, 0, "2.0\n", ""},
		{[]string{"1", "--sim", "--nosuch"}, 2, "", "Run ExampleCsc: error: unrecognized arguments: --nosuch\n"},
	} {
		r := run(context.Background(), spec, tc.args...)
		if r.code != tc.code || r.stdout != tc.stdout || !strings.HasSuffix(r.stderr, tc.err) {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want %d, %q, ...%q", tc.args, r.code, r.stdout, r.stderr, tc.code, tc.stdout, tc.err)
		}
	}
	r := run(context.Background(), spec, "-h")
	for _, want := range []string{"usage: Run ExampleCsc [-h] [--loglevel LOGLEVEL]", "--simulate", "Run in simulation mode?", "--configdir CONFIGDIR", "--override OVERRIDE", "--port PORT", "--dry-run"} {
		if r.code != 0 || !strings.Contains(r.stdout, want) {
			t.Errorf("-h: exit %d, output lacks %q:\n%s", r.code, want, r.stdout)
		}
	}
}

// TestRunCSC_SignalGoesOffline: the runner makes the CSC (flags applied),
// reaches the initial state, and on a signal writes OFFLINE and exits 0;
// after exitControl it exits 0 too.
func TestRunCSC_SignalGoesOffline(t *testing.T) {
	opts, _, r, ctx := runnerPeer(t, 3)
	spec := RunSpec{Name: "ExampleCsc", Component: "Example", Version: "2.0", Make: makeExample, StateFlag: true, Bus: opts}
	signal, send := context.WithCancel(ctx)
	var res runResult
	var wg sync.WaitGroup
	wg.Go(func() { res = run(signal, spec, "3", "--state", "enabled", "--loglevel", "10") })
	if s, err := WaitForSummaryState(ctx, r, Enabled); err != nil || s != Enabled {
		t.Fatalf("waiting for ENABLED: %v %v", s, err)
	}
	if ll := r.MustEvent("logLevel").Get(); ll["level"] != int32(10) {
		t.Errorf("logLevel %v, want 10 (--loglevel)", ll)
	}
	send() // as SIGTERM
	wg.Wait()
	if res.code != 0 || res.stdout != "signal_handler\n" {
		t.Errorf("after a signal: exit %d, stdout %q, stderr %q", res.code, res.stdout, res.stderr)
	}
	if s, err := WaitForSummaryState(ctx, r, Offline); err != nil || s != Offline {
		t.Errorf("after a signal: %v %v, want OFFLINE", s, err)
	}

	// exitControl: the runner returns once the ack is out.
	wg.Go(func() { res = run(ctx, spec, "3") })
	if _, err := WaitForSummaryState(ctx, r, Standby); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Command(ctx, "exitControl", nil); err != nil {
		t.Fatal(err)
	}
	wg.Wait()
	if res.code != 0 || res.stdout != "" {
		t.Errorf("after exitControl: exit %d, stdout %q, stderr %q", res.code, res.stdout, res.stderr)
	}
}

// TestRunCSC_Duplicate: the runner turns the duplicate check on: beside a
// running instance the program exits 1 saying so.
func TestRunCSC_Duplicate(t *testing.T) {
	opts := shared(t)
	b, err := Connect(context.Background(), opts...)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	csc, err := makeExample(b, 4)
	if err != nil {
		t.Fatal(err)
	}
	defer csc.Close()
	if err := csc.Start(ctx); err != nil {
		t.Fatal(err)
	}
	res := run(ctx, RunSpec{Name: "ExampleCsc", Component: "Example", Version: "2.0", Make: makeExample, Bus: opts}, "4")
	if res.code != 1 || !strings.Contains(res.stderr, "quitting: found another instance with origin=") {
		t.Errorf("beside a running instance: exit %d, stderr %q", res.code, res.stderr)
	}
	if !errors.Is(ErrDuplicate, ErrDuplicate) {
		t.Fatal("unreachable")
	}
}

// TestRunCSC_ConfigFlags: --configdir names the configuration folder and
// --override the file start applies on the way to --state disabled.
func TestRunCSC_ConfigFlags(t *testing.T) {
	t.Setenv("LSST_SITE", "here")
	dir := t.TempDir()
	for name, text := range map[string]string{"_init.yaml": "gain: 1.0\n", "_here.yaml": "gain: 2.0\n", "high.yaml": "gain: 3.0\n"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var gain float64
	var mu sync.Mutex
	mk := func(b *Bus, index int, opts ...CSCOption) (*CSC, error) {
		return b.NewCSC("Example", index, append([]CSCOption{controller.WithAllowMissing(), controller.WithConfiguration(Configurable{
			Schema:    []byte("title: Example v1\ntype: object\nproperties: {gain: {type: number}}\nrequired: [gain]\n"),
			ConfigPkg: "ts_config_nosuch", // not used: --configdir wins
			Configure: func(_ context.Context, c *Configuration) error {
				mu.Lock()
				defer mu.Unlock()
				gain, _ = c.Values["gain"].(float64)
				return nil
			},
		})}, opts...)...)
	}
	opts, _, r, ctx := runnerPeer(t, 6)
	signal, send := context.WithCancel(ctx)
	var res runResult
	var wg sync.WaitGroup
	spec := RunSpec{Name: "ExampleCsc", Component: "Example", Version: "2.0", Make: mk, StateFlag: true, Configurable: true, Bus: opts}
	wg.Go(func() { res = run(signal, spec, "6", "--state", "disabled", "--over", "high.yaml", "--configdir="+dir) })
	if _, err := WaitForSummaryState(ctx, r, Disabled); err != nil {
		t.Fatal(err)
	}
	ap, err := r.MustEvent("configurationApplied").Await(ctx)
	if err != nil || ap["configurations"] != "_init.yaml,_here.yaml,high.yaml" || ap["url"] != "file://"+dir {
		t.Errorf("configurationApplied %v %v", ap, err)
	}
	mu.Lock()
	if gain != 3.0 {
		t.Errorf("Configure got gain %v, want the override's 3.0", gain)
	}
	mu.Unlock()
	send()
	wg.Wait()
	if res.code != 0 {
		t.Errorf("exit %d, stderr %s", res.code, res.stderr)
	}
}

// TestRunCSC_HelpWithoutDefinitions: --help, --version and usage errors
// need neither ts_xml nor a bus; running without the component's
// definition is an error that names TS_XML_DIR.
func TestRunCSC_HelpWithoutDefinitions(t *testing.T) {
	t.Setenv(salxml.EnvDir, "")
	spec := RunSpec{Name: "TestCsc", Component: "Test", Version: "1.2", Indexed: true, StateFlag: true,
		Make: func(*Bus, int, ...CSCOption) (*CSC, error) { t.Error("Make called"); return nil, errors.New("no") }}
	for _, tc := range []struct {
		args   []string
		code   int
		stdout string
		stderr string
	}{
		{[]string{"--help"}, 0, "usage: Run TestCsc [-h] [--loglevel LOGLEVEL]", ""},
		{[]string{"--version"}, 0, "1.2\n", ""},
		{[]string{"1", "--state", "bogus"}, 2, "", "Run TestCsc: error: argument --state: invalid choice: 'bogus'"},
		{[]string{"1"}, 1, "", `Run TestCsc: xml: unknown SAL component "Test"`},
		{[]string{"1"}, 1, "", "TS_XML_DIR is not set"},
	} {
		r := run(context.Background(), spec, tc.args...)
		if r.code != tc.code || !strings.HasPrefix(r.stdout, tc.stdout) || !strings.Contains(r.stderr, tc.stderr) {
			t.Errorf("%q without ts_xml: exit %d, stdout %q, stderr %q; want %d, %q..., ...%q...", tc.args, r.code, r.stdout, r.stderr, tc.code, tc.stdout, tc.stderr)
		}
	}
}

// TestRunCSC_NeedsBroker: a CSC program does not run on a private
// in-process bus unless asked to (--embedded): without
// LSST_KAFKA_BROKER_ADDR it exits 1 saying what to set.
func TestRunCSC_NeedsBroker(t *testing.T) {
	t.Setenv(EnvBroker, "") // restored after the test
	os.Unsetenv(EnvBroker)
	made := make(chan *CSC, 1)
	spec := RunSpec{Name: "ExampleCsc", Component: "Example", Version: "2.0",
		Bus: []Option{WithDefinitions(salxml.Embedded()), WithLogger(quietLogger())},
		Make: func(b *Bus, index int, opts ...CSCOption) (*CSC, error) {
			csc, err := makeExample(b, index, opts...)
			made <- csc
			return csc, err
		}}
	r := run(context.Background(), spec, "1")
	if r.code != 1 || !strings.Contains(r.stderr, "LSST_KAFKA_BROKER_ADDR is not set") || !strings.Contains(r.stderr, "--embedded") {
		t.Errorf("without a broker: exit %d, stderr %q; want 1, naming LSST_KAFKA_BROKER_ADDR and --embedded", r.code, r.stderr)
	}
	if len(made) > 0 {
		t.Fatal("the CSC was made without a broker")
	}
	if h := run(context.Background(), spec, "-h"); !strings.Contains(h.stdout, "--embedded") || !strings.Contains(h.stdout, "LSST_KAFKA_BROKER_ADDR") {
		t.Errorf("--help does not say how to run on the in-process bus:\n%s", h.stdout)
	}
	ctx, send := context.WithCancel(context.Background())
	var res runResult
	var wg sync.WaitGroup
	ended := make(chan struct{})
	wg.Go(func() { res = run(ctx, spec, "1", "--embedded"); close(ended) })
	select {
	case <-made:
	case <-ended:
		t.Fatalf("--embedded: exit %d before the CSC was made; stderr %q", res.code, res.stderr)
	}
	send()
	wg.Wait()
	if res.code != 0 {
		t.Errorf("--embedded: exit %d, stderr %q", res.code, res.stderr)
	}
}

// TestRunCSC_SimulationModesOnce: RunSpec.ValidSimulationModes alone
// declares the modes (issue 30, item 9): --simulate makes a CSC whose
// maker declares none, in simulation mode 1.
func TestRunCSC_SimulationModesOnce(t *testing.T) {
	opts, b, r, ctx := runnerPeer(t, 7)
	spec := RunSpec{Name: "ExampleCsc", Component: "Example", Version: "2.0", Make: makeExample, ValidSimulationModes: []int32{0, 1}, Bus: opts}
	signal, send := context.WithCancel(ctx)
	wait, ended := context.WithCancel(ctx)
	var res runResult
	var wg sync.WaitGroup
	wg.Go(func() { res = run(signal, spec, "7", "--simulate"); ended() })
	if _, err := WaitForSummaryState(wait, r, Standby); err != nil {
		wg.Wait()
		t.Fatalf("no STANDBY (%v): exit %d, stderr %q", err, res.code, res.stderr)
	}
	if sm, err := r.MustEvent("simulationMode").Await(ctx); err != nil || sm["mode"] != int32(1) {
		t.Errorf("simulationMode %v, %v; want mode 1", sm, err)
	}
	send()
	wg.Wait()
	if res.code != 0 {
		t.Errorf("exit %d, stderr %q", res.code, res.stderr)
	}
	// A test makes the same CSC through the spec's maker.
	csc, err := spec.Maker()(b, 8, controller.WithSimulationMode(1))
	if err != nil {
		t.Fatalf("spec.Maker() in simulation mode 1: %v", err)
	}
	csc.Close()
	if _, err := spec.Maker()(b, 8, controller.WithSimulationMode(2)); err == nil || !strings.Contains(err.Error(), "simulation_mode=2 not in valid_simulation_modes=[0, 1]") {
		t.Errorf("spec.Maker() in simulation mode 2: %v", err)
	}
}

// TestReplaceLevel: a CRITICAL record (a CSC's "Fault!" line) shows as
// CRITICAL on a handler using ReplaceLevel, which RunCSC's and
// RunScript's process log do; slog alone writes ERROR+4.
func TestReplaceLevel(t *testing.T) {
	var b strings.Builder
	l := slog.New(slog.NewTextHandler(&b, &slog.HandlerOptions{ReplaceAttr: ReplaceLevel}))
	l.Log(context.Background(), LevelCritical, "Fault! errorCode=1")
	l.Error("plain")
	if got := b.String(); !strings.Contains(got, "level=CRITICAL msg=\"Fault! errorCode=1\"") || !strings.Contains(got, "level=ERROR msg=plain") {
		t.Errorf("log:\n%s\nwant level=CRITICAL for the Fault line and level=ERROR for the other", got)
	}
	if fmt.Sprintf("%T", slog.Default().Handler()) == "*slog.defaultHandler" && processLogger(&b) == nil {
		t.Error("processLogger: nil under slog's own default; RunCSC would print ERROR+4")
	}
}

// TestRunCSC_ExitControlDuringStart: an exitControl that arrives while
// Start is still under way (STANDBY is on the bus, Start has more to do)
// ends the program with exit status 0, as any exitControl does: Start's
// "closed" error is the CSC ending by itself, not a failure. It exited 1
// printing "controller: start Example:5: sal: closed" (seen in CI).
func TestRunCSC_ExitControlDuringStart(t *testing.T) {
	opts, _, r, ctx := runnerPeer(t, 5)
	var first atomic.Bool
	make := func(bb *Bus, index int, o ...CSCOption) (*CSC, error) {
		return makeExample(bb, index, append(o, controller.WithHooks(Hooks{SummaryState: func(hctx context.Context, s State) error {
			if first.CompareAndSwap(false, true) {
				// Still in Start: exitControl comes now, and this hook
				// (Start's last step but the report) ends as the CSC
				// closes.
				go r.Command(ctx, "exitControl", nil)
				<-hctx.Done()
			}
			return nil
		}}))...)
	}
	spec := RunSpec{Name: "ExampleCsc", Component: "Example", Version: "2.0", Make: make, Bus: opts}
	res := run(ctx, spec, "5")
	if res.code != 0 || res.stdout != "" {
		t.Errorf("exitControl during Start: exit %d, stdout %q, stderr %q; want 0", res.code, res.stdout, res.stderr)
	}
}
