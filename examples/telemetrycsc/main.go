// Command telemetrycsc is a CSC whose telemetry comes from a loop
// (sal.CSC.Loop), as the "Telemetry Loop Example" of salobj's docs: while
// the CSC is ENABLED it reads its sensor every 100 ms and writes the
// reading as the Example component's scalars telemetry; it stops when the
// CSC leaves ENABLED, and a failed reading sends the CSC to FAULT.
//
// The sensor is simulated in simulation mode 1 (--simulate); in mode 0
// there is no hardware here, so enabling the CSC ends in FAULT with
// errorCode 1 ("telemetry failed: no sensor connected ..."), which shows
// the loop's failure path:
//
//	go run ./examples/telemetrycsc 1 --simulate --state enabled --embedded
package main

import (
	"context"
	"errors"
	"math"
	"os"
	"time"

	"github.com/lsst-sal/salgo/controller"
	"github.com/lsst-sal/salgo/sal"
)

// Version is the program's version (softwareVersions.cscVersion).
const Version = "1.0.0"

// Period is how often the loop reads and writes while ENABLED.
const Period = 100 * time.Millisecond

// ErrNoSensor is the reading's error in simulation mode 0.
var ErrNoSensor = errors.New("no sensor connected (run with --simulate for the simulated one)")

// Spec is the program: the runner's command line, simulation modes 0 and
// 1 declared once here.
func Spec() sal.RunSpec {
	return sal.RunSpec{
		Name: "TelemetryCsc", Component: "Example", Version: Version, Make: New,
		StateFlag: true, Indexed: true, ValidSimulationModes: []int32{0, 1},
		Bus: []sal.Option{sal.WithDefinitions(sal.EmbeddedDefinitions())},
	}
}

// New makes the CSC (a sal.CSCMaker).
func New(b *sal.Bus, index int, opts ...sal.CSCOption) (*sal.CSC, error) {
	csc, err := b.NewCSC("Example", index, append([]sal.CSCOption{controller.WithVersion(Version), controller.WithAllowMissing()}, opts...)...)
	if err != nil {
		return nil, err
	}
	start := time.Now()
	var n int32
	err = csc.Loop("telemetry", Period, 1, func(ctx context.Context) error {
		v, err := read(csc.SimulationMode(), time.Since(start))
		if err != nil {
			return err // the CSC goes to FAULT, errorCode 1
		}
		n++
		_, err = csc.MustTelemetry("scalars").Write(ctx, map[string]any{"double0": v, "int0": n})
		return err
	})
	return csc, err
}

// read is the sensor: a slow sine in simulation, nothing otherwise.
func read(mode int32, since time.Duration) (float64, error) {
	if mode != 1 {
		return 0, ErrNoSensor
	}
	return math.Sin(since.Seconds() / 10), nil
}

func main() { os.Exit(sal.RunCSC(Spec())) }
