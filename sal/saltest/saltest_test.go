package saltest_test

import (
	"context"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/lsst-sal/salgo/controller"
	"github.com/lsst-sal/salgo/internal/leaktest"
	"github.com/lsst-sal/salgo/internal/testcsc"
	"github.com/lsst-sal/salgo/sal"
	"github.com/lsst-sal/salgo/sal/saltest"
)

func TestMain(m *testing.M) { leaktest.VerifyTestMain(m) }

// newExampleCSC is a CSC author's constructor, as a test would use it:
// the Example component (a copy of ts_xml's Test) as TestCsc is.
func newExampleCSC(b *sal.Bus, index int, opts ...sal.CSCOption) (*sal.CSC, error) {
	csc, err := b.NewCSC("Example", index, append([]sal.CSCOption{
		controller.WithVersion("1.0"), controller.WithEnabledCommands(testcsc.EnabledCommands()...),
		controller.WithConcurrent(testcsc.Concurrent()...),
	}, opts...)...)
	if err != nil {
		return nil, err
	}
	if err := testcsc.Handle(csc, testcsc.Echo); err != nil {
		return nil, err
	}
	return csc, nil
}

func harness(t *testing.T) *saltest.Harness {
	return saltest.NewCSC(t, newExampleCSC, saltest.Options{Index: 1, Bus: []sal.Option{sal.WithDefinitions(sal.EmbeddedDefinitions())}})
}

// TestHarness_StandardStateTransitions: the whole standard cycle passes
// for a well-behaved CSC.
func TestHarness_StandardStateTransitions(t *testing.T) {
	h := harness(t)
	h.CheckStandardStateTransitions(t, []string{"setArrays", "setScalars", "wait"}, []string{"fault"}, "")
}

// TestAssertNextSample: fields compare by value whatever their Go type,
// NaN equals NaN, slices element by element; only the named fields count.
func TestAssertNextSample(t *testing.T) {
	h := harness(t)
	ctx := context.Background()
	if _, err := sal.SetSummaryState(ctx, h.Remote, sal.Enabled, ""); err != nil {
		t.Fatal(err)
	}
	h.AssertNextSummaryState(t, sal.Standby, 0)
	h.AssertNextSummaryState(t, sal.Disabled, 0)
	h.AssertNextSummaryState(t, sal.Enabled, 0)
	if _, err := h.Remote.Command(ctx, "setScalars", map[string]any{"int0": 5, "double0": math.NaN(), "string0": "hi"}); err != nil {
		t.Fatal(err)
	}
	h.AssertNextSample(t, h.Remote.MustEvent("scalars"), map[string]any{"int0": 5, "double0": math.NaN(), "string0": "hi"}, time.Minute)
	if _, err := h.Remote.Command(ctx, "setArrays", map[string]any{"float0": []float64{1, math.NaN(), 3, 4, 5}}); err != nil {
		t.Fatal(err)
	}
	h.AssertNextSample(t, h.Remote.MustTelemetry("arrays"), map[string]any{"float0": []any{1, math.NaN(), 3, 4, 5.0}}, time.Minute)
}

// fakeTB records failures instead of failing the test; Fatal ends the
// goroutine as testing.T does.
type fakeTB struct {
	testing.TB
	mu     sync.Mutex
	errors []string
}

func (f *fakeTB) Helper() {}
func (f *fakeTB) Errorf(format string, args ...any) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.errors = append(f.errors, fmt.Sprintf(format, args...))
}
func (f *fakeTB) Fatalf(format string, args ...any) { f.Errorf(format, args...); runtime.Goexit() }
func (f *fakeTB) failures() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return strings.Join(f.errors, "\n")
}

// fails runs check with a fake TB and returns what it reported.
func fails(t *testing.T, check func(tb testing.TB)) string {
	t.Helper()
	f := &fakeTB{TB: t}
	done := make(chan struct{})
	go func() { defer close(done); check(f) }()
	<-done
	return f.failures()
}

