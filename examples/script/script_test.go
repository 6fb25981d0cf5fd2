package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"

	"github.com/lsst-sal/salgo/controller"
	"github.com/lsst-sal/salgo/internal/leaktest"
	"github.com/lsst-sal/salgo/sal"
	"github.com/lsst-sal/salgo/sal/saltest"
	salxml "github.com/lsst-sal/salgo/xml"
)

func TestMain(m *testing.M) { leaktest.VerifyTestMain(m) }

// wantSchema is what `python3 -c 'import yaml; print(yaml.safe_dump(yaml.safe_load(open("schema.yaml"))))'`
// prints (PyYAML 6.0.3): what a salobj script prints for --schema.
const wantSchema = "$id: https://github.com/lsst-sal/salgo/examples/script/schema.yaml\n$schema: http://json-schema.org/draft-07/schema#\n" +
	"additionalProperties: false\ndescription: Configuration of the SlewTest script.\nproperties:\n  enable:\n    default: true\n" +
	"    description: Bring Test:1 to ENABLED before the first step.\n    type: boolean\n  steps:\n    default: 3\n" +
	"    description: How many setScalars commands to send, with a checkpoint \"step N\"\n      before each.\n    minimum: 1\n" +
	"    type: integer\n  wait:\n    default: 0\n    description: Seconds of Test's wait command after each step (0 for none).\n" +
	"    minimum: 0\n    type: number\ntitle: SlewTest v1\ntype: object\n\n"

func needXML(t *testing.T) {
	if os.Getenv(salxml.EnvDir) == "" {
		t.Skip("TS_XML_DIR is unset: the Script and Test components are only in ts_xml (e.g. TS_XML_DIR=../../../shared/ts_xml)")
	}
}

// newSlewTest is the script on a private bus beside a Test:1 CSC that
// sends "<int0> from <identity>" of each setScalars it gets to the channel.
func newSlewTest(t *testing.T) (*saltest.ScriptHarness, chan string) {
	needXML(t)
	h, sent := saltest.NewScript(t, Spec(), saltest.ScriptOptions{}), make(chan string, 10)
	saltest.NewCSC(t, func(b *sal.Bus, index int, opts ...sal.CSCOption) (*sal.CSC, error) {
		csc, err := b.NewCSC("Test", index, append([]sal.CSCOption{controller.WithAllowMissing()}, opts...)...)
		if err == nil {
			csc.HandleFunc("setScalars", func(_ context.Context, c *sal.Command) error {
				sent <- fmt.Sprint(c.Data["int0"], " from ", c.Identity)
				return nil
			})
		}
		return csc, err
	}, saltest.Options{Index: TestIndex, On: h.Bus})
	return h, sent
}

// TestSlewTest: the script describes itself (Test:1 among its remotes);
// configured to pause at "step 2", it brings Test:1 to ENABLED, sends
// step 1 and pauses; resumed, it sends steps 2 and 3 as Script:<index>
// and ends DONE.
func TestSlewTest(t *testing.T) {
	h, sent := newSlewTest(t)
	saltest.AssertNextSample(t, h.Remote.MustEvent("description"), map[string]any{"classname": "SlewTest", "remotes": "Test:1"}, 0)
	h.Configure(t, saltest.ScriptConfig{Config: "steps: 3", PauseCheckpoint: "step 2"})
	saltest.AssertNextSample(t, h.Remote.MustEvent("metadata"), map[string]any{"totalCheckpoints": 3, "duration": 0}, 0)
	h.StartRun(t)
	h.WaitState(t, sal.ScriptPaused, map[string]any{"lastCheckpoint": "step 2", "numCheckpoints": 2})
	if len(sent) != 1 {
		t.Errorf("paused after %d steps, want 1", len(sent))
	}
	h.Command(t, "resume", nil)
	h.WaitFinal(t, sal.ScriptDone)
	id := h.Script.Identity()
	if got, want := []string{<-sent, <-sent, <-sent}, []string{"1 from " + id, "2 from " + id, "3 from " + id}; !slices.Equal(got, want) {
		t.Errorf("setScalars %q, want %q", got, want)
	}
}

// TestSlewTest_StopCheckpoint: configured to stop at "step 2", the script
// sends step 1 only and ends STOPPED.
func TestSlewTest_StopCheckpoint(t *testing.T) {
	h, sent := newSlewTest(t)
	h.Configure(t, saltest.ScriptConfig{StopCheckpoint: "step 2"})
	h.Run(t, sal.ScriptStopped)
	if len(sent) != 1 {
		t.Errorf("stopped after %d steps, want 1", len(sent))
	}
}

// TestSlewTest_Program: the program, as the ScriptQueue runs it: by its
// file name and an index it reports UNCONFIGURED; `slew_test 0 --schema`
// prints the schema as a salobj script does.
func TestSlewTest_Program(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the script: not in -short mode")
	}
	needXML(t)
	bin := filepath.Join(t.TempDir(), "slew_test")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	saltest.CheckScriptExecutable(t, bin, saltest.ScriptOptions{})
	if out, err := exec.Command(bin, "0", "--schema").Output(); err != nil || string(out) != wantSchema {
		t.Errorf("--schema: %v\n%q\nwant\n%q", err, out, wantSchema)
	}
}
