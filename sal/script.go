package sal

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/lsst-sal/salgo/controller"
	"github.com/lsst-sal/salgo/internal/argparse"
	"github.com/lsst-sal/salgo/remote"
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
// of a ts_salobj BaseScript subclass do. Run is required.
type ScriptSpec struct {
	// Name is the script's class name: description.classname, and the
	// program name of its command line ("Run <Name> from the command
	// line").
	Name string
	// Description is a short description for operators (description.description).
	Description string
	// Help is detailed help, Markdown encouraged (description.help).
	Help string
	// Schema is the configuration's JSON Schema (Draft 7) as YAML, with
	// defaults where they make sense (they are filled in); nil for a
	// script without configuration. --schema prints it.
	Schema []byte
	// Setup prepares the script before it starts, as a salobj script's
	// constructor: make the Remotes of the components it commands with
	// s.NewRemote (they are listed in description.remotes; the script
	// waits for them to be ready before it reports UNCONFIGURED).
	Setup func(ctx context.Context, s *Script) error
	// Configure gets the validated configuration (state UNCONFIGURED);
	// an error ends the script in CONFIGURE_FAILED.
	Configure func(ctx context.Context, s *Script, cfg *ScriptConfiguration) error
	// SetMetadata fills in what the script knows of itself once configured
	// (duration, target, filters, checkpoints to come).
	SetMetadata func(s *Script, md *ScriptMetadata)
	// Run does the work, calling s.Checkpoint where it may be paused or
	// stopped. Its ctx ends when the script is stopped: return then. nil
	// ends in DONE, an error in FAILED (reason "Error in run: <error>",
	// a Remote's failed command reading as salobj's AckError does;
	// logged with details unless it is an ExpectedError), a stop in STOPPED.
	Run func(ctx context.Context, s *Script) error
	// Cleanup runs when the script ends after Run started, whatever the
	// outcome (not on a signal); an error ends in FAILED and exit code 1.
	Cleanup func(ctx context.Context, s *Script) error
	// FinalStateDelay is how long the script waits after writing its
	// final state before it ends (its process exits): time for the
	// ScriptQueue to read that state. 0 means 0.3 s (salobj's
	// final_state_delay); negative, none.
	FinalStateDelay time.Duration
	// Bus are options of the script's bus (default: the environment's).
	Bus []Option
}

// Script is a running SAL script, as its hooks see it: a
// controller.Script (the Script component at its SAL index, its state,
// checkpoints, logger and events; its methods are documented there: go doc
// github.com/lsst-sal/salgo/controller.Script) with the bus it runs on,
// on which it makes the Remotes of the components it commands.
type Script struct {
	*controller.Script
	bus *Bus
}

// NewScript makes a SAL script on this bus at SAL index (nonzero) and
// runs spec.Setup; then Start it. RunScript does all of it from the
// command line; tests call it directly, the script on a bus of its own as
// a script process has one (sal/saltest.NewScript does it all).
func (b *Bus) NewScript(ctx context.Context, index int, spec ScriptSpec) (*Script, error) {
	ss := &Script{bus: b}
	cfg := controller.ScriptConfig{ClassName: spec.Name, Description: spec.Description, Help: spec.Help, Schema: spec.Schema,
		FinalStateDelay: spec.FinalStateDelay}
	if f := spec.Configure; f != nil {
		cfg.Configure = func(ctx context.Context, _ *controller.Script, c *ScriptConfiguration) error { return f(ctx, ss, c) }
	}
	if f := spec.SetMetadata; f != nil {
		cfg.SetMetadata = func(_ *controller.Script, md *ScriptMetadata) { f(ss, md) }
	}
	if f := spec.Run; f != nil {
		cfg.Run = func(ctx context.Context, _ *controller.Script) error { return f(ctx, ss) }
	}
	if f := spec.Cleanup; f != nil {
		cfg.Cleanup = func(ctx context.Context, _ *controller.Script) error { return f(ctx, ss) }
	}
	s, err := controller.NewScript(b.Domain, index, cfg)
	if err != nil {
		return nil, err
	}
	ss.Script = s
	if spec.Setup != nil {
		if err := spec.Setup(ctx, ss); err != nil {
			s.Close()
			return nil, err
		}
	}
	return ss, nil
}

// Bus returns the script's bus.
func (s *Script) Bus() *Bus { return s.bus }

// NewRemote makes and starts a Remote on the script's bus that commands
// with the script's identity ("Script:<index>"), as a Remote made in a
// salobj script's constructor does; opts may override it. Made in Setup,
// it is listed in description.remotes.
func (s *Script) NewRemote(ctx context.Context, name string, index int, opts ...RemoteOption) (*Remote, error) {
	return s.bus.NewRemote(ctx, name, index, append([]RemoteOption{remote.WithIdentity(s.Identity())}, opts...)...)
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
// was already DONE or STOPPED.
func RunScript(spec ScriptSpec) int {
	return runScript(context.Background(), spec, os.Args[1:], os.Stdout, os.Stderr)
}

func runScript(ctx context.Context, spec ScriptSpec, args []string, stdout, stderr io.Writer) int {
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
		busOpts = append(busOpts, WithLogger(l)) // spec.Bus may choose another
	}
	bus, err := Connect(ctx, append(busOpts, spec.Bus...)...)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return ScriptExitFailed
	}
	defer bus.Close()
	s, err := bus.NewScript(ctx, index, spec)
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