// TestChecksFail: each check fails, saying what differs, when the CSC
// does not behave.
func TestChecksFail(t *testing.T) {
	h := harness(t)
	ctx := context.Background()
	if _, err := sal.SetSummaryState(ctx, h.Remote, sal.Enabled, ""); err != nil {
		t.Fatal(err)
	}
	h.AssertNextSummaryState(t, sal.Standby, 0)
	if got := fails(t, func(tb testing.TB) { h.AssertNextSummaryState(tb, sal.Enabled, 0) }); !strings.Contains(got, "summaryState: read 1, want 2") {
		t.Errorf("AssertNextSummaryState(ENABLED) on DISABLED reported %q", got)
	}
	if _, err := h.Remote.Command(ctx, "setScalars", map[string]any{"int0": 5, "double0": 1.5}); err != nil {
		t.Fatal(err)
	}
	got := fails(t, func(tb testing.TB) {
		h.AssertNextSample(tb, h.Remote.MustEvent("scalars"), map[string]any{"int0": 6, "double0": 1.5}, time.Minute)
	})
	if !strings.Contains(got, "int0: read 5, want 6") || strings.Contains(got, "double0") {
		t.Errorf("a wrong int0 reported %q", got)
	}
	if got := fails(t, func(tb testing.TB) {
		saltest.AssertNextSample(tb, h.Remote.MustEvent("scalars"), map[string]any{"nosuch": 1}, time.Minute)
	}); !strings.Contains(got, "No such field nosuch") {
		t.Errorf("an unknown field reported %q", got)
	}
	if got := fails(t, func(tb testing.TB) { saltest.AssertNextSample(tb, h.Remote.MustEvent("arrays"), nil, time.Millisecond) }); !strings.Contains(got, "no sample of Example.logevent_arrays") {
		t.Errorf("no sample reported %q", got)
	}
	// In ENABLED, setScalars succeeds: as a "bad" command it fails the check.
	if got := fails(t, func(tb testing.TB) {
		saltest.CheckBadCommands(tb, h.Remote, "disable", "setLogLevel", "setArrays", "wait", "fault", "start", "standby", "exitControl", "enable")
	}); !strings.Contains(got, "in ENABLED: setScalars succeeded") {
		t.Errorf("CheckBadCommands with a good command reported %q", got)
	}
}

// Example shows a CSC test: the harness, a command, the next sample.
func Example() {
	t := &exampleTB{}
	h := saltest.NewCSC(t, newExampleCSC, saltest.Options{Index: 1, Bus: []sal.Option{sal.WithDefinitions(sal.EmbeddedDefinitions())}})
	defer t.cleanup()
	h.AssertNextSummaryState(t, sal.Standby, 0)
	states, err := sal.SetSummaryState(context.Background(), h.Remote, sal.Enabled, "")
	fmt.Println(states, err)
	_, err = h.Remote.Command(context.Background(), "setScalars", map[string]any{"int0": 42})
	fmt.Println("setScalars:", err)
	rec := h.AssertNextSample(t, h.Remote.MustTelemetry("scalars"), map[string]any{"int0": 42}, 0)
	fmt.Println("telemetry int0:", rec["int0"], "failed:", t.failed)
	// Output:
	// [STANDBY DISABLED ENABLED] <nil>
	// setScalars: <nil>
	// telemetry int0: 42 failed: false
}

// exampleTB is a testing.TB for the Example, which has no *testing.T.
type exampleTB struct {
	testing.TB
	failed   bool
	cleanups []func()
}

func (e *exampleTB) Helper()                      {}
func (e *exampleTB) Name() string                 { return "Example" }
func (e *exampleTB) Cleanup(f func())             { e.cleanups = append(e.cleanups, f) }
func (e *exampleTB) Errorf(f string, args ...any) { e.failed = true; fmt.Printf(f+"\n", args...) }
func (e *exampleTB) Fatalf(f string, args ...any) { e.Errorf(f, args...); runtime.Goexit() }
func (e *exampleTB) cleanup() {
	for i := len(e.cleanups) - 1; i >= 0; i-- {
		e.cleanups[i]()
	}
}

// configurableCSC is a configurable Example CSC whose Configure reports
// the gain it got.
func configurableCSC(gains chan<- float64) sal.CSCMaker {
	return func(b *sal.Bus, index int, opts ...sal.CSCOption) (*sal.CSC, error) {
		return b.NewCSC("Example", index, append([]sal.CSCOption{controller.WithAllowMissing(), controller.WithConfiguration(sal.Configurable{
			Schema:    []byte("title: Example v1\ntype: object\nproperties: {gain: {type: number}}\nrequired: [gain]\n"),
			ConfigPkg: "ts_config_nosuch", // not used: the harness's folder wins
			Configure: func(_ context.Context, c *sal.Configuration) error {
				gains <- c.Values["gain"].(float64)
				return nil
			},
		})}, opts...)...)
	}
}

