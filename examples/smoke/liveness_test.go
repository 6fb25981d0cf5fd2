package smoke

import (
	"fmt"
	"math/rand/v2"
	"os"
	"regexp"
	"strings"
	"testing"
)

// TestSalctlStateKilledCSC: a salctl csc process killed with SIGKILL
// (nothing written on its way out: its last summaryState stays on the
// bus) is NOT RUNNING for salctl state, which exits 3; before, it is
// alive, exit 0. On the broker of LSST_* when set (the real-Kafka suite,
// with a subname of the test's own), else on localkafka's.
func TestSalctlStateKilledCSC(t *testing.T) {
	t.Parallel()
	var env []string
	if b, r := os.Getenv("LSST_KAFKA_BROKER_ADDR"), os.Getenv("LSST_SCHEMA_REGISTRY_URL"); b != "" && r != "" {
		env = append(baseEnv(), "LSST_KAFKA_BROKER_ADDR="+b, "LSST_SCHEMA_REGISTRY_URL="+r, fmt.Sprintf("LSST_TOPIC_SUBNAME=killed%d", rand.Uint32()))
	} else {
		env = sharedBus(t)
	}
	csc := start(t, env, "salctl", "csc", "Example:11")
	csc.waitFor("stderr", regexp.MustCompile(`salctl csc: Example:11 running in STANDBY`))
	r := run(t, env, "salctl", "state", "Example:11")
	if r.code != 0 || !regexp.MustCompile(`(?m)^Example:11 summaryState 5 \(STANDBY\), written .*; alive \(heartbeat \d+\.\d s ago\)$`).MatchString(r.stdout) {
		t.Errorf("state of a running CSC: want alive and exit 0\n%s", r)
	}
	if err := csc.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	csc.exitCode()
	r = run(t, env, "salctl", "state", "Example:11")
	if r.code != 3 || !regexp.MustCompile(`(?m)^Example:11 summaryState 5 \(STANDBY\), written .*; NOT RUNNING \(no heartbeat within 3s; the newest was written \d+\.\d s ago\)$`).MatchString(r.stdout) ||
		!strings.Contains(r.stderr, "salctl: not running (no heartbeat within 3s): Example:11") {
		t.Errorf("state of a killed CSC: want NOT RUNNING and exit 3\n%s", r)
	}
	r = run(t, env, "salctl", "command", "Example:11", "start")
	if r.code != 3 || !strings.Contains(r.stderr, "salctl: Example:11 is not running: no heartbeat within 3s") {
		t.Errorf("command to a killed CSC: want exit 3 at once\n%s", r)
	}
}
