// Command script is a SAL script in Go, SlewTest: it brings the Example
// CSC (index 1) to ENABLED, then steps it through setScalars commands (and
// Example's wait command, wait seconds each), with a checkpoint "step N"
// before each step where the ScriptQueue may pause or stop it. It runs
// the way the ScriptQueue starts a script, by its file name and an index:
//
//	go build -o $SCRIPTS_DIR/slew_test ./examples/script
//	slew_test 100001            # waits for configure, setGroupId, run
//	slew_test 0 --schema        # prints the configuration schema
//
// with the bus (LSST_KAFKA_BROKER_ADDR, LSST_SCHEMA_REGISTRY_URL,
// LSST_TOPIC_SUBNAME) taken from the environment. It needs no ts_xml at
// run time: the Script component is built into the SDK and Example's
// definition comes with its typed records (package examples/gen/example),
// so the binary runs with TS_XML_DIR unset; when TS_XML_DIR is set, the
// Script component is read from there and Example is added to it. Its
// configuration:
//
//	steps: 3      # setScalars commands, int0 = 1, 2, ...
//	wait: 0.5     # Example's wait command after each (0: none)
//	enable: true  # bring Example:1 to ENABLED first
//
// It exits 0 when DONE or STOPPED, 1 when FAILED, as a salobj script does.
package main

import (
	"os"

	"github.com/lsst-sal/salgo/sal"
)

func main() { os.Exit(sal.RunScript(Spec())) }