// TestNewCSC_ConfigDir: Options.ConfigDir and Options.Site give a CSC its
// configuration folder and site without the environment (salobj's
// make_csc(config_dir=...)), so tests with different folders run in
// parallel; the site defaults to salobj's "test".
func TestNewCSC_ConfigDir(t *testing.T) {
	for _, tc := range []struct {
		name, site, override string
		want                 float64
	}{{"default", "", "", 2}, {"summit", "summit", "", 4}, {"high.yaml", "", "high.yaml", 3}} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if _, set := os.LookupEnv("LSST_SITE"); set && tc.name == "default" {
				t.Skip("LSST_SITE is set: the default site is not salobj's test")
			}
			dir := t.TempDir()
			for name, text := range map[string]string{"_init.yaml": "gain: 1.0\n", "_test.yaml": "gain: 2.0\n", "_summit.yaml": "gain: 4.0\n", "high.yaml": "gain: 3.0\n"} {
				if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			gains := make(chan float64, 1)
			h := saltest.NewCSC(t, configurableCSC(gains), saltest.Options{Index: 1, ConfigDir: dir, Site: tc.site,
				Bus: []sal.Option{sal.WithDefinitions(sal.EmbeddedDefinitions())}})
			h.AssertNextSummaryState(t, sal.Standby, 0)
			if _, err := sal.SetSummaryState(context.Background(), h.Remote, sal.Disabled, tc.override); err != nil {
				t.Fatal(err)
			}
			if got := <-gains; got != tc.want {
				t.Errorf("gain %v, want %v", got, tc.want)
			}
			ap := h.AssertNextSample(t, h.Remote.MustEvent("configurationApplied"), nil, 0)
			if ap["url"] != "file://"+dir {
				t.Errorf("configurationApplied.url %v, want file://%s", ap["url"], dir)
			}
		})
	}
}

// laxCSC is an Example CSC whose own commands succeed in any state: wrong
// for CheckStandardStateTransitions.
func laxCSC(b *sal.Bus, index int, opts ...sal.CSCOption) (*sal.CSC, error) {
	csc, err := b.NewCSC("Example", index, append([]sal.CSCOption{controller.WithAllowMissing()}, opts...)...)
	if err == nil {
		csc.HandleFunc("wait", func(ctx context.Context, cmd *sal.Command) error { return nil })
	}
	return csc, err
}

// TestCheckStandardStateTransitions_Reports: a failure of the check names
// the state and the command, and is reported at the line of the test that
// called the check (not at a line of saltest, nor in a subtest such as
// "wait#02"). The failing test runs in a child process of the test binary.
func TestCheckStandardStateTransitions_Reports(t *testing.T) {
	if os.Getenv("SALTEST_CHILD") == "1" {
		h := saltest.NewCSC(t, laxCSC, saltest.Options{Index: 1, Bus: []sal.Option{sal.WithDefinitions(sal.EmbeddedDefinitions())}})
		_, _, line, _ := runtime.Caller(0)
		fmt.Printf("CALLER LINE %d\n", line+2) // the next line but one
		h.CheckStandardStateTransitions(t, []string{"wait"}, []string{"fault", "setArrays", "setScalars"}, "")
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestCheckStandardStateTransitions_Reports$", "-test.v", "-test.count=1")
	cmd.Env = append(os.Environ(), "SALTEST_CHILD=1")
	out, err := cmd.CombinedOutput()
	text := string(out)
	var line int
	i := strings.Index(text, "CALLER LINE")
	if i < 0 || err == nil {
		t.Fatalf("the child test: %v\n%s", err, text)
	}
	if _, err := fmt.Sscanf(text[i:], "CALLER LINE %d", &line); err != nil {
		t.Fatal(err)
	}
	at := fmt.Sprintf("saltest_test.go:%d: ", line)
	for _, want := range []string{at + "in STANDBY: wait succeeded", at + "in DISABLED: wait succeeded"} {
		if !strings.Contains(text, want) {
			t.Errorf("the failure lacks %q:\n%s", want, text)
		}
	}
	for _, bad := range []string{"saltest.go:", "wait#", "/wait"} {
		if strings.Contains(text, bad) {
			t.Errorf("the failure shows %q:\n%s", bad, text)
		}
	}
}
