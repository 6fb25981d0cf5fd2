// Command remote is a small Remote: it finds a CSC of the Example
// component by its summaryState (late-joiner history: the newest one
// written before the Remote started), takes it to ENABLED, prints a few
// samples of its scalars telemetry, and sends it back to STANDBY. Run it
// beside examples/telemetrycsc on a shared bus (examples/localkafka, or
// the observatory's Kafka through LSST_*):
//
//	go run ./examples/localkafka                 # prints three export lines: run them in the other two terminals
//	go run ./examples/telemetrycsc 1 --simulate
//	go run ./examples/remote -n 5 1
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"strconv"
	"time"

	"github.com/lsst-sal/salgo/remote"
	"github.com/lsst-sal/salgo/sal"
)

func main() {
	n := flag.Int("n", 5, "telemetry samples to print")
	timeout := flag.Duration("timeout", time.Minute, "bound on the whole run")
	flag.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: remote [-n N] [-timeout D] INDEX")
		flag.PrintDefaults()
	}
	flag.Parse()
	index, err := strconv.Atoi(flag.Arg(0))
	if flag.NArg() != 1 || err != nil {
		flag.Usage()
		os.Exit(2)
	}
	ctx, cancel := context.WithTimeout(context.Background(), *timeout)
	defer cancel()
	if err := run(ctx, index, *n); err != nil {
		fmt.Fprintln(os.Stderr, "remote:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, index, n int) error {
	// The bus of the LSST_* environment, with the SDK's own Example
	// component (telemetrycsc's).
	if _, err := sal.Default(ctx, sal.WithDefinitions(sal.EmbeddedDefinitions())); err != nil {
		return err
	}
	defer sal.Close()
	r, err := sal.NewRemote("Example", index, remote.WithInclude("summaryState", "scalars"))
	if err != nil {
		return err
	}
	defer r.Close()

	state, err := r.MustEvent("summaryState").Await(ctx) // history first
	if err != nil {
		return fmt.Errorf("no CSC Example:%d seen: %w", index, err)
	}
	fmt.Println("found Example:", index, "in", sal.State(state["summaryState"].(int32)))

	states, err := sal.SetSummaryState(ctx, r, sal.Enabled, "")
	if err != nil {
		return err
	}
	fmt.Println("states:", states)

	scalars := r.MustTelemetry("scalars")
	for i := 0; i < n; i++ {
		rec, err := scalars.Next(ctx)
		if err != nil {
			return err
		}
		int0, _ := sal.Get[int32](rec, "int0")
		double0, _ := sal.Get[float64](rec, "double0")
		fmt.Printf("scalars: int0=%d double0=%.3f\n", int0, double0)
	}

	if _, err := sal.SetSummaryState(ctx, r, sal.Standby, ""); err != nil {
		return err
	}
	fmt.Println("remote: done, Example:", index, "in STANDBY")
	return nil
}
