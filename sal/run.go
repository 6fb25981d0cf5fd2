package sal

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"slices"
	"strconv"
	"strings"
	"syscall"

	"github.com/lsst-sal/salgo/controller"
	"github.com/lsst-sal/salgo/internal/argparse"
	salxml "github.com/lsst-sal/salgo/xml"
)

// RunSpec describes a CSC program for RunCSC, as the class attributes of a
// salobj CSC and the arguments of its amain do.
type RunSpec struct {
	// Name is the CSC's name in the usage and errors, "Run <Name>", as
	// salobj's class name ("TestCsc").
	Name string
	// Component is the SAL component; its definitions say whether the
	// program takes an index (and which, for an enumeration of named
	// indices).
	Component string
	// Version is what --version prints (and should be the cscVersion
	// Make gives).
	Version string
	// Make makes the CSC; the runner passes its options (initial state,
	// override, simulation mode, configuration folder, duplicate check),
	// which Make gives to Bus.NewCSC after the CSC's own.
	Make CSCMaker
	// StateFlag adds --state (salobj's enable_cmdline_state) and, for a
	// configurable CSC, --override.
	StateFlag bool
	// Configurable adds --configdir.
	Configurable bool
	// ValidSimulationModes are the simulation modes the CSC supports,
	// declared once, here (salobj's valid_simulation_modes): the runner
	// passes them to the CSC (controller.WithValidSimulationModes, after the
	// maker's own options), and tests make the same CSC with Maker. If
	// more than one, they add --simulate (salobj's rules: a flag when they
	// are 0 and one other, else a value). Empty: the CSC's own
	// WithValidSimulationModes, if any, stands (default 0 only).
	ValidSimulationModes []int32
	// SimulationHelp replaces --simulate's help text.
	SimulationHelp string
	// Flags adds the program's own flags (salobj's add_arguments); their
	// values are set before Make runs.
	Flags func(f *Flags)
	// Bus are options of the bus (default: the environment's).
	Bus []Option
	// Indexed says the component takes a SAL index, for the command line
	// when its definition cannot be loaded (TS_XML_DIR unset or wrong), so
	// that --help, --version and usage errors need no ts_xml; once the
	// definitions load, the component's decides.
	Indexed bool
}

// Flags are a program's own command-line flags (RunSpec.Flags), bound to
// variables as with package flag; they parse as Python's argparse does.
type Flags struct {
	p    *argparse.Parser
	sets []func(*argparse.Result)
}

// Int adds --name (an int, default def) bound to v.
func (f *Flags) Int(v *int, name string, def int, help string) {
	f.p.Int(name, argparse.Default(def), argparse.Help(help))
	dest := destOf(name)
	f.sets = append(f.sets, func(r *argparse.Result) { *v, _ = r.Int(dest) })
}

// String adds --name (a string, default def) bound to v.
func (f *Flags) String(v *string, name, def, help string) {
	f.p.String(name, argparse.Default(def), argparse.Help(help))
	dest := destOf(name)
	f.sets = append(f.sets, func(r *argparse.Result) { *v, _ = r.String(dest) })
}

// Bool adds --name (a flag without a value) bound to v.
func (f *Flags) Bool(v *bool, name, help string) {
	f.p.Flag(name, argparse.Help(help))
	dest := destOf(name)
	f.sets = append(f.sets, func(r *argparse.Result) { *v = r.Bool(dest) })
}

func destOf(name string) string {
	return strings.ReplaceAll(strings.TrimLeft(name, "-"), "-", "_")
}

// RunCSC runs a CSC program as ts_salobj's amain does and returns its exit
// code, for os.Exit: it parses the command line (the SAL index when the
// component is indexed, --loglevel, --state, --override, --simulate,
// --version, --configdir, --embedded and the program's own flags, read as
// Python's argparse reads them, with its usage and error texts), makes the
// CSC with the duplicate check on, starts it, and waits until it has closed
// after exitControl (exit 0), or a signal.
//
// On SIGINT or SIGTERM, at any moment (while the bus connects, during the
// duplicate check, a transition, a handler, a long Configure), the runner
// prints and logs "signal_handler" as ts_salobj does, cancels a Start still
// under way ("start canceled"), and shuts the CSC down (CSC.Shutdown):
// running commands are aborted, the SummaryState hook sees OFFLINE and
// summaryState OFFLINE is written (ts_salobj writes nothing then; the SDK
// writes it so that late joiners do not read the last state of a CSC that
// is gone), the Close hook runs, and the program exits 0. Further signals
// during the shutdown are ignored.
//
// A CSC program needs the observatory's Kafka broker: without
// LSST_KAFKA_BROKER_ADDR (or a broker set in RunSpec.Bus) it refuses to
// start, exit 1, unless --embedded asks for a private in-process broker and
// registry (for demos and tests: no other process can reach them). Usage
// errors exit 2 (-h and --version 0, and neither needs ts_xml or a bus); a
// CSC that cannot be made or started exits 1, with the error on stderr.
func RunCSC(spec RunSpec) int {
	return runCSC(context.Background(), spec, os.Args[1:], os.Stdout, os.Stderr)
}

