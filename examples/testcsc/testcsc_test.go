package main

import (
	"context"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/lsst-sal/salgo/internal/leaktest"
	"github.com/lsst-sal/salgo/internal/wirefixture"
	"github.com/lsst-sal/salgo/sal"
	"github.com/lsst-sal/salgo/sal/saltest"
)

func TestMain(m *testing.M) { leaktest.VerifyTestMain(m) }

// withBundledConfig points the configuration at the example's own folder
// for the test.
func withBundledConfig(t *testing.T) {
	t.Helper()
	t.Setenv("LSST_SITE", "local")
	dir := t.TempDir()
	if err := os.CopyFS(filepath.Join(dir, "Example"), mustSub(t)); err != nil {
		t.Fatal(err)
	}
	t.Setenv("TS_CONFIG_OCS_DIR", dir)
}

// harness is the TestCsc with the example's own configuration folder and
// site "local", given as options: no environment, so tests can run in
// parallel.
func harness(t *testing.T) *saltest.Harness {
	t.Helper()
	return saltest.NewCSC(t, New, saltest.Options{Index: 1, ConfigDir: filepath.Join("config", "v2"), Site: "local",
		Bus: []sal.Option{sal.WithDefinitions(sal.EmbeddedDefinitions())}})
}

// TestTestCSC_StandardStateTransitions: salobj's own check for TestCsc:
// setArrays, setScalars and wait need ENABLED, fault works everywhere.
func TestTestCSC_StandardStateTransitions(t *testing.T) {
	t.Parallel()
	h := harness(t)
	h.CheckStandardStateTransitions(t, []string{"setArrays", "setScalars", "wait"}, []string{"fault"}, "more.yaml")
}

// TestTestCSC_Echo: setScalars and setArrays write their data to the
// events and telemetry; the configuration reached Configure.
func TestTestCSC_Echo(t *testing.T) {
	t.Parallel()
	h := harness(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if _, err := sal.SetSummaryState(ctx, h.Remote, sal.Enabled, "more.yaml"); err != nil {
		t.Fatal(err)
	}
	scalars := map[string]any{"boolean0": true, "byte0": 200, "int0": -2000000000, "double0": 3.5, "string0": "héllo SAL"}
	if _, err := h.Remote.Command(ctx, "setScalars", scalars); err != nil {
		t.Fatal(err)
	}
	h.AssertNextSample(t, h.Remote.MustEvent("scalars"), scalars, 0)
	h.AssertNextSample(t, h.Remote.MustTelemetry("scalars"), scalars, 0)
	arrays := map[string]any{"int0": []int{1, 2, 3, 4, 5}, "double0": []float64{1, 2, 3, 4, 5}}
	if _, err := h.Remote.Command(ctx, "setArrays", arrays); err != nil {
		t.Fatal(err)
	}
	h.AssertNextSample(t, h.Remote.MustEvent("arrays"), arrays, 0)
	h.AssertNextSample(t, h.Remote.MustTelemetry("arrays"), arrays, 0)
	h.AssertNextSample(t, h.Remote.MustEvent("configurationApplied"), map[string]any{"configurations": "_init.yaml,_local.yaml,more.yaml", "schemaVersion": "v2"}, 0)
}

// TestTestCSC_Main: the program as salobj's check_bin_script runs it:
// --version, then index, --state enabled and --override, on a bus shared
// with the test; SIGTERM takes it OFFLINE and it exits 0.
func TestTestCSC_Main(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the program: not in -short mode")
	}
	withBundledConfig(t)
	bin := filepath.Join(t.TempDir(), "testcsc")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	saltest.CheckMain(t, saltest.MainOptions{
		Command: []string{bin}, Component: "Example", Index: 2,
		InitialState: sal.Enabled, Override: "more.yaml", Version: Version,
		Bus: []sal.Option{sal.WithDefinitions(sal.EmbeddedDefinitions())},
		Env: []string{"TS_XML_DIR="},
	})
}

// TestTestCSC_ConfigFiles: the example's own configuration folder, and
// ts_config_ocs's Test/v2, validate against the example's schema.
func TestTestCSC_ConfigFiles(t *testing.T) {
	dir := t.TempDir()
	if err := os.CopyFS(dir, mustSub(t)); err != nil {
		t.Fatal(err)
	}
	saltest.CheckConfigFiles(t, schema, filepath.Join(dir, "v2"))
	saltest.CheckConfigFiles(t, schema, wirefixture.Shared(t, "ts_config_ocs", "Test", "v2"))
}

func mustSub(t *testing.T) fs.FS { return bundledConfig() }
