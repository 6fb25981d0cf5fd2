package sal

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/lsst-sal/salgo/controller"
	"github.com/lsst-sal/salgo/internal/argparse"
)

// The types of SAL scripts.
type (
	// ScriptState is a SAL script's state (ts_xml's ScriptState).
	// Documented in package controller: go doc github.com/lsst-sal/salgo/controller.ScriptState
	ScriptState = controller.ScriptState
	// ScriptMetadata is the metadata event a script fills in SetMetadata.
	// Documented in package controller: go doc github.com/lsst-sal/salgo/controller.ScriptMetadata
	ScriptMetadata = controller.ScriptMetadata
	// ScriptConfiguration is a script's validated configuration, with the
	// schema's defaults filled in, as Configure gets it.
	// Documented in package controller: go doc github.com/lsst-sal/salgo/controller.ScriptConfiguration
	ScriptConfiguration = controller.ScriptConfiguration
	// MetadataCoordSys is ScriptMetadata.CoordinateSystem.
	// Documented in package controller: go doc github.com/lsst-sal/salgo/controller.MetadataCoordSys
	MetadataCoordSys = controller.MetadataCoordSys
	// MetadataRotSys is ScriptMetadata.RotationSystem.
	// Documented in package controller: go doc github.com/lsst-sal/salgo/controller.MetadataRotSys
	MetadataRotSys = controller.MetadataRotSys
	// MetadataDome is ScriptMetadata.Dome.
	// Documented in package controller: go doc github.com/lsst-sal/salgo/controller.MetadataDome
	MetadataDome = controller.MetadataDome
)

// The script states and the metadata enumerations, with ts_xml's values.
const (
	ScriptUnknown         = controller.ScriptUnknown
	ScriptUnconfigured    = controller.ScriptUnconfigured
	ScriptConfigured      = controller.ScriptConfigured
	ScriptRunning         = controller.ScriptRunning
	ScriptPaused          = controller.ScriptPaused
	ScriptEnding          = controller.ScriptEnding
	ScriptStopping        = controller.ScriptStopping
	ScriptFailing         = controller.ScriptFailing
	ScriptDone            = controller.ScriptDone
	ScriptStopped         = controller.ScriptStopped
	ScriptFailed          = controller.ScriptFailed
	ScriptConfigureFailed = controller.ScriptConfigureFailed

	CoordSysNone     = controller.CoordSysNone
	CoordSysICRS     = controller.CoordSysICRS
	CoordSysObserved = controller.CoordSysObserved
	CoordSysMount    = controller.CoordSysMount
	RotSysNone       = controller.RotSysNone
	RotSysSky        = controller.RotSysSky
	RotSysHorizon    = controller.RotSysHorizon
	RotSysMount      = controller.RotSysMount
	DomeClosed       = controller.DomeClosed
	DomeOpen         = controller.DomeOpen
	DomeEither       = controller.DomeEither
)

// ScriptSpec describes a SAL script, as the class attributes and methods
// of a ts_salobj BaseScript subclass do: its name, description, schema
// and hooks (Setup, Configure, SetMetadata, Run, Cleanup). Name and Run
// are required.
// Documented in package controller: go doc github.com/lsst-sal/salgo/controller.ScriptConfig
type ScriptSpec = controller.ScriptConfig

// Script is a running SAL script, as its hooks see it: the Script
// component at its SAL index, its state, checkpoints, logger and events,
// and the Remotes it makes (Script.NewRemote).
// Documented in package controller: go doc github.com/lsst-sal/salgo/controller.Script
type Script = controller.Script

// NewScript makes a SAL script on this bus at SAL index (nonzero); Start
// runs spec.Setup and starts it. RunScript does all of it from the
// command line; tests call it directly, the script on a bus of its own as
// a script process has one (sal/saltest.NewScript does it all).
func (b *Bus) NewScript(index int, spec ScriptSpec) (*Script, error) {
	return controller.NewScript(b.Domain, index, spec)
}

// Script exit codes, as a salobj script's (BaseScript.amain).
const (
	// ScriptExitOK: the final state is DONE or STOPPED (or --schema, -h).
	ScriptExitOK = 0
	// ScriptExitFailed: any other final state (FAILED, CONFIGURE_FAILED, a
	// signal before the end), Cleanup failed, or the script could not start.
	ScriptExitFailed = 1
	// ScriptExitUsage: the command line is wrong (argparse's status).
	ScriptExitUsage = 2
)

// RunScript runs a SAL script program as ts_salobj's BaseScript.amain
// does, the way the ScriptQueue starts it (`<program> <index>`, the bus
// from the LSST_* environment), and returns its exit code for os.Exit.
// The command line is "Run <Name> from the command line", a required
// index and --schema, read as Python's argparse reads it (usage errors:
// exit 2). --schema prints the schema as yaml.safe_dump writes it and
// exits 0 without connecting (the index is required but ignored). Else
// the script starts at that index (0 is refused), waits for the
// ScriptQueue's commands, and exits once it has ended: 0 if the final
// state is DONE or STOPPED, else 1 (also when Cleanup failed). SIGINT and
// SIGTERM close it (Run cancelled, STOPPING, no Cleanup): exit 1 unless it
// was already DONE or STOPPED. opts are options of the script's bus
// (default: the LSST_* environment's).
func RunScript(spec ScriptSpec, opts ...Option) int {
	return runScript(context.Background(), spec, opts, os.Args[1:], os.Stdout, os.Stderr)
}

func runScript(ctx context.Context, spec ScriptSpec, opts []Option, args []string, stdout, stderr io.Writer) int {
	p := argparse.New("Run "+spec.Name+" from the command line", "")
	p.Int("index", argparse.Help("Script SAL Component index; must be unique among running Scripts"))
	p.Flag("--schema", argparse.Help("Print the configuration schema to stdout and quit "+
		"without running the script. The index argument is ignored, though it is still required."))
	res, err := p.Parse(args)
	if err != nil {
		return argparse.Report(err, stdout, stderr)
	}
	if res.Bool("schema") {
		text, ok, err := controller.ScriptSchemaYAML(spec.Schema)
		if err != nil {
			fmt.Fprintln(stderr, err)
			return ScriptExitFailed
		}
		if ok {
			fmt.Fprintln(stdout, text) // print() adds a newline to safe_dump's
		}
		return ScriptExitOK
	}
	index, _ := res.Int("index")
	if index == 0 {
		fmt.Fprintln(stderr, "sal: "+spec.Name+": index must be nonzero")
		return ScriptExitFailed
	}
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	var busOpts []Option
	if l := processLogger(stderr); l != nil {
		busOpts = append(busOpts, WithLogger(l)) // opts may choose another
	}
	bus, err := Connect(ctx, append(busOpts, opts...)...)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return ScriptExitFailed
	}
	defer bus.Close()
	s, err := bus.NewScript(index, spec)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return ScriptExitFailed
	}
	defer s.Close()
	if err := s.Start(ctx); err != nil {
		fmt.Fprintln(stderr, err)
		return ScriptExitFailed
	}
	select {
	case <-s.Done():
	case <-ctx.Done():
		stop()
		s.Logger().Info("Handling termination signal.")
	}
	s.Close()
	if err := s.Err(); err != nil {
		if st := s.State(); st != ScriptFailed {
			fmt.Fprintf(stderr, "RuntimeWarning: Script %s failed in cleanup with %v, but final state %s != FAILED\n", spec.Name, err, st.PyRepr())
		}
		return ScriptExitFailed
	}
	if st := s.State(); st == ScriptDone || st == ScriptStopped {
		return ScriptExitOK
	}
	return ScriptExitFailed
}
