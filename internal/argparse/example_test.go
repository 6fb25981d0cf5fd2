package argparse_test

import (
	"fmt"
	"os"

	"github.com/lsst-sal/salgo/internal/argparse"
)

// The command line of a CSC run as "run_test_csc 5 --state enabled": flags
// may follow the index, and a bad value gets argparse's usage and error.
func Example() {
	p := argparse.New("Run TestCsc", "")
	p.SetColumns(80) // as Python without a terminal; the default reads COLUMNS
	p.Int("index", argparse.Help("SAL index."))
	p.Int("--loglevel", argparse.Help("log level: error=40, warning=30, info=20, debug=10"))
	p.String("--state", argparse.Choices("offline", "standby", "disabled", "enabled"),
		argparse.Dest("initial_state"), argparse.Help("initial state"))
	p.Version("--version", "8.2.12")

	res, err := p.Parse([]string{"5", "--sta", "enabled"})
	if err != nil {
		os.Exit(argparse.Report(err, os.Stdout, os.Stderr))
	}
	index, _ := res.Int("index")
	state, _ := res.String("initial_state")
	_, hasLevel := res.Int("loglevel")
	fmt.Println(index, state, hasLevel)

	_, err = p.Parse([]string{"5", "--state", "fault"})
	code := argparse.Report(err, os.Stdout, os.Stdout) // stderr too, for the example
	fmt.Println("exit status", code)
	// Output:
	// 5 enabled false
	// usage: Run TestCsc [-h] [--loglevel LOGLEVEL]
	//                    [--state {offline,standby,disabled,enabled}] [--version]
	//                    index
	// Run TestCsc: error: argument --state: invalid choice: 'fault' (choose from 'offline', 'standby', 'disabled', 'enabled')
	// exit status 2
}
