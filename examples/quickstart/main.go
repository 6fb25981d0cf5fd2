package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/lsst-sal/salgo/controller"
	"github.com/lsst-sal/salgo/remote"
	"github.com/lsst-sal/salgo/sal"
)

func main() {
	// SIGINT and SIGTERM cancel ctx: the CSC and Remote close cleanly.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx)
	stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, "quickstart:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelInfo}))

	// The Example component is built into the SDK, whatever TS_XML_DIR says.
	bus, err := sal.Connect(ctx, sal.WithLogger(log), sal.WithDefinitions(sal.EmbeddedDefinitions()))
	if err != nil {
		return err
	}
	defer bus.Close()
	fmt.Printf("bus: brokers %v (embedded: %v)\n", bus.Config().Brokers, bus.Embedded())

	// 1. A CSC: the summary state machine comes with it; we add handlers
	// for the Example's own commands.
	csc, err := bus.NewCSC("Example", 1,
		controller.WithVersion("quickstart-1.0"),
		controller.WithEnabledCommands("setScalars", "setArrays", "wait"),
		controller.WithConcurrent("wait"))
	if err != nil {
		return err
	}
	defer csc.Close()
	csc.HandleFunc("setScalars", func(ctx context.Context, cmd *sal.Command) error {
		fields := userFields(cmd.Data)
		if _, err := csc.MustEvent("scalars").SetWrite(ctx, fields, false); err != nil {
			return err
		}
		_, err := csc.MustTelemetry("scalars").Write(ctx, fields)
		return err
	})
	csc.HandleFunc("setArrays", func(ctx context.Context, cmd *sal.Command) error {
		fields := userFields(cmd.Data)
		if _, err := csc.MustEvent("arrays").SetWrite(ctx, fields, false); err != nil {
			return err
		}
		_, err := csc.MustTelemetry("arrays").Write(ctx, fields)
		return err
	})
	csc.HandleFunc("wait", func(ctx context.Context, cmd *sal.Command) error {
		d := time.Duration(cmd.Data["duration"].(float64) * float64(time.Second))
		if err := cmd.InProgress(ctx, d, "waiting"); err != nil {
			return err
		}
		select {
		case <-time.After(d):
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	})
	csc.HandleFunc("fault", func(ctx context.Context, cmd *sal.Command) error {
		return csc.Fault(ctx, 1, "executing the fault command", "")
	})
	if err := csc.Start(ctx); err != nil {
		return err
	}
	fmt.Printf("CSC %s started in %s\n", csc.Name(), csc.State().Name())

	// 2. A Remote of the same instance.
	r, err := bus.NewRemote(ctx, "Example", 1)
	if err != nil {
		return err
	}
	defer r.Close()
	st, err := r.MustEvent("summaryState").Next(ctx)
	if err != nil {
		return err
	}
	fmt.Printf("remote sees summaryState %s\n", sal.State(st["summaryState"].(int32)).Name())

	// 3. STANDBY -> DISABLED -> ENABLED.
	for _, c := range []string{"start", "enable"} {
		ack, err := r.Command(ctx, c, nil, remote.WithTimeout(10*time.Second))
		if err != nil {
			return err
		}
		st, err := r.MustEvent("summaryState").Next(ctx)
		if err != nil {
			return err
		}
		fmt.Printf("%s: %s %q -> summaryState %s\n", c, ack.Code, ack.Result, sal.State(st["summaryState"].(int32)).Name())
	}

	// 4. setScalars and setArrays: the CSC writes events and telemetry.
	if _, err := r.Command(ctx, "setScalars", map[string]any{
		"boolean0": true, "byte0": 200, "short0": -3, "int0": 40000, "long0": 7,
		"longLong0": int64(1) << 40, "unsignedShort0": 65000, "unsignedInt0": uint32(4e9),
		"float0": 1.5, "double0": 3.25, "string0": "hello SAL",
	}); err != nil {
		return err
	}
	ev, err := r.MustEvent("scalars").Next(ctx)
	if err != nil {
		return err
	}
	tel, err := r.MustTelemetry("scalars").Next(ctx)
	if err != nil {
		return err
	}
	fmt.Printf("setScalars -> event scalars: string0=%q byte0=%v longLong0=%v; telemetry scalars: unsignedInt0=%v float0=%v\n",
		ev["string0"], ev["byte0"], ev["longLong0"], tel["unsignedInt0"], tel["float0"])
	if _, err := r.Command(ctx, "setArrays", map[string]any{"double0": []float64{1, 2, 3, 4, 5}, "int0": []any{1, 2, 3, 4, 5}}); err != nil {
		return err
	}
	arr, err := r.MustEvent("arrays").Next(ctx)
	if err != nil {
		return err
	}
	fmt.Printf("setArrays -> event arrays: double0=%v int0=%v\n", arr["double0"], arr["int0"])

	// 5. A long command: the CSC acknowledges INPROGRESS, then COMPLETE.
	f, err := r.StartCommand(ctx, "wait", map[string]any{"duration": 0.5}, remote.WithTimeout(10*time.Second))
	if err != nil {
		return err
	}
	for {
		ack, err := f.Next(ctx)
		if err != nil {
			return err
		}
		fmt.Printf("wait: %s %q timeout=%s\n", ack.Code, ack.Result, ack.Timeout)
		if ack.Code.Final() {
			break
		}
	}

	// 6. A late joiner sees the newest summaryState at once.
	late, err := bus.NewRemote(ctx, "Example", 1, remote.WithReadOnly(), remote.WithInclude("summaryState"))
	if err != nil {
		return err
	}
	defer late.Close()
	hist := late.MustEvent("summaryState").Get()
	fmt.Printf("late joiner: history summaryState %s (seqNum %v)\n", sal.State(hist["summaryState"].(int32)).Name(), hist["private_seqNum"])

	// 7. A command in the wrong state fails with the reference's text.
	_, err = r.Command(ctx, "start", nil)
	var ae *sal.AckError
	if !errors.As(err, &ae) {
		return fmt.Errorf("start while enabled: want an AckError, got %v", err)
	}
	fmt.Printf("start while ENABLED: %s error=%d %q\n", ae.Ack.Code, ae.Ack.Error, ae.Ack.Result)
	fmt.Println("quickstart: done")
	return nil
}

// userFields drops the private fields of a received record.
func userFields(rec map[string]any) map[string]any {
	out := map[string]any{}
	for k, v := range rec {
		if k != "salIndex" && (len(k) < 8 || k[:8] != "private_") {
			out[k] = v
		}
	}
	return out
}