// runCSC is RunCSC; the end of ctx acts as a signal.
func runCSC(ctx context.Context, spec RunSpec, args []string, stdout, stderr io.Writer) int {
	defs, defErr := runDefinitions(spec.Bus)
	var comp *salxml.Component
	if defErr == nil {
		if comp, defErr = defs.Component(spec.Component); defErr != nil {
			defErr = missingComponent(spec, defErr)
		}
	}
	p, flags := cscParser(spec, comp)
	res, err := p.Parse(args)
	if err != nil {
		return argparse.Report(err, stdout, stderr)
	}
	if defErr != nil {
		fmt.Fprintln(stderr, defErr)
		return 1
	}
	for _, set := range flags.sets {
		set(res)
	}
	has := func(dest string) bool { return slices.Contains(res.Dests(), dest) }
	busOpts := []Option{WithDefinitions(defs)}
	if l := processLogger(stderr); l != nil {
		busOpts = append(busOpts, WithLogger(l)) // spec.Bus may choose another
	}
	busOpts = append(busOpts, spec.Bus...)
	if res.Bool("embedded") {
		busOpts = append(busOpts, WithEmbedded())
	} else if err := needBroker(spec); err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	index := 0
	if comp.Indexed {
		index, _ = res.Int("index")
	}
	var opts []CSCOption
	if has("initial_state") {
		if s, ok := res.String("initial_state"); ok {
			st, _ := controller.ParseState(s)
			opts = append(opts, controller.WithInitialState(st))
		}
	}
	if has("override") {
		o, _ := res.String("override")
		opts = append(opts, controller.WithOverride(o))
	}
	if has("simulate") {
		opts = append(opts, controller.WithSimulationMode(int32(res.Value("simulate").(int))))
	}
	if has("configdir") {
		if d, ok := res.String("configdir"); ok {
			opts = append(opts, controller.WithConfigDir(d))
		}
	}
	opts = append(opts, controller.WithCheckDuplicate())

	// Signals are caught from here to the end: a second one during the
	// shutdown is ignored, as the first one's work goes on.
	sig, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	signalled := func() int {
		fmt.Fprintln(stdout, "signal_handler")
		return 0
	}
	bus, err := Connect(sig, busOpts...)
	if err != nil {
		if sig.Err() != nil {
			return signalled()
		}
		fmt.Fprintln(stderr, err)
		return 1
	}
	defer bus.Close()
	csc, err := spec.Maker()(bus, index, opts...)
	if err != nil {
		if sig.Err() != nil {
			return signalled()
		}
		fmt.Fprintln(stderr, err)
		return 1
	}
	defer csc.Close()
	if l, ok := res.Int("loglevel"); ok {
		csc.SetLogLevel(controller.PyToSlog(int32(l)))
	}
	// Start runs beside the wait for a signal, which cancels it; a close
	// waits for Start to return.
	started := make(chan error, 1)
	go func() { started <- csc.Start(context.Background()) }()
	select {
	case err := <-started:
		if err != nil && sig.Err() == nil && !errors.Is(err, ErrClosed) {
			fmt.Fprintln(stderr, err)
			return 1
		}
		// Start cut short by a close (an exitControl that came while it
		// ran, which ends the CSC as any exitControl does) waits below
		// for the end of the close, as a CSC that started does.
		select {
		case <-csc.Done():
			if err := csc.Err(); err != nil {
				fmt.Fprintln(stderr, err)
				return 1
			}
			return 0
		case <-sig.Done():
		}
	case <-sig.Done():
	}
	csc.Logger().Info("signal_handler")
	code := signalled()
	off, cancel := context.WithTimeout(context.Background(), DefaultStartTimeout)
	defer cancel()
	_ = csc.Shutdown(off) // its errors are logged
	return code
}

// Maker returns the CSC maker the runner calls: Make, given
// ValidSimulationModes (if any) before the caller's options. Tests make
// the program's CSC with it (e.g. saltest.NewCSC(t, spec.Maker(), ...)),
// so that the modes are declared once, in the RunSpec.
func (spec RunSpec) Maker() CSCMaker {
	if len(spec.ValidSimulationModes) == 0 {
		return spec.Make
	}
	modes := slices.Clone(spec.ValidSimulationModes)
	return func(b *Bus, index int, opts ...CSCOption) (*CSC, error) {
		return spec.Make(b, index, append([]CSCOption{controller.WithValidSimulationModes(modes...)}, opts...)...)
	}
}

