// Command typed is the quickstart on typed records: a CSC and a Remote of
// the Example component made from the package cmd/salgen generated for it
// (examples/gen/example), which holds a Go struct per topic, typed
// writers, readers, commands and command handlers, the component's
// enumerations, and its definition files. It takes the CSC to ENABLED
// through the Remote, sends three setScalars commands as structs, and
// reads back the scalars telemetry the CSC writes, as structs: no maps,
// no type assertions.
//
//	go run ./examples/typed
//
// The program needs no TS_XML_DIR: example.NewCSC and example.NewRemote
// bring Example's definition to the bus (example.Use). With no
// LSST_KAFKA_BROKER_ADDR it runs on an in-process Kafka broker and schema
// registry; with the LSST_* variables set it runs on that bus.
package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/lsst-sal/salgo/controller"
	"github.com/lsst-sal/salgo/examples/gen/example"
	"github.com/lsst-sal/salgo/sal"
)

func main() {
	// SIGINT and SIGTERM cancel ctx: the CSC and Remote close cleanly.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx)
	stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, "typed:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	bus, err := sal.Connect(ctx, sal.WithLogger(log))
	if err != nil {
		return err
	}
	defer bus.Close()

	// 1. A typed CSC: example.CSC embeds the SDK's *controller.CSC (state
	// machine, generic commands) and adds a typed writer per topic and a
	// Handle method per command of Example's own.
	// It handles setScalars only (WithAllowMissing: the other commands of
	// Example fail with "This command is not supported").
	csc, err := example.NewCSC(bus.Domain, 1, controller.WithVersion("typed-1.0"),
		controller.WithEnabledCommands("setScalars"), controller.WithAllowMissing())
	if err != nil {
		return err
	}
	defer csc.Close()
	// The handler gets the command's data as a *example.CmdSetScalars and
	// writes the scalars telemetry as a *example.Scalars.
	err = csc.HandleSetScalars(func(ctx context.Context, cmd *controller.Command, data *example.CmdSetScalars) error {
		_, err := csc.Scalars().Write(ctx, &example.Scalars{Int0: data.Int0, Double0: data.Double0, String0: data.String0})
		return err
	})
	if err != nil {
		return err
	}
	if err := csc.Start(ctx); err != nil {
		return err
	}
	fmt.Printf("CSC %s started in %s\n", csc.Name(), csc.State().Name())

	// 2. A typed Remote of the same instance: example.Remote embeds the
	// SDK's *remote.Remote (sal.SetSummaryState takes it) and adds a typed
	// reader per topic and a method per command.
	r, err := example.NewRemote(bus.Domain, 1)
	if err != nil {
		return err
	}
	defer r.Close()
	if err := r.Start(ctx); err != nil {
		return err
	}
	states, err := sal.SetSummaryState(ctx, r.Remote, sal.Enabled, "")
	if err != nil {
		return err
	}
	fmt.Printf("states: %v\n", states)
	// The acks came back; the summaryState event may still be on its way.
	if _, err := sal.WaitForSummaryState(ctx, r.Remote, sal.Enabled); err != nil {
		return err
	}
	if ss := r.EvtSummaryState().Get(); ss != nil {
		fmt.Printf("summaryState: %s\n", sal.State(ss.SummaryState).Name())
	}

	// 3. Typed commands, and the telemetry they cause read as structs.
	// Int0 carries a value of the Mode enumeration, whose String is the
	// name ts_xml gives it.
	scalars := r.Scalars()
	for _, mode := range []example.Mode{example.ModeIdle, example.ModeTracking, example.ModeSlewing} {
		ack, err := r.CmdSetScalars(ctx, &example.CmdSetScalars{
			Int0: int32(mode), Double0: float64(mode) / 4, String0: "mode " + mode.String(),
		})
		if err != nil {
			return err
		}
		s, err := scalars.Next(ctx)
		if err != nil {
			return err
		}
		fmt.Printf("setScalars %s: %s; scalars: int0=%d (%s) double0=%g string0=%q seqNum=%d\n",
			mode, ack.Code, s.Int0, example.Mode(s.Int0), s.Double0, s.String0, s.SeqNum)
		// Done with s: give it back, so the next record read is decoded
		// into it instead of a new one (no allocation per record).
		scalars.Recycle(s)
	}
	fmt.Println("typed: done")
	return nil
}
