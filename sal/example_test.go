package sal_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"

	"github.com/lsst-sal/salgo/controller"
	"github.com/lsst-sal/salgo/sal"
	salxml "github.com/lsst-sal/salgo/xml"
)

// quiet keeps the examples' output to what they print.
var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))

func ExampleNewController() {
	bus, err := sal.Connect(context.Background(), sal.WithDefinitions(salxml.Embedded()), sal.WithLogger(quiet))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer bus.Close()

	// A bare controller: one handler per command, no state machine.
	c, err := bus.NewController("Example", 2, controller.WithAllowMissing())
	if err != nil {
		fmt.Println(err)
		return
	}
	defer c.Close()
	c.HandleFunc("setScalars", func(ctx context.Context, cmd *sal.Command) error {
		fmt.Println("setScalars: int0 =", cmd.Data["int0"])
		_, err := c.MustTelemetry("scalars").Write(ctx, map[string]any{"int0": cmd.Data["int0"]})
		return err
	})
	if err := c.Start(context.Background()); err != nil {
		fmt.Println(err)
		return
	}

	r, err := bus.NewRemote(context.Background(), "Example", 2)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer r.Close()
	ack, err := r.Command(context.Background(), "setScalars", map[string]any{"int0": 42})
	fmt.Println(ack.Code, err)
	tel, _ := r.MustTelemetry("scalars").Next(context.Background())
	fmt.Println("telemetry int0:", tel["int0"])
	_, err = r.Command(context.Background(), "fault", nil)
	fmt.Println(err)
	// Output:
	// setScalars: int0 = 42
	// CMD_COMPLETE <nil>
	// telemetry int0: 42
	// remote: Example:2 command fault failed: ack=CMD_FAILED error=1 result="Failed: This command is not supported"
}

// A reader that is handed back the records it delivered decodes later
// records into them: arrays are overwritten in place instead of
// allocated, which matters for large telemetry read at a high rate.
func ExampleRemote_recycle() {
	bus, err := sal.Connect(context.Background(), sal.WithDefinitions(salxml.Embedded()), sal.WithLogger(quiet))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer bus.Close()
	c, err := bus.NewController("Example", 3, controller.WithAllowMissing())
	if err != nil {
		fmt.Println(err)
		return
	}
	defer c.Close()
	if err := c.Start(context.Background()); err != nil {
		fmt.Println(err)
		return
	}
	r, err := bus.NewRemote(context.Background(), "Example", 3)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer r.Close()

	ctx := context.Background()
	arrays := r.MustTelemetry("arrays")
	for i := range 3 {
		v := float32(i)
		if _, err := c.MustTelemetry("arrays").Write(ctx, map[string]any{"float0": []float32{v, v, v, v, v}}); err != nil {
			fmt.Println(err)
			return
		}
		rec, err := arrays.Next(ctx)
		if err != nil {
			fmt.Println(err)
			return
		}
		sum := float32(0)
		for _, x := range rec["float0"].([]float32) {
			sum += x
		}
		fmt.Println("sum of float0:", sum)
		arrays.Recycle(rec) // rec and its slices must not be used after this
	}
	// Output:
	// sum of float0: 0
	// sum of float0: 5
	// sum of float0: 10
}

// A record's fields hold their canonical Go types; Get says which when
// asked for another.
func ExampleGet() {
	rec := map[string]any{"state": uint8(8)} // a Script's state event
	fmt.Println(rec["state"] == int32(8))    // false: a SAL byte is a uint8
	_, err := sal.Get[int32](rec, "state")
	fmt.Println(err)
	state, _ := sal.Get[uint8](rec, "state")
	fmt.Println(state)
	// Output:
	// false
	// sal: field "state" holds a uint8 (8), not a int32: sal: field holds another type
	// 8
}
