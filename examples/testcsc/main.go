// Command testcsc is the Go twin of ts_salobj's TestCsc, run as salobj runs
// it (run_test_csc): testcsc INDEX [--state STATE] [--override FILE]
// [--loglevel N] [--configdir DIR] [--version]. It serves the Test
// component when the definitions have it (TS_XML_DIR pointing at ts_xml),
// else the SDK's own copy of it, Example. Its handlers are written on the
// typed records of examples/gen/example, which carries Example's
// definition (serving Test, whose topics have the same fields, the same
// records go through the map API), so that
//
//	go run ./examples/testcsc 1 --state enabled --embedded
//
// runs with nothing installed (--embedded: on a private in-process bus;
// without it the program needs LSST_KAFKA_BROKER_ADDR). Its configuration comes from
// $TS_CONFIG_OCS_DIR/<component>/v2 (the Test/v2 files of ts_config_ocs
// configure it), or from the example's own folder when that variable is
// not set; LSST_SITE defaults to "local". A Python Remote drives it as it
// drives TestCsc.
package main

import (
	"fmt"
	"os"

	"github.com/lsst-sal/salgo/sal"
	salxml "github.com/lsst-sal/salgo/xml"
)

func main() { os.Exit(run()) }

func run() int {
	defs, err := salxml.FromEnv()
	if err != nil {
		fmt.Fprintln(os.Stderr, "testcsc:", err)
		return 1
	}
	component := "Example"
	if _, err := defs.Component("Test"); err == nil {
		component = "Test"
	}
	cleanup := func() {}
	defer func() { cleanup() }()
	return sal.RunCSC(sal.RunSpec{
		Name:      "TestCsc",
		Component: component,
		Version:   Version,
		Make: func(b *sal.Bus, index int, opts ...sal.CSCOption) (*sal.CSC, error) {
			var err error
			if cleanup, err = useBundledConfig(component); err != nil {
				return nil, err
			}
			return New(b, index, opts...)
		},
		StateFlag:    true,
		Configurable: true,
		Indexed:      true,
		Bus:          []sal.Option{sal.WithDefinitions(defs)},
	})
}
