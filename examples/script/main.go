// Command script is a SAL script in Go, SlewTest: it brings the Test CSC
// (index 1) to ENABLED, then steps it through setScalars commands (and
// Test's wait command, wait seconds each), with a checkpoint "step N"
// before each step where the ScriptQueue may pause or stop it. It runs
// the way the ScriptQueue starts a script, by its file name and an index:
//
//	go build -o $SCRIPTS_DIR/slew_test ./examples/script
//	slew_test 100001            # waits for configure, setGroupId, run
//	slew_test 0 --schema        # prints the configuration schema
//
// with the bus (LSST_KAFKA_BROKER_ADDR, LSST_SCHEMA_REGISTRY_URL,
// LSST_TOPIC_SUBNAME) and ts_xml (TS_XML_DIR: the Script and Test
// components are there) taken from the environment. Its configuration:
//
//	steps: 3      # setScalars commands, int0 = 1, 2, ...
//	wait: 0.5     # Test's wait command after each (0: none)
//	enable: true  # bring Test:1 to ENABLED first
//
// It exits 0 when DONE or STOPPED, 1 when FAILED, as a salobj script does.
package main

import (
	"os"

	"github.com/lsst-sal/salgo/sal"
)

func main() { os.Exit(sal.RunScript(Spec())) }
