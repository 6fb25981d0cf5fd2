package interop

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/lsst-sal/salgo/sal"
)

// TestPythonStartsGoTestCSC is interop check (e): the Python peer starts
// the Go TestCsc (examples/testcsc) as an operator starts ts_salobj's
// run_test_csc, with --state disabled and --override, and reads, as a
// Remote does, the configurationApplied naming the override's file and
// the summary states on the way; SIGTERM ends the program with status 0
// (after it wrote OFFLINE).
func TestPythonStartsGoTestCSC(t *testing.T) {
	env := needInterop(t)
	comp := example(t)
	sub := subname(t)
	dir := t.TempDir()
	bin := filepath.Join(dir, "testcsc")
	build := exec.Command("go", "build", "-o", bin, "../../examples/testcsc")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build examples/testcsc: %v\n%s", err, out)
	}
	// The example's own configuration folder, for the Example component.
	cfg := filepath.Join(dir, "config", comp.name)
	if err := os.CopyFS(cfg, os.DirFS("../../examples/testcsc/config")); err != nil {
		t.Fatal(err)
	}
	spec := map[string]any{
		"subname": sub, "component": comp.name, "index": 3, "sal_dir": comp.salDir,
		"program": bin, "state": "disabled", "override": "more.yaml",
		"states": []any{int(sal.Standby), int(sal.Disabled)},
		"env": map[string]any{
			"LSST_TOPIC_SUBNAME": sub, "LSST_SITE": "local",
			"TS_CONFIG_OCS_DIR": filepath.Join(dir, "config"), "TS_XML_DIR": "",
		},
	}
	out := env.runPython(t, "testcsc", spec)
	if out["configurations"] != "_init.yaml,_local.yaml,more.yaml" || out["schemaVersion"] != "v2" {
		t.Errorf("configurationApplied read by Python: configurations %v, schemaVersion %v", out["configurations"], out["schemaVersion"])
	}
	if states, _ := out["states"].([]any); len(states) < 2 || num(states[0]) != int64(sal.Standby) || num(states[1]) != int64(sal.Disabled) {
		t.Errorf("summaryStates read by Python: %v, want STANDBY then DISABLED", out["states"])
	}
	if out["stdout"] != "signal_handler\n" || num(out["exit"]) != 0 {
		t.Errorf("after SIGTERM: exit %v, stdout %q", out["exit"], out["stdout"])
	}
}
