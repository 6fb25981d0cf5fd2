package controller_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/lsst-sal/salgo/controller"
	"github.com/lsst-sal/salgo/internal/hostile"
	"github.com/lsst-sal/salgo/remote"
	"github.com/lsst-sal/salgo/topics"
)

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
	var err error
	n := hostile.Allocated(func() {
		err = cmd(t, r, "configure", map[string]any{"config": hostile.Laughs(10, "wait_time")})
	})
	var ae *remote.AckError
	if !errors.As(err, &ae) || ae.Ack.Code != topics.CmdFailed || !strings.Contains(ae.Ack.Result, "refused, as a YAML bomb") {
		t.Fatalf("configure with a YAML bomb: %v; want CMD_FAILED refusing a YAML bomb", err)
	}
	const bound = 256 << 20
	if n > bound {
		t.Errorf("configure with a 500-byte YAML bomb (9^9 strings) allocated %d MB, want at most %d MB", n>>20, bound>>20)
	}
	waitDone(t, s)
	if s.State() != controller.ScriptConfigureFailed {
		t.Errorf("state %s, want CONFIGURE_FAILED", s.State().Name())
	}
}
