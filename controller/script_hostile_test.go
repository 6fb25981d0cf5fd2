package controller_test

import (
	"errors"
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/lsst-sal/salgo/controller"
	"github.com/lsst-sal/salgo/remote"
	"github.com/lsst-sal/salgo/topics"
)

// billionLaughs is the nine-level YAML bomb: 600 bytes that expand, alias
// by alias, to 10^9 strings.
func billionLaughs() string {
	var b strings.Builder
	b.WriteString(`a0: &a0 ["lol","lol","lol","lol","lol","lol","lol","lol","lol","lol"]` + "\n")
	for i := 1; i <= 8; i++ {
		fmt.Fprintf(&b, "a%d: &a%d [", i, i)
		for j := range 10 {
			if j > 0 {
				b.WriteString(",")
			}
			fmt.Fprintf(&b, "*a%d", i-1)
		}
		b.WriteString("]\n")
	}
	b.WriteString("wait_time: *a8\n")
	return b.String()
}

// TestScript_ConfigureBomb: a configure command anyone on the bus can
// send, carrying a YAML bomb, ends the script in CONFIGURE_FAILED with a
// reason that refuses it, at a cost bounded by the input (measured: the
// bytes allocated by the whole process while it runs), not the hundreds of
// GB its expansion would take.
func TestScript_ConfigureBomb(t *testing.T) {
	e := newScriptEnv(t)
	ts := &testScript{}
	s, r := e.start(290, ts.config(), nil)
	expectStates(t, r, st{state: controller.ScriptUnconfigured})
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	err := cmd(t, r, "configure", map[string]any{"config": billionLaughs()})
	runtime.ReadMemStats(&after)
	var ae *remote.AckError
	if !errors.As(err, &ae) || ae.Ack.Code != topics.CmdFailed || !strings.Contains(ae.Ack.Result, "refused, as a YAML bomb") {
		t.Fatalf("configure with a YAML bomb: %v; want CMD_FAILED refusing a YAML bomb", err)
	}
	const bound = 256 << 20
	if n := after.TotalAlloc - before.TotalAlloc; n > bound {
		t.Errorf("configure with a 600-byte YAML bomb allocated %d MB, want at most %d MB", n>>20, bound>>20)
	}
	waitDone(t, s)
	if s.State() != controller.ScriptConfigureFailed {
		t.Errorf("state %s, want CONFIGURE_FAILED", s.State().Name())
	}
}
