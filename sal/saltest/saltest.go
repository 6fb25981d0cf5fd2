// Package saltest is for the tests of CSC and SAL script authors, as
// ts_salobj's BaseCscTestCase and ts_standardscripts' BaseScriptTestCase.
//
// For a CSC: NewCSC makes a CSC and a Remote of it on a private bus in one
// call (Options.ConfigDir and Options.Site give a configurable CSC its
// folder and site, as make_csc(config_dir=...), with no environment
// variable, so tests can run in parallel), and the checks salobj's test
// helpers make: the next sample of a topic, the next summary state, the
// standard state transitions, the commands refused in a state, a CSC's
// main program, a configuration folder. A program's CSC is made with its
// RunSpec's maker, spec.Maker(), which carries the simulation modes the
// RunSpec declares.
//
// For a SAL script: NewScript makes the script from its sal.ScriptSpec
// (the one the program gives sal.RunScript) on a private bus, with a
// Remote of it as the ScriptQueue has; Configure configures it (YAML text
// or a map) and sets its group ID; Run runs it to its final state and
// checks it; StartRun, WaitState and Command drive a script that pauses at
// a checkpoint or is stopped; Checkpoints lists the checkpoints it passed;
// CheckScriptExecutable starts the built program as the ScriptQueue does.
// The components a script commands are made on ScriptHarness.Bus (NewCSC
// with Options.On).
//
// Everything runs on an in-process Kafka and schema registry unless
// LSST_KAFKA_BROKER_ADDR is set (then on that broker, with a topic subname
// of the test's own); it is cleaned up with t.Cleanup. Every check takes a
// testing.TB and reports a failure with t.Errorf/Fatalf at the caller's
// line, saying what differs.
package saltest

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/lsst-sal/salgo/controller"
	"github.com/lsst-sal/salgo/internal/cscconfig"
	"github.com/lsst-sal/salgo/remote"
	"github.com/lsst-sal/salgo/sal"
	"github.com/lsst-sal/salgo/validate"
)

// DefaultTimeout bounds each wait of a check, as salobj's 30 s.
const DefaultTimeout = 30 * time.Second

var subnames atomic.Int64

