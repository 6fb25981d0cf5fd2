package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/lsst-sal/salgo/controller"
	"github.com/lsst-sal/salgo/examples/gen/example"
	"github.com/lsst-sal/salgo/internal/leaktest"
	"github.com/lsst-sal/salgo/remote"
	"github.com/lsst-sal/salgo/sal"
	"github.com/lsst-sal/salgo/sal/saltest"
	salxml "github.com/lsst-sal/salgo/xml"
)

func TestMain(m *testing.M) { leaktest.VerifyTestMain(m) }

// wantSchema is what `python3 -c 'import yaml; print(yaml.safe_dump(yaml.safe_load(open("schema.yaml"))))'`
// prints (PyYAML 6.0.3): what a salobj script prints for --schema.
const wantSchema = "$id: https://github.com/lsst-sal/salgo/examples/script/schema.yaml\n$schema: http://json-schema.org/draft-07/schema#\n" +
	"additionalProperties: false\ndescription: Configuration of the SlewTest script.\nproperties:\n  enable:\n    default: true\n" +
	"    description: Bring Example:1 to ENABLED before the first step.\n    type: boolean\n  steps:\n    default: 3\n" +
	"    description: How many setScalars commands to send, with a checkpoint \"step N\"\n      before each.\n    minimum: 1\n" +
	"    type: integer\n  wait:\n    default: 0\n    description: Seconds of Example's wait command after each step (0 for none).\n" +
	"    minimum: 0\n    type: number\ntitle: SlewTest v1\ntype: object\n\n"

// newSlewTest is the script on a private bus beside an Example:1 CSC (see
// exampleCSC).
func newSlewTest(t *testing.T) (*saltest.ScriptHarness, chan string) {
	h, sent := saltest.NewScript(t, Spec(), saltest.ScriptOptions{}), make(chan string, 10)
	saltest.NewCSC(t, exampleCSC(sent), saltest.Options{Index: TestIndex, On: h.Bus})
	return h, sent
}

// exampleCSC makes the typed CSC of examples/gen/example, which brings
// Example to the bus whatever TS_XML_DIR says; it sends "<int0> from
// <identity>" of each setScalars it gets to sent.
func exampleCSC(sent chan<- string) sal.CSCMaker {
	return func(b *sal.Bus, index int, opts ...sal.CSCOption) (*sal.CSC, error) {
		csc, err := example.NewCSC(b.Domain, index, append([]sal.CSCOption{controller.WithAllowMissing()}, opts...)...)
		if err != nil {
			return nil, err
		}
		err = csc.HandleSetScalars(func(_ context.Context, c *sal.Command, data *example.CmdSetScalars) error {
			sent <- fmt.Sprint(data.Int0, " from ", c.Identity)
			return nil
		})
		if err != nil {
			csc.Close()
			return nil, err
		}
		return csc.CSC, nil
	}
}

// buildScript builds the program into a temporary folder.
func buildScript(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds and runs the script: not in -short mode")
	}
	bin := filepath.Join(t.TempDir(), "slew_test")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// TestSlewTest: the script describes itself (Example:1 among its
// remotes); configured to pause at "step 2", it brings Example:1 to ENABLED, sends
// step 1 and pauses; resumed, it sends steps 2 and 3 as Script:<index>
// and ends DONE.
func TestSlewTest(t *testing.T) {
	h, sent := newSlewTest(t)
	saltest.AssertNextSample(t, h.Remote.MustEvent("description"), map[string]any{"classname": "SlewTest", "description": "Steps the Example CSC through setScalars commands", "remotes": "Example:1"}, 0)
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
	bin := buildScript(t)
	saltest.CheckScriptExecutable(t, bin, saltest.ScriptOptions{})
	if out, err := exec.Command(bin, "0", "--schema").Output(); err != nil || string(out) != wantSchema {
		t.Errorf("--schema: %v\n%q\nwant\n%q", err, out, wantSchema)
	}
}