// needBroker refuses to run a CSC program on the in-process bus unless it
// was asked for: a deployed CSC whose LSST_KAFKA_BROKER_ADDR went missing
// must not run alone, unseen.
func needBroker(spec RunSpec) error {
	s := &settings{}
	for _, o := range spec.Bus {
		o.apply(s)
	}
	if s.embedded || len(s.cfg.Brokers) > 0 || os.Getenv(EnvBroker) != "" {
		return nil
	}
	//lint:ignore ST1005 the runner's message starts with the program, as salobj's do
	return fmt.Errorf("Run %s: %s is not set: a CSC needs the observatory's Kafka broker (set %s, %s and %s), or --embedded to run on a private in-process broker that no other process can reach", spec.Name, EnvBroker, EnvBroker, EnvRegistry, EnvSubname)
}

// missingComponent says why the definitions lack the program's component,
// naming TS_XML_DIR.
func missingComponent(spec RunSpec, err error) error {
	if dir := os.Getenv(salxml.EnvDir); dir != "" {
		//lint:ignore ST1005 the runner's message starts with the program, as salobj's do
		return fmt.Errorf("Run %s: %w (the definitions are ts_xml's at %s=%s)", spec.Name, err, salxml.EnvDir, dir)
	}
	//lint:ignore ST1005 the runner's message starts with the program, as salobj's do
	return fmt.Errorf("Run %s: %w (%s is not set, so only the SDK's built-in Example and Script components are known: set it to a ts_xml checkout)", spec.Name, err, salxml.EnvDir)
}

// runDefinitions are the definitions the bus options name, else the
// environment's; an error names TS_XML_DIR.
func runDefinitions(opts []Option) (*Definitions, error) {
	s := &settings{}
	for _, o := range opts {
		o.apply(s)
	}
	if s.cfg.Definitions != nil {
		return s.cfg.Definitions, nil
	}
	d, err := salxml.FromEnv()
	if err != nil {
		return nil, fmt.Errorf("%w (the definitions come from %s=%s)", err, salxml.EnvDir, os.Getenv(salxml.EnvDir))
	}
	return d, nil
}

// cscParser is salobj's make_from_cmd_line parser, arguments in its order.
// Without the component's definition (comp nil: no ts_xml), it has an
// index when RunSpec.Indexed says so, so that --help, --version and usage
// errors need no definitions.
func cscParser(spec RunSpec, comp *salxml.Component) (*argparse.Parser, *Flags) {
	p := argparse.New("Run "+spec.Name, "")
	if comp == nil {
		if spec.Indexed {
			p.Int("index", argparse.Help("SAL index."))
		}
	} else if comp.Indexed {
		if len(comp.IndexNames) > 0 {
			var values []int
			var names []string
			for _, e := range comp.IndexNames {
				values = append(values, int(e.Value))
				names = append(names, strconv.FormatInt(e.Value, 10)+": "+strings.ToLower(e.Name))
			}
			p.Int("index", argparse.Choices(values...), argparse.Help("SAL index, one of: "+strings.Join(names, ", ")))
		} else {
			p.Int("index", argparse.Help("SAL index."))
		}
	}
	p.Int("--loglevel", argparse.Help("log level: error=40, warning=30, info=20, debug=10"))
	if spec.StateFlag {
		p.String("--state", argparse.Choices("offline", "standby", "disabled", "enabled"), argparse.Dest("initial_state"), argparse.Help("initial state"))
	}
	modes := spec.ValidSimulationModes
	if len(modes) > 1 {
		def := int(modes[0])
		for _, m := range modes {
			if m == 0 {
				def = 0
			}
		}
		switch {
		case def == 0 && len(modes) == 2:
			other := int(modes[0])
			if other == 0 {
				other = int(modes[1])
			}
			help := spec.SimulationHelp
			if help == "" {
				help = "Run in simulation mode?"
			}
			p.Const("--simulate", other, argparse.Default(0), argparse.Help(help))
		default:
			help := spec.SimulationHelp
			if help == "" {
				help = "Simulation mode"
			}
			choices := make([]int, len(modes))
			for i, m := range modes {
				choices[i] = int(m)
			}
			p.Int("--simulate", argparse.Choices(choices...), argparse.Default(def), argparse.Help(help))
		}
	}
	p.Version("--version", spec.Version)
	if spec.Configurable {
		p.String("--configdir", argparse.Help("directory containing configuration files (only specify if you are sure the default will not suffice)"))
		if spec.StateFlag {
			p.String("--override", argparse.Default(""), argparse.Help("override to apply if --state is disabled or enabled (ignored otherwise)"))
		}
	}
	p.Flag("--embedded", argparse.Help("run on a private in-process Kafka broker and schema registry that no other process can reach (for demos and tests); without it "+EnvBroker+" must name a broker"))
	f := &Flags{p: p}
	if spec.Flags != nil {
		spec.Flags(f)
	}
	return p, f
}