// Bus returns a bus for t alone (see the package doc), with opts, closed
// at the end of the test. Its logs are discarded unless SALGO_TEST_LOG is
// set.
func Bus(t testing.TB, opts ...sal.Option) *sal.Bus {
	t.Helper()
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	if os.Getenv("SALGO_TEST_LOG") != "" {
		logger = slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	// A subname holds only letters, digits, '_' and '-'.
	name := strings.Map(func(r rune) rune {
		if r == '-' || r == '_' || r < utf8.RuneSelf && (unicode.IsLetter(r) || unicode.IsDigit(r)) {
			return r
		}
		return '_'
	}, t.Name())
	base := []sal.Option{
		sal.WithLogger(logger),
		sal.WithSubname(fmt.Sprintf("test_%d_%d_%s", os.Getpid(), subnames.Add(1), name)),
	}
	ctx, cancel := context.WithTimeout(context.Background(), DefaultTimeout)
	defer cancel()
	b, err := sal.Connect(ctx, append(base, opts...)...)
	if err != nil {
		t.Fatalf("saltest: connect a bus: %v", err)
	}
	t.Cleanup(func() { b.Close() })
	return b
}

// Harness is a CSC and a Remote of it (with the CSC's identity, as
// salobj's test Remote) on a private bus.
type Harness struct {
	Bus    *sal.Bus
	CSC    *sal.CSC
	Remote *sal.Remote
	// Started is the TAI time just before the CSC started: samples written
	// before it (history of earlier tests) are skipped by the checks.
	Started float64
}

// Options of NewCSC.
type Options struct {
	// Index is the SAL index (0 for a non-indexed component).
	Index int
	// Bus options for the private bus (e.g. sal.WithDefinitions).
	Bus []sal.Option
	// On, if set, is the bus to make the CSC on instead of a private one:
	// e.g. a ScriptHarness's, for a CSC that a script commands (Bus is
	// then not used).
	On *sal.Bus
	// CSC options, given to make after its own (e.g. controller.WithInitialState).
	CSC []sal.CSCOption
	// Remote options.
	Remote []sal.RemoteOption
	// ConfigDir, if set, is a configurable CSC's configuration folder
	// (salobj's make_csc(config_dir=...); controller.WithConfigDir), instead of
	// its configuration package's.
	ConfigDir string
	// Site is a configurable CSC's site (controller.WithSite): its _<site>.yaml
	// is read after _init.yaml. Default: $LSST_SITE if set, else "test"
	// (salobj's test cases set LSST_SITE=test). With ConfigDir and Site
	// no environment variable is needed, so tests can run in parallel.
	Site string
}

// NewCSC makes a CSC with make on a private bus (or Options.On), a Remote of it, then
// starts the CSC (so that the Remote reads everything the CSC writes),
// and reads the summary states of the way to the initial state except the
// last, which it leaves for AssertNextSummaryState, as salobj's make_csc.
// Everything is closed at the end of the test.
func NewCSC(t testing.TB, make sal.CSCMaker, o Options) *Harness {
	t.Helper()
	b := o.On
	if b == nil {
		b = Bus(t, o.Bus...)
	}
	csc, err := make(b, o.Index, append(o.cscOptions(), o.CSC...)...)
	if err != nil {
		t.Fatalf("saltest: make the CSC: %v", err)
	}
	t.Cleanup(csc.Close)
	ctx, cancel := context.WithTimeout(context.Background(), DefaultTimeout)
	defer cancel()
	r, err := b.NewRemote(ctx, csc.Component().Name, o.Index, append([]sal.RemoteOption{remote.WithIdentity(csc.Identity())}, o.Remote...)...)
	if err != nil {
		t.Fatalf("saltest: make the Remote: %v", err)
	}
	t.Cleanup(r.Close)
	h := &Harness{Bus: b, CSC: csc, Remote: r, Started: sal.TAI()}
	if err := csc.Start(ctx); err != nil {
		t.Fatalf("saltest: start the CSC: %v", err)
	}
	return h
}

// cscOptions are the options NewCSC gives make before o.CSC.
func (o Options) cscOptions() []sal.CSCOption {
	site, ok := o.Site, o.Site != ""
	if !ok {
		site, ok = os.LookupEnv("LSST_SITE")
	}
	if !ok {
		site = "test"
	}
	opts := []sal.CSCOption{controller.WithSite(site)}
	if o.ConfigDir != "" {
		opts = append(opts, controller.WithConfigDir(o.ConfigDir))
	}
	return opts
}

// AssertNextSample reads the next sample of r (written after the
// harness's start when h is not nil), waiting up to timeout, and checks
// the fields named in want: numbers by value whatever their Go type (as
// the topic's field types convert them), NaN equal to NaN, slices element
// by element, strings and booleans exactly. It returns the sample.
func (h *Harness) AssertNextSample(t testing.TB, r *sal.Reader, want map[string]any, timeout time.Duration) map[string]any {
	t.Helper()
	return assertNext(t, r, want, timeout, h.Started)
}

// AssertNextSample is Harness.AssertNextSample without a start time.
func AssertNextSample(t testing.TB, r *sal.Reader, want map[string]any, timeout time.Duration) map[string]any {
	t.Helper()
	return assertNext(t, r, want, timeout, 0)
}

func assertNext(t testing.TB, r *sal.Reader, want map[string]any, timeout time.Duration, after float64) map[string]any {
	t.Helper()
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	tp := r.Topic()
	canon := validate.For(tp).New()
	for k, v := range want {
		if _, ok := canon[k]; !ok {
			t.Fatalf("No such field %s in topic %s", k, tp)
		}
		canon[k] = v
	}
	if err := validate.For(tp).Normalize(canon); err != nil {
		t.Fatalf("saltest: expected values for %s: %v", tp, err)
	}
	var rec map[string]any
	for {
		ctx, cancel := context.WithTimeout(context.Background(), timeout)
		var err error
		rec, err = r.Next(ctx)
		cancel()
		if err != nil {
			t.Fatalf("saltest: no sample of %s within %s: %v", tp, timeout, err)
		}
		if snd, _ := rec["private_sndStamp"].(float64); snd > after {
			break
		}
	}
	var diffs []string
	for _, k := range sortedKeys(want) {
		if !same(rec[k], canon[k]) {
			diffs = append(diffs, fmt.Sprintf("  %s: read %#v, want %#v", k, rec[k], canon[k]))
		}
	}
	if len(diffs) > 0 {
		t.Errorf("%s: next sample differs:\n%s", tp, strings.Join(diffs, "\n"))
	}
	return rec
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// same compares canonical values, NaN equal to NaN, slices element-wise.
func same(a, b any) bool {
	switch x := a.(type) {
	case float64:
		y, ok := b.(float64)
		return ok && (x == y || math.IsNaN(x) && math.IsNaN(y))
	case float32:
		y, ok := b.(float32)
		return ok && (x == y || x != x && y != y)
	case []float64:
		y, ok := b.([]float64)
		return ok && slices.EqualFunc(x, y, func(p, q float64) bool { return same(p, q) })
	case []float32:
		y, ok := b.([]float32)
		return ok && slices.EqualFunc(x, y, func(p, q float32) bool { return same(p, q) })
	}
	return reflect.DeepEqual(a, b)
}

// AssertNextSummaryState reads the next summaryState of the harness's
// Remote and checks it is want.
func (h *Harness) AssertNextSummaryState(t testing.TB, want sal.State, timeout time.Duration) {
	t.Helper()
	assertNextState(t, h.Remote, want, timeout, h.Started)
}

// AssertNextSummaryState reads the next summaryState of r and checks it is want.
func AssertNextSummaryState(t testing.TB, r *sal.Remote, want sal.State, timeout time.Duration) {
	t.Helper()
	assertNextState(t, r, want, timeout, 0)
}

// assertNextState reads the next summaryState of r written after after
// and checks it is want, naming both states if not.
func assertNextState(t testing.TB, r *sal.Remote, want sal.State, timeout time.Duration, after float64) {
	t.Helper()
	rec := assertNext(t, r.MustEvent("summaryState"), nil, timeout, after)
	if got := toInt(rec["summaryState"]); got != int64(want) {
		t.Errorf("%s: summaryState: read %d, want %d (%s, want %s)", r.Name(), got, int32(want), sal.State(got).Name(), want.Name())
	}
}

// CheckBadCommands sends every command of the Remote's component that is
// not in good, with its default data, and checks that each fails with
// CMD_FAILED (a success or a timeout fails the test), as salobj's
// check_bad_commands. Each failure names the command and the CSC's state
// (its newest summaryState), and is reported at the caller's line.
func CheckBadCommands(t testing.TB, r *sal.Remote, good ...string) {
	t.Helper()
	state := ""
	if ss, err := r.Event("summaryState"); err == nil {
		if rec := ss.Get(); rec != nil {
			state = sal.State(toInt(rec["summaryState"])).Name()
		}
	}
	checkBadCommands(t, r, state, good)
}

// checkBadCommands is CheckBadCommands in a known state ("" if unknown).
func checkBadCommands(t testing.TB, r *sal.Remote, state string, good []string) {
	t.Helper()
	in := ""
	if state != "" {
		in = "in " + state + ": "
	}
	for _, cmd := range r.CommandNames() {
		if slices.Contains(good, cmd) {
			continue
		}
		ctx, cancel := context.WithTimeout(context.Background(), DefaultTimeout)
		ack, err := r.Command(ctx, cmd, nil, remote.WithTimeout(DefaultTimeout))
		cancel()
		switch {
		case err == nil:
			t.Errorf("%s%s succeeded (%s); want CMD_FAILED", in, cmd, ack)
		case ack == nil || ack.Code != sal.CmdFailed:
			t.Errorf("%s%s: %v; want CMD_FAILED", in, cmd, err)
		}
	}
}

// toInt is an integer field's value, whatever its Go type.
func toInt(v any) int64 {
	switch x := v.(type) {
	case int8:
		return int64(x)
	case int16:
		return int64(x)
	case int32:
		return int64(x)
	case int64:
		return x
	case int:
		return int64(x)
	case uint8:
		return int64(x)
	case uint16:
		return int64(x)
	case uint32:
		return int64(x)
	case uint64:
		return int64(x)
	}
	return -1
}

// CheckStandardStateTransitions is salobj's
// check_standard_state_transitions on the harness: from STANDBY, start
// (with override) to DISABLED, enable to ENABLED, disable, standby,
// exitControl to OFFLINE, checking in each of STANDBY, DISABLED and
// ENABLED that every other command fails (CheckBadCommands), with
// enabledCommands allowed in ENABLED and skip allowed everywhere; each
// transition is checked in the CSC's state and in the next summaryState.
// A failure names the state and the command, at the caller's line.
func (h *Harness) CheckStandardStateTransitions(t testing.TB, enabledCommands []string, skip []string, override string) {
	t.Helper()
	h.AssertNextSummaryState(t, sal.Standby, 0)
	checkBadCommands(t, h.Remote, sal.Standby.Name(), append([]string{"start", "exitControl", "setLogLevel"}, skip...))
	ctx, cancel := context.WithTimeout(context.Background(), 10*DefaultTimeout)
	defer cancel()
	from := sal.Standby
	step := func(cmd string, params map[string]any, want sal.State) {
		t.Helper()
		if _, err := h.Remote.Command(ctx, cmd, params, remote.WithTimeout(DefaultTimeout)); err != nil {
			t.Fatalf("in %s: %s (to %s): %v", from.Name(), cmd, want.Name(), err)
		}
		if s := h.CSC.State(); s != want {
			t.Fatalf("in %s: after %s the CSC is %s, want %s", from.Name(), cmd, s.Name(), want.Name())
		}
		h.AssertNextSummaryState(t, want, 0)
		from = want
	}
	step("start", map[string]any{"configurationOverride": override}, sal.Disabled)
	checkBadCommands(t, h.Remote, sal.Disabled.Name(), append([]string{"enable", "standby", "setLogLevel"}, skip...))
	step("enable", nil, sal.Enabled)
	good := append([]string{"disable", "setLogLevel"}, enabledCommands...)
	checkBadCommands(t, h.Remote, sal.Enabled.Name(), append(good, skip...))
	step("disable", nil, sal.Disabled)
	step("standby", nil, sal.Standby)
	step("exitControl", nil, sal.Offline)
}

// MainOptions say how CheckMain runs a CSC's program.
type MainOptions struct {
	// Command is the program and any arguments that come before the
	// index (e.g. a binary built with go build).
	Command []string
	// Component and Index of the CSC (Index 0: none given).
	Component string
	Index     int
	// InitialState, if set, is given as --state; the states on the way
	// from DefaultState (default STANDBY) are checked in order.
	InitialState, DefaultState sal.State
	// Override, if set, is given as --override and must be in the
	// configurationApplied the CSC writes.
	Override string
	// Args are more arguments, after the others.
	Args []string
	// Version, if set, is what "Command --version" must print.
	Version string
	// Bus options of the bus the check and the program share; Env more
	// environment variables of the program.
	Bus []sal.Option
	Env []string
}

// CheckMain runs a CSC's program as salobj's check_bin_script: with
// --version (if o.Version is set) it must print the version and exit 0;
// then, on a bus shared with the test (the program gets its brokers,
// registry and subname through the LSST_* variables), it must reach the
// expected states (and apply the override), and on SIGTERM go OFFLINE
// and exit 0.
func CheckMain(t testing.TB, o MainOptions) {
	t.Helper()
	if len(o.Command) == 0 {
		t.Fatal("saltest: CheckMain needs a command")
	}
	if o.Version != "" {
		out, err := exec.Command(o.Command[0], append(o.Command[1:], "--version")...).Output()
		if err != nil || strings.TrimSpace(string(out)) != o.Version {
			t.Errorf("%s --version: %q, %v; want %q and exit 0", o.Command[0], out, err, o.Version)
		}
	}
	b := Bus(t, o.Bus...)
	ctx, cancel := context.WithTimeout(context.Background(), 4*DefaultTimeout)
	defer cancel()
	r, err := b.NewRemote(ctx, o.Component, o.Index)
	if err != nil {
		t.Fatalf("saltest: Remote of %s: %v", o.Component, err)
	}
	defer r.Close()
	args := slices.Clone(o.Command[1:])
	if o.Index != 0 {
		args = append(args, strconv.Itoa(o.Index))
	}
	if o.InitialState != 0 {
		args = append(args, "--state", strings.ToLower(o.InitialState.Name()))
	}
	if o.Override != "" {
		args = append(args, "--override", o.Override)
	}
	args = append(args, o.Args...)
	cmd := exec.Command(o.Command[0], args...)
	started := sal.TAI()
	p := startProgram(t, cmd, b, o.Env...)
	defer p.stop()
	def := o.DefaultState
	if def == 0 {
		def = sal.Standby
	}
	want := []sal.State{def}
	if o.InitialState != 0 {
		if want, err = sal.ExpectedStates(def, o.InitialState); err != nil {
			t.Fatal(err)
		}
	}
	ss := r.MustEvent("summaryState")
	for _, st := range want {
		assertNext(t, ss, map[string]any{"summaryState": int32(st)}, 40*time.Second, started)
	}
	if o.Override != "" {
		ap := assertNext(t, r.MustEvent("configurationApplied"), nil, 40*time.Second, started)
		if !strings.Contains(fmt.Sprint(ap["configurations"]), o.Override) {
			t.Errorf("configurationApplied.configurations = %q, want it to name %q", ap["configurations"], o.Override)
		}
	}
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatalf("saltest: SIGTERM: %v", err)
	}
	select {
	case err := <-p.exited:
		if err != nil {
			t.Errorf("%s exited after SIGTERM: %v\nstderr:\n%s", o.Command[0], err, p.stderr.String())
		}
	case <-ctx.Done():
		t.Fatalf("%s still running after SIGTERM", o.Command[0])
	}
	assertNext(t, ss, map[string]any{"summaryState": int32(sal.Offline)}, 40*time.Second, started)
}

// CheckConfigFiles checks a configuration folder as salobj's
// BaseConfigTestCase.check_config_files: _init.yaml must be there, and
// _init.yaml with each site file (every other file starting with "_", or
// none) and each override (every other *.yaml, or none) must read, merge
// and validate against schema (YAML text). A failure names the site and
// override files.
func CheckConfigFiles(t testing.TB, schema []byte, dir string) {
	t.Helper()
	c, err := cscconfig.New(cscconfig.Options{Component: "check", Schema: schema, ConfigDir: dir,
		LookupEnv: func(k string) (string, bool) { return "", k == "LSST_SITE" }})
	if err != nil {
		t.Fatalf("Failed on config_dir=%s: %v", dir, err)
	}
	names, err := filepath.Glob(filepath.Join(dir, "*.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var sites, overrides []string
	hasInit := false
	for _, n := range names {
		base := filepath.Base(n)
		switch {
		case base == "_init.yaml":
			hasInit = true
		case strings.HasPrefix(base, "_"):
			sites = append(sites, base)
		default:
			overrides = append(overrides, base)
		}
	}
	if !hasInit {
		t.Fatalf("Failed on config_dir=%s, schema_version=%q: no _init.yaml file found", dir, c.SchemaVersion())
	}
	if len(sites) == 0 {
		sites = []string{""}
	}
	overrides = append([]string{""}, overrides...)
	ctx, cancel := context.WithTimeout(context.Background(), DefaultTimeout)
	defer cancel()
	for _, site := range sites {
		for _, ov := range overrides {
			if _, err := c.Read(ctx, []string{"_init.yaml", site, ov}, ""); err != nil {
				t.Errorf("Failed on config_dir=%s, schema_version=%q, site_file=%q, override_file=%q: %v", dir, c.SchemaVersion(), site, ov, err)
			}
		}
	}
}

// program is a program a check started: its stderr and Wait's result.
type program struct {
	cmd    *exec.Cmd
	stderr strings.Builder
	exited chan error
}

// startProgram starts cmd with bus b's LSST_* variables, then env, in its
// environment; stop kills and reaps it unless it has exited already.
func startProgram(t testing.TB, cmd *exec.Cmd, b *sal.Bus, env ...string) *program {
	t.Helper()
	cfg := b.Config()
	cmd.Env = append(append(os.Environ(),
		sal.EnvBroker+"="+strings.Join(cfg.Brokers, ","),
		sal.EnvRegistry+"="+cfg.RegistryURL,
		sal.EnvSubname+"="+cfg.Subname), env...)
	p := &program{cmd: cmd, exited: make(chan error, 1)}
	cmd.Stderr = &p.stderr
	if err := cmd.Start(); err != nil {
		t.Fatalf("saltest: start %s: %v", cmd.Args[0], err)
	}
	go func() { p.exited <- cmd.Wait() }()
	return p
}

// stop kills the program unless it has exited, and waits for it.
func (p *program) stop() {
	if p.cmd.ProcessState == nil {
		p.cmd.Process.Kill()
		<-p.exited
	}
}