// TestSlewTest_ProgramNoTSXML: the built program runs a whole script with
// TS_XML_DIR unset in its environment (the Script component is built into
// the SDK, Example comes with examples/gen/example): configured with
// steps: 2, it enables Example:1 (a CSC of the test, on the bus it shares
// with the program), sends setScalars 1 and 2 as Script:<index>, ends DONE
// and exits 0. With TS_XML_DIR set in the test's environment it runs again
// with it (ts_xml has Script but no Example).
func TestSlewTest_ProgramNoTSXML(t *testing.T) {
	bin := buildScript(t)
	cases := []struct{ name, dir string }{{"no ts_xml", ""}}
	if dir := os.Getenv(salxml.EnvDir); dir != "" {
		cases = append(cases, struct{ name, dir string }{"ts_xml", dir})
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			defs := sal.EmbeddedDefinitions()
			if c.dir != "" {
				var err error
				if defs, err = salxml.Open(c.dir); err != nil {
					t.Fatal(err)
				}
			}
			b := saltest.Bus(t, sal.WithDefinitions(defs))
			sent := make(chan string, 10)
			saltest.NewCSC(t, exampleCSC(sent), saltest.Options{Index: TestIndex, On: b})
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			const index = 200001
			r, err := b.NewRemote(ctx, "Script", index)
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()

			cfg := b.Config()
			cmd := exec.CommandContext(ctx, bin, strconv.Itoa(index))
			cmd.Env = []string{sal.EnvBroker + "=" + strings.Join(cfg.Brokers, ","), sal.EnvRegistry + "=" + cfg.RegistryURL,
				sal.EnvSubname + "=" + cfg.Subname, salxml.EnvDir + "=" + c.dir, "PATH=" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME")}
			var stderr strings.Builder
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			// running is done when the program has exited, so that a
			// program that fails early fails the test at once.
			running, exitedNow := context.WithCancel(ctx)
			exited := make(chan error, 1)
			go func() {
				exited <- cmd.Wait()
				exitedNow()
			}()
			defer func() {
				cancel() // kills the program if it still runs
				<-running.Done()
			}()

			state := r.MustEvent("state")
			waitState := func(want sal.ScriptState) {
				t.Helper()
				for {
					rec, err := state.Next(running)
					if err != nil && running.Err() != nil && ctx.Err() == nil {
						// The program has exited: what it wrote is on the
						// broker but may not have reached the Remote yet.
						late, cancelLate := context.WithTimeout(ctx, 10*time.Second)
						rec, err = state.Next(late)
						cancelLate()
					}
					if err != nil {
						t.Fatalf("waiting for %s: %v\nstderr:\n%s", want, err, stderr.String())
					}
					if st := sal.ScriptState(toInt(rec["state"])); st == want {
						return
					}
				}
			}
			waitState(sal.ScriptUnconfigured)
			for _, step := range []struct {
				name   string
				params map[string]any
			}{
				{"configure", map[string]any{"config": "steps: 2"}},
				{"setGroupId", map[string]any{"groupId": "2026-01-01T00:00:00.000"}},
				{"run", nil},
			} {
				cctx := running
				if step.name == "run" {
					cctx = ctx // its ack may be read after the program exited
				}
				if _, err := r.Command(cctx, step.name, step.params, remote.WithTimeout(time.Minute)); err != nil {
					t.Fatalf("%s: %v\nstderr:\n%s", step.name, err, stderr.String())
				}
			}
			waitState(sal.ScriptDone)
			if err := <-exited; err != nil {
				t.Errorf("exit: %v\nstderr:\n%s", err, stderr.String())
			}
			id := "Script:" + strconv.Itoa(index)
			if got, want := []string{<-sent, <-sent}, []string{"1 from " + id, "2 from " + id}; !slices.Equal(got, want) {
				t.Errorf("setScalars %q, want %q", got, want)
			}
		})
	}
}

// toInt is a state event's integer field.
func toInt(v any) int {
	switch x := v.(type) {
	case int32:
		return int(x)
	case int64:
		return int(x)
	case int:
		return x
	case uint8:
		return int(x)
	}
	return -1
}
