package controller

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/lsst-sal/salgo/internal/plumb"
	"github.com/lsst-sal/salgo/internal/pyrepr"
	"github.com/lsst-sal/salgo/topics"
	"github.com/lsst-sal/salgo/validate"
	salxml "github.com/lsst-sal/salgo/xml"
)

// State is a CSC summary state, with the reference's values.
type State int32

// The summary states.
const (
	Disabled State = 1
	Enabled  State = 2
	Fault    State = 3
	Offline  State = 4
	Standby  State = 5
)

var stateNames = map[State]string{Disabled: "DISABLED", Enabled: "ENABLED", Fault: "FAULT", Offline: "OFFLINE", Standby: "STANDBY"}

// String returns the state's name ("ENABLED"), or "State(N)" for a value
// that is none; PyRepr gives the Python repr that salobj's texts quote.
func (s State) String() string {
	if n, ok := stateNames[s]; ok {
		return n
	}
	return "State(" + strconv.Itoa(int(s)) + ")"
}

// PyRepr returns the Python repr of the state, "<State.ENABLED: 2>", as
// the texts salobj writes on the bus quote it.
func (s State) PyRepr() string {
	if n, ok := stateNames[s]; ok {
		return "<State." + n + ": " + strconv.Itoa(int(s)) + ">"
	}
	return "<State: " + strconv.Itoa(int(s)) + ">"
}

// Name returns "STANDBY" etc.
func (s State) Name() string { return stateNames[s] }

// ParseState returns the state of a name, in any case ("enabled").
func ParseState(name string) (State, bool) {
	for s, n := range stateNames {
		if strings.EqualFold(n, name) {
			return s, true
		}
	}
	return 0, false
}

// HeartbeatInterval is how often a CSC writes its heartbeat by default.
const HeartbeatInterval = time.Second

// Hooks let a CSC act on its transitions; every one is optional. A Begin
// hook that fails leaves the state unchanged and fails the command; an End
// hook that fails fails the command and the state goes back (the reference
// keeps the new state when the error is an ExpectedError, while its
// summaryState says the old one; the SDK does not copy that quirk).
type Hooks struct {
	BeginStart, EndStart             func(ctx context.Context, cmd *Command) error
	BeginEnable, EndEnable           func(ctx context.Context, cmd *Command) error
	BeginDisable, EndDisable         func(ctx context.Context, cmd *Command) error
	BeginStandby, EndStandby         func(ctx context.Context, cmd *Command) error
	BeginExitControl, EndExitControl func(ctx context.Context, cmd *Command) error
	// SummaryState runs when the state has changed, before summaryState
	// is written (after, in Fault), as the reference's
	// handle_summary_state: start loops and connect in DISABLED or
	// ENABLED, stop and disconnect in the other states. At Start it runs
	// with the initial state. An error fails the command that caused it
	// (the state goes back and nothing is written), or Start.
	SummaryState func(ctx context.Context, s State) error
	// SimulationMode runs once in Start, before simulationMode is written
	// (the reference's implement_simulation_mode); an error fails Start.
	SimulationMode func(ctx context.Context, mode int32) error
	// Close runs once when the CSC closes, whatever closes it: exitControl,
	// a termination signal under sal.RunCSC (Shutdown), Close, or the
	// close of its bus; as the reference's close_tasks. Release here what
	// the other hooks acquired (hardware connected in DISABLED or
	// ENABLED) and stop the loops the CSC's own code started. By then
	// running commands are aborted and the heartbeat has stopped, but the
	// topics are open: it may still write. Its context ends after
	// cscConfig.CloseTimeout; an error is logged ("Controller.close_tasks
	// failed; close continues", as the reference) and the close goes on.
	Close func(ctx context.Context) error
}

// DefaultCloseTimeout bounds the Close hook unless cscConfig.CloseTimeout
// sets another bound.
const DefaultCloseTimeout = 10 * time.Second

// Configurable makes a CSC configurable as ts_salobj's ConfigurableCsc: its
// configuration comes from a ts_config_* package, read, merged and
// validated at each start command, and handed to Configure.
type Configurable struct {
	// Schema is the configuration's JSON Schema (Draft 7), as YAML text;
	// its title ends with the schema version ("Test v2").
	Schema []byte
	// ConfigPkg is the configuration package, e.g. "ts_config_ocs": the
	// folder is $TS_CONFIG_OCS_DIR/<component>/<schema version>.
	ConfigPkg string
	// ConfigDir, if set, is the folder to use instead (--configdir).
	ConfigDir string
	// OtherInfo is configurationApplied.otherInfo: the events, without
	// "logevent_", that carry the detailed configuration.
	OtherInfo string
	// LookupEnv reads LSST_SITE and <PKG>_DIR (nil: os.LookupEnv), so
	// that tests need not set the process's environment.
	LookupEnv func(key string) (string, bool)
	// Configure gets each validated configuration, in the start command
	// (the state still STANDBY). An error fails start; an ExpectedError is
	// logged without details.
	Configure func(ctx context.Context, cfg *Configuration) error
}

// cscConfig holds a CSC's settings; the zero cscConfig is the
// reference's BaseCsc (initial state STANDBY, simulation mode 0, no
// duplicate check). Options change it.
type cscConfig struct {
	// Controller configures the CSC's controller.
	Controller config
	// InitialState is the state the CSC goes to in Start (default
	// STANDBY), through the transition commands as the reference does.
	InitialState State
	// Override is the start command's configurationOverride when Start
	// goes through DISABLED to reach InitialState (--override).
	Override string
	// Version is the cscVersion of softwareVersions (default "unknown").
	Version string
	// SubsystemVersions is softwareVersions.subsystemVersions
	// ("name=version" pairs joined by commas; default "").
	SubsystemVersions string
	// SimulationMode is the simulation mode (default 0); it must be one of
	// ValidSimulationModes.
	SimulationMode int32
	// ValidSimulationModes are the modes the CSC supports (default [0]).
	ValidSimulationModes []int32
	// CheckDuplicate makes Start fail when another instance's heartbeat
	// is seen (the runner turns it on).
	CheckDuplicate bool
	// EnabledCommands names commands that fail, with the reference's
	// text, unless the CSC is ENABLED.
	EnabledCommands []string
	// HeartbeatInterval is the heartbeat period (default 1 s).
	HeartbeatInterval time.Duration
	// CloseTimeout bounds the Close hook, and Close's wait for a Start
	// still under way (default DefaultCloseTimeout, 10 s).
	CloseTimeout time.Duration
	// Hooks act on the transitions.
	Hooks Hooks
	// Configurable, if set, makes the CSC configurable.
	Configurable *Configurable
}

// ErrDuplicate is matched by the error of Start when another instance is running.
var ErrDuplicate = errors.New("controller: another instance of this CSC is running")

// CSC is a Controller with the summary state machine of ts_salobj's
// BaseCsc: start, enable, disable, standby and exitControl (and fault),
// the heartbeat, and the summaryState, errorCode, simulationMode,
// softwareVersions, logLevel and logMessage events. Its generic commands
// are its own: code acts on them through Hooks, not handlers.
type CSC struct {
	c    *Controller
	cfg  cscConfig
	conf *configurator // nil unless configurable

	// tr serialises the state-changing commands: each runs, from the
	// check of the current state to the report of the new one, alone
	// (a channel of one, so that Shutdown can give up waiting for it).
	tr       chan struct{}
	stateMu  sync.Mutex
	state    State
	faulting atomic.Bool
	reported atomic.Bool // a summaryState of this CSC was written (or attempted)
	// wroteOffline: the last summaryState written is OFFLINE (an
	// aborted write leaves the state OFFLINE but the bus behind).
	wroteOffline atomic.Bool

	end ending

	// The life cycle: Start once, then one close (Close, Shutdown,
	// exitControl, the bus's Close, a failed Start).
	lifeMu      sync.Mutex
	startCalled bool
	startCancel context.CancelFunc // ends the Start under way
	startDone   chan struct{}      // closed when Start returns; nil before
	closing     bool               // a close has begun
	unreg       func()             // leaves the Domain's list of what its Close closes

	hbMu   sync.Mutex
	hbStop chan struct{} // nil while no heartbeat runs
	bg     sync.WaitGroup

	loops []*loop // Loop; fixed once Start is called
}

// genericCommands are the commands a CSC handles itself.
var genericCommands = []string{"start", "enable", "disable", "standby", "exitControl", "setLogLevel"}

// NewCSC makes a CSC of the named component; add handlers for its own
// commands with Handle (the generic ones are the CSC's), then Start. It
// checks, in the reference's order and with its texts, the configuration
// (LSST_SITE, the schema, the folder), the initial state and the
// simulation mode.
func NewCSC(d *topics.Domain, name string, index int, opts ...CSCOption) (*CSC, error) {
	var cfg cscConfig
	for _, o := range opts {
		o.applyCSC(&cfg)
	}
	comp, err := d.Component(name)
	if err != nil {
		return nil, err
	}
	var conf *configurator
	if cfg.Configurable != nil {
		if conf, err = newConfigurator(comp.Name, cfg.Configurable); err != nil {
			return nil, err
		}
	}
	switch cfg.InitialState {
	case 0:
		cfg.InitialState = Standby
	case Fault:
		return nil, errors.New("controller: initial_state cannot be FAULT")
	case Standby, Disabled, Enabled, Offline:
	default:
		return nil, fmt.Errorf("controller: %d is not a valid State", cfg.InitialState)
	}
	if cfg.Version == "" {
		cfg.Version = "unknown"
	}
	if len(cfg.ValidSimulationModes) == 0 {
		cfg.ValidSimulationModes = []int32{0}
	}
	if !slices.Contains(cfg.ValidSimulationModes, cfg.SimulationMode) {
		return nil, fmt.Errorf("controller: simulation_mode=%d not in valid_simulation_modes=%s", cfg.SimulationMode, pyList(cfg.ValidSimulationModes))
	}
	if cfg.HeartbeatInterval <= 0 {
		cfg.HeartbeatInterval = HeartbeatInterval
	}
	c, err := newController(d, name, index, cfg.Controller)
	if err != nil {
		return nil, err
	}
	d.SetDefaultIdentity(c.Identity()) // as ts_salobj: the CSC's own Remotes command as the CSC
	for _, n := range []string{"start", "enable", "disable", "standby", "exitControl"} {
		if c.comp.Command(n) == nil {
			c.Close()
			return nil, fmt.Errorf("controller: %s is not a CSC: it has no %s command", name, n)
		}
	}
	for i, n := range cfg.EnabledCommands {
		t, err := c.comp.Lookup(salxml.Command, n)
		if err != nil {
			c.Close()
			return nil, fmt.Errorf("controller: commands that need ENABLED: %w", err)
		}
		cfg.EnabledCommands[i] = t.Name()
	}
	if cfg.CloseTimeout <= 0 {
		cfg.CloseTimeout = DefaultCloseTimeout
	}
	// The internal state starts at the default; Start goes on from there.
	s := &CSC{c: c, cfg: cfg, conf: conf, state: Standby, end: newEnding(), tr: make(chan struct{}, 1)}
	if s.unreg, err = onClose(d, plumb.RankRunner, s.Close); err != nil {
		c.Close()
		return nil, err
	}
	h := cfg.Hooks
	for _, t := range []struct {
		name       string
		from       []State
		to         State
		begin, end func(context.Context, *Command) error
	}{
		{"start", []State{Standby}, Disabled, h.BeginStart, h.EndStart},
		{"enable", []State{Disabled}, Enabled, h.BeginEnable, h.EndEnable},
		{"disable", []State{Enabled}, Disabled, h.BeginDisable, h.EndDisable},
		{"standby", []State{Disabled, Fault}, Standby, h.BeginStandby, h.EndStandby},
		{"exitControl", []State{Standby}, Offline, h.BeginExitControl, h.EndExitControl},
	} {
		_ = c.HandleFunc(t.name, func(ctx context.Context, cmd *Command) error {
			return s.transition(ctx, cmd, t.from, t.to, t.begin, t.end)
		})
	}
	// The reference's bare sets at construction: nothing is written yet.
	s.set("simulationMode", map[string]any{"mode": cfg.SimulationMode})
	s.set("softwareVersions", map[string]any{"salVersion": "", "xmlVersion": d.Definitions().Version(), "cscVersion": cfg.Version, "subsystemVersions": cfg.SubsystemVersions})
	if conf != nil {
		for _, ev := range []string{"configurationsAvailable", "configurationApplied"} {
			s.set(ev, map[string]any{"schemaVersion": conf.SchemaVersion(), "url": conf.URL()})
		}
		s.set("configurationApplied", map[string]any{"otherInfo": cfg.Configurable.OtherInfo})
	}
	return s, nil
}

// pyList renders modes as Python prints a list: [0, 1].
func pyList(modes []int32) string {
	parts := make([]string, len(modes))
	for i, m := range modes {
		parts[i] = strconv.Itoa(int(m))
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

// Handle sets the handler of one of the CSC's own commands (bare, SAL or
// attribute name). Commands named in EnabledCommands are refused, with
// BaseCsc's assert_enabled text (RequireEnabled("")), unless the CSC is
// ENABLED. The generic commands (start, enable, disable, standby,
// exitControl, setLogLevel) are the CSC's: a handler for one is an error;
// act on them with Hooks.
func (s *CSC) Handle(name string, h Handler) error {
	t, err := s.c.comp.Lookup(salxml.Command, name)
	if err != nil {
		return fmt.Errorf("controller: handler: %w", err)
	}
	name = t.Name()
	if slices.Contains(genericCommands, name) {
		return fmt.Errorf("controller: %s is a command of the CSC's state machine, not for a handler: act on it with Hooks (e.g. BeginStart, EndStart, SummaryState) or Configurable", name)
	}
	if h != nil && slices.Contains(s.cfg.EnabledCommands, name) {
		inner := h
		h = HandlerFunc(func(ctx context.Context, cmd *Command) error {
			if err := s.RequireEnabled(""); err != nil {
				return err
			}
			return inner.Handle(ctx, cmd)
		})
	}
	return s.c.Handle(name, h)
}

// HandleFunc sets a function as the handler of one of the CSC's commands.
func (s *CSC) HandleFunc(name string, f func(ctx context.Context, cmd *Command) error) error {
	if f == nil {
		return s.Handle(name, nil)
	}
	return s.Handle(name, HandlerFunc(f))
}

// Name returns "Component" or "Component:index".
func (s *CSC) Name() string { return s.c.Name() }

// Component returns the component definition.
func (s *CSC) Component() *salxml.Component { return s.c.comp }

// Index returns the SAL index.
func (s *CSC) Index() int { return s.c.index }

// Identity returns the private_identity written ("Name[:index]").
func (s *CSC) Identity() string { return s.c.Identity() }

// Event returns the writer of an event (see Controller.Event).
func (s *CSC) Event(name string) (*topics.Writer, error) { return s.c.Event(name) }

// MustEvent is Event for names known to be right: it panics with Event's error.
func (s *CSC) MustEvent(name string) *topics.Writer { return s.c.MustEvent(name) }

// Telemetry returns the writer of a telemetry topic (see Controller.Telemetry).
func (s *CSC) Telemetry(name string) (*topics.Writer, error) { return s.c.Telemetry(name) }

// MustTelemetry is Telemetry for names known to be right: it panics with
// Telemetry's error.
func (s *CSC) MustTelemetry(name string) *topics.Writer { return s.c.MustTelemetry(name) }

// Stats returns the command counters.
func (s *CSC) Stats() Stats { return s.c.Stats() }

// Logger returns the CSC's logger (see Controller.Logger).
func (s *CSC) Logger() *slog.Logger { return s.c.Logger() }

// SetLogLevel sets the level of the records written as logMessage (see
// Controller.SetLogLevel).
func (s *CSC) SetLogLevel(l slog.Level) { s.c.SetLogLevel(l) }

// State returns the summary state.
func (s *CSC) State() State {
	s.stateMu.Lock()
	defer s.stateMu.Unlock()
	return s.state
}

// SimulationMode returns the simulation mode.
func (s *CSC) SimulationMode() int32 { return s.cfg.SimulationMode }

// DisabledOrEnabled reports whether the CSC is DISABLED or ENABLED.
func (s *CSC) DisabledOrEnabled() bool {
	st := s.State()
	return st == Disabled || st == Enabled
}

// Done is closed when the CSC has ended and closed: after exitControl
// (once its ack is written), a failed Start, Close, Shutdown, or the close
// of its bus; the Close hook has run by then. Err says why.
func (s *CSC) Done() <-chan struct{} { return s.end.Done() }

// Err returns, once Done is closed, nil if the CSC went OFFLINE through
// exitControl or was closed, or the error that ended its Start.
func (s *CSC) Err() error { return s.end.Err() }

func (s *CSC) finish(err error) { s.end.finish(err) }

// ending is the end of a CSC or Script: Done closes once, with Err's error.
type ending struct {
	once sync.Once
	done chan struct{}
	err  error // set before done closes
}

func newEnding() ending { return ending{done: make(chan struct{})} }

func (e *ending) Done() <-chan struct{} { return e.done }

func (e *ending) Err() error {
	select {
	case <-e.done:
		return e.err
	default:
		return nil
	}
}

func (e *ending) finish(err error) {
	e.once.Do(func() {
		e.err = err
		close(e.done)
	})
}

// RequireEnabled returns nil in ENABLED, else the ExpectedError BaseCsc's
// assert_enabled raises: "<action> not allowed in state=<State.X: n>"
// ("Not allowed ..." for an empty action), or in FAULT "<action> not
// allowed in Fault state: errorCode=N, errorReport='...'" with the last
// errorCode written.
func (s *CSC) RequireEnabled(action string) error {
	st := s.State()
	if st == Enabled {
		return nil
	}
	what := "Not allowed"
	if action != "" {
		what = action + " not allowed"
	}
	if st == Fault {
		var code int32
		var report string
		if w := s.c.event("errorCode"); w != nil {
			data := w.Data()
			code, _ = data["errorCode"].(int32)
			report, _ = data["errorReport"].(string)
		}
		return Expectedf("%s in Fault state: errorCode=%d, errorReport=%s", what, code, pyrepr.String(report))
	}
	return Expectedf("%s in state=%s", what, st.PyRepr())
}

// Start starts the CSC as the reference's BaseCsc does, in its order: the
// topics (the handlers are attached already) and logLevel; the duplicate
// check, if asked; the heartbeat (the first at once); the SimulationMode
// hook and simulationMode; softwareVersions; the SummaryState hook with
// the default state; summaryState and errorCode (and, configurable,
// configurationsAvailable); then the transition commands to the initial
// state, each run as a received command is (the same handler, hooks and
// context, the CSC's own; a failure is logged and the CSC stays where it
// got). An initial state of OFFLINE runs exitControl, so the CSC closes
// at once, as the reference's does.
//
// ctx bounds the start up to the transitions. A failure there is logged
// ("start failed: ...") and ends the CSC: Start returns it, the CSC
// closes, Done closes and Err returns it. A close (Close, Shutdown, the
// bus's) while Start is under way cancels it: Start logs "start
// canceled" and returns an error matching topics.ErrClosed. A second
// Start is an error that leaves the CSC alone.
func (s *CSC) Start(ctx context.Context) error {
	s.lifeMu.Lock()
	if s.closing {
		s.lifeMu.Unlock()
		return fmt.Errorf("controller: start %s: %w", s.Name(), topics.ErrClosed)
	}
	if s.startCalled {
		s.lifeMu.Unlock()
		return fmt.Errorf("controller: start %s: %w", s.Name(), ErrStarted)
	}
	s.startCalled = true
	ctx, cancel := context.WithCancel(ctx)
	s.startCancel = cancel
	done := make(chan struct{})
	s.startDone = done
	s.lifeMu.Unlock()
	defer close(done)
	defer cancel()
	if err := s.start(ctx); err != nil {
		if s.isClosing() {
			s.c.logger.Warn("start canceled")
			return fmt.Errorf("controller: start %s: %w", s.Name(), topics.ErrClosed)
		}
		if isExpected(err) {
			s.c.logger.Error("start failed: " + err.Error())
		} else {
			s.c.logger.Error("start failed: "+err.Error(), slog.String(tracebackAttr, errorDetail(err)))
		}
		s.close(err, nil, true)
		return err
	}
	if !s.startupTransitions() {
		s.c.logger.Warn("start canceled")
		return fmt.Errorf("controller: start %s: %w", s.Name(), topics.ErrClosed)
	}
	return nil
}

// ErrStarted is matched by the error of a second Start.
var ErrStarted = errors.New("controller: Start called twice")

func (s *CSC) isClosing() bool {
	s.lifeMu.Lock()
	defer s.lifeMu.Unlock()
	return s.closing
}

func (s *CSC) start(ctx context.Context) error {
	if err := s.c.Start(ctx); err != nil {
		return err
	}
	if s.cfg.CheckDuplicate {
		if err := s.checkDuplicate(ctx); err != nil {
			return err
		}
	}
	s.startHeartbeat()
	if hook := s.cfg.Hooks.SimulationMode; hook != nil {
		if err := hook(ctx, s.cfg.SimulationMode); err != nil {
			return err
		}
	}
	if err := s.write(ctx, "simulationMode", nil, true); err != nil {
		return err
	}
	if err := s.write(ctx, "softwareVersions", nil, true); err != nil {
		return err
	}
	if hook := s.cfg.Hooks.SummaryState; hook != nil {
		// The CSC's own context, as every later call of the hook gets:
		// a loop it starts lives until the CSC closes, not until Start
		// returns.
		if err := hook(s.c.ctx, s.State()); err != nil {
			return err
		}
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	return s.report(ctx)
}

// startupTransitions runs the transition commands from the current state
// to the initial state, as the reference does when the initial state is
// not the default (STANDBY): each handler with the command's default data
// (start with the override), logged first, run as a received command is
// run (Controller.runLocal). It reports false if a close cancelled them.
func (s *CSC) startupTransitions() bool {
	if s.cfg.InitialState == Standby {
		return true // the default: nothing runs, even if the state moved since
	}
	cmds, err := TransitionCommands(s.State(), s.cfg.InitialState)
	if err != nil {
		s.c.logger.Error("Failed in start: " + err.Error())
		return true
	}
	for _, name := range cmds {
		if s.c.comp.Command(name) == nil {
			s.c.logger.Error(fmt.Sprintf("Failed in start on state transition command %s; continuing: %s has no such command", name, s.c.comp.Name))
			return true
		}
		s.c.logger.Info(fmt.Sprintf("Executing %s command during startup", name))
		cmd := &Command{Name: name, Data: validate.For(s.c.comp.Command(name)).New(), c: s.c}
		if name == "start" {
			cmd.Data["configurationOverride"] = s.cfg.Override
		}
		if err := s.c.runLocal(s.c.handlers[name], cmd); err != nil {
			if s.isClosing() {
				return false
			}
			s.c.logger.Error(fmt.Sprintf("Failed in start on state transition command %s; continuing.", name), slog.String(tracebackAttr, errorDetail(err)))
			return true
		}
	}
	return true
}

// set updates an event's data without writing it (the reference's bare set).
func (s *CSC) set(name string, fields map[string]any) {
	if w := s.c.event(name); w != nil {
		_, _ = w.Set(fields)
	}
}

// write writes an event with set_write (only if changed, unless force);
// fields nil writes the data set before. A component without the event
// writes nothing.
func (s *CSC) write(ctx context.Context, name string, fields map[string]any, force bool) error {
	w := s.c.event(name)
	if w == nil {
		return nil
	}
	if _, err := w.SetWrite(ctx, fields, force); err != nil {
		return fmt.Errorf("controller: write %s: %w", name, err)
	}
	return nil
}

// report writes the state as the reference's _report_summary_state:
// summaryState (if changed), errorCode 0 unless in FAULT (if changed),
// and, configurable, the folder poller stopped, and started again in
// STANDBY.
func (s *CSC) report(ctx context.Context) error {
	st := s.State()
	// Reported from the attempt on: a write cut short (Start cancelled
	// by a signal) may well be on the bus, and readers may have read it
	// before the producer hears of it.
	s.reported.Store(true)
	if st != Enabled {
		s.syncLoops(ctx, st) // stopped before the state is written
	}
	if err := s.write(ctx, "summaryState", map[string]any{"summaryState": int32(st)}, false); err != nil {
		s.wroteOffline.Store(false) // not known to be on the bus
		return err
	}
	s.wroteOffline.Store(st == Offline)
	if st == Enabled {
		s.syncLoops(ctx, st) // started once the state is written
	}
	if st != Fault {
		if err := s.write(ctx, "errorCode", map[string]any{"errorCode": int32(0), "errorReport": "", "traceback": ""}, false); err != nil {
			return err
		}
	}
	if s.conf != nil {
		s.conf.stopPoll()
		if st == Standby {
			// The first read now, so that configurationsAvailable is
			// written with the state, as the reference's poller does
			// at once; then the poller, every second.
			s.conf.readDir(ctx, s)
			s.conf.startPoll(s)
		}
	}
	return nil
}

func (s *CSC) setState(st State) (old State) {
	s.stateMu.Lock()
	defer s.stateMu.Unlock()
	old, s.state = s.state, st
	return old
}

// transition runs a state command as the reference's _do_change_state:
// the state check, the Begin hook (with configuration for start), the new
// state, the End hook, the SummaryState hook, the report.
func (s *CSC) transition(ctx context.Context, cmd *Command, from []State, to State, begin, end func(context.Context, *Command) error) error {
	if err := s.lockTr(ctx); err != nil {
		return err
	}
	defer s.unlockTr()
	cur := s.State()
	if !slices.Contains(from, cur) {
		return Expectedf("%s not allowed in state %s", cmd.Name, cur.PyRepr())
	}
	if cmd.Name == "start" && s.conf != nil {
		if err := s.configure(ctx, cmd); err != nil {
			s.logHook("begin_start failed; remaining in state "+cur.PyRepr(), err)
			if cur == Standby {
				s.conf.startPoll(s) // the reference leaves it stopped until the next STANDBY
			}
			return err
		}
	}
	if begin != nil {
		if err := begin(ctx, cmd); err != nil {
			s.logHook("begin_"+cmd.Name+" failed; remaining in state "+cur.PyRepr(), err)
			return err
		}
	}
	s.setState(to)
	revert := func(what string, err error) error {
		s.setState(cur)
		s.logHook(what+" failed; reverting to state "+cur.PyRepr(), err)
		return err
	}
	if end != nil {
		if err := end(ctx, cmd); err != nil {
			return revert("end_"+cmd.Name, err)
		}
	}
	if hook := s.cfg.Hooks.SummaryState; hook != nil {
		if err := hook(ctx, to); err != nil {
			return revert("handle_summary_state", err)
		}
	}
	if err := s.report(ctx); err != nil {
		return err
	}
	if to == Offline {
		// The reference closes itself here; the CSC stops its heartbeat
		// and closes once the ack is out, so that a program exiting on
		// Done does not cut the ack off.
		s.stopHeartbeat()
		cmd.acked = func() { go s.close(nil, nil, false) }
	}
	return nil
}

// lockTr takes the transition lock, or gives up when ctx ends.
func (s *CSC) lockTr(ctx context.Context) error {
	select {
	case s.tr <- struct{}{}:
		return nil
	default:
	}
	select {
	case s.tr <- struct{}{}:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (s *CSC) unlockTr() { <-s.tr }

// logHook logs a hook's failure as the reference does: one line with the
// text for an ExpectedError, a line with details otherwise.
func (s *CSC) logHook(what string, err error) {
	if isExpected(err) {
		s.c.logger.Error(what + ": " + err.Error())
		return
	}
	s.c.logger.Error(what, slog.String(tracebackAttr, errorDetail(err)))
}

// Fault puts the CSC in FAULT as the reference's fault does, from any
// state: errorCode written (forced) with code, report and traceback, then
// summaryState FAULT, a CRITICAL log "Fault! errorCode=<code>,
// errorReport=<report>", then the SummaryState hook, whose error Fault
// returns. A Fault while one is being processed (from the hook, say) does
// nothing. It may be called from handlers and hooks.
func (s *CSC) Fault(ctx context.Context, code int32, report, traceback string) error {
	if !s.faulting.CompareAndSwap(false, true) {
		return nil
	}
	defer s.faulting.Store(false)
	s.setState(Fault)
	if err := s.write(ctx, "errorCode", map[string]any{"errorCode": code, "errorReport": capText(report), "traceback": capText(traceback)}, true); err != nil {
		s.c.logger.Error(fmt.Sprintf("Failed to output errorCode: code=%d; report=%s", code, pyrepr.String(report)), slog.String(tracebackAttr, errorDetail(err)))
	}
	if err := s.report(ctx); err != nil {
		s.c.logger.Error("_report_summary_state failed while going to FAULT; some code may not have run.", slog.String(tracebackAttr, errorDetail(err)))
	}
	// Logged after summaryState: the reference logs first, but its
	// logMessage is written by a task that runs after summaryState's write.
	s.c.logger.Log(ctx, LevelCritical, fmt.Sprintf("Fault! errorCode=%d, errorReport=%s", code, pyrepr.String(report)))
	if hook := s.cfg.Hooks.SummaryState; hook != nil {
		return hook(ctx, Fault)
	}
	return nil
}

// SetState sets the summary state from the CSC's own code, as CSCs whose
// state follows a low-level controller do, and writes it as the reference
// reports it (summaryState, errorCode 0 unless FAULT); it does not run the
// hooks. Use Fault to go to FAULT with an error code.
func (s *CSC) SetState(ctx context.Context, st State) error {
	if _, ok := stateNames[st]; !ok {
		return fmt.Errorf("controller: %d is not a valid State", st)
	}
	s.setState(st)
	if st == Offline {
		s.stopHeartbeat()
	}
	return s.report(ctx)
}

func (s *CSC) startHeartbeat() {
	w := s.c.event("heartbeat")
	if w == nil {
		return
	}
	s.hbMu.Lock()
	defer s.hbMu.Unlock()
	if s.hbStop != nil {
		return
	}
	stop := make(chan struct{})
	s.hbStop = stop
	s.bg.Add(1)
	go func() {
		defer s.bg.Done()
		t := time.NewTicker(s.cfg.HeartbeatInterval)
		defer t.Stop()
		for {
			ctx, cancel := context.WithTimeout(s.c.ctx, 5*time.Second)
			if _, err := w.Write(ctx, map[string]any{"heartbeat": false}); err != nil && s.c.ctx.Err() == nil {
				s.c.rl.Log(slog.LevelWarn, "heartbeat", "controller: heartbeat not written", "csc", s.Name(), "err", err)
			}
			cancel()
			select {
			case <-t.C:
			case <-stop:
				return
			}
		}
	}()
}

func (s *CSC) stopHeartbeat() {
	s.hbMu.Lock()
	defer s.hbMu.Unlock()
	if s.hbStop != nil {
		close(s.hbStop)
		s.hbStop = nil
	}
}

// Close closes the CSC as the reference's close does: a Start under way
// is cancelled, running commands are aborted (acked CMD_ABORTED), the
// heartbeat and the configuration poller stop, the Close hook runs, and
// the controller closes; Done closes last. It writes no OFFLINE (as the
// reference: late joiners read the last state written; Shutdown writes
// it). It is safe to call twice and concurrently: every call returns once
// the CSC is closed. It must not be called from a handler or hook, since
// it waits for them: one that wants its CSC gone runs `go csc.Close()`.
func (s *CSC) Close() { s.close(nil, nil, false) }

// Shutdown ends the CSC as a termination signal does under sal.RunCSC:
// as Close, but once the running commands are aborted the CSC goes to
// OFFLINE, unless it is there already or has not yet written a state of
// its own (a signal during the duplicate check): the SummaryState hook
// runs with OFFLINE, then summaryState OFFLINE is written, so that late
// joiners do not read the last state of a CSC that is gone (the reference
// writes nothing then). ctx bounds the hook and the writes. It returns the
// error of going OFFLINE, which is also logged; the close goes on
// regardless. Safe to call with or after Close: a CSC already closing is
// only waited for.
func (s *CSC) Shutdown(ctx context.Context) error {
	var err error
	s.close(nil, func() { err = s.goOffline(ctx) }, false)
	return err
}

// goOffline is Shutdown's OFFLINE: the running commands are aborted.
func (s *CSC) goOffline(ctx context.Context) error {
	if !s.reported.Load() {
		return nil
	}
	if err := s.lockTr(ctx); err != nil {
		s.c.logger.Error("could not go to OFFLINE: a state transition is still running: " + err.Error())
		return err
	}
	defer s.unlockTr()
	if s.wroteOffline.Load() {
		return nil
	}
	if s.setState(Offline) != Offline {
		if hook := s.cfg.Hooks.SummaryState; hook != nil {
			if err := hook(ctx, Offline); err != nil {
				s.logHook("handle_summary_state failed; going to OFFLINE regardless", err)
			}
		}
	}
	// Forced: an exitControl cut short by the abort may have set OFFLINE
	// in the event's data without writing it. The loops stop first, as
	// report stops them before it writes a state.
	s.syncLoops(ctx, Offline)
	if err := s.write(ctx, "summaryState", map[string]any{"summaryState": int32(Offline)}, true); err != nil {
		s.c.logger.Error("could not write summaryState OFFLINE: " + err.Error())
		return err
	}
	s.wroteOffline.Store(true)
	if err := s.report(ctx); err != nil { // errorCode, the configuration poller
		s.c.logger.Error("could not report state OFFLINE: " + err.Error())
		return err
	}
	return nil
}

// close is every close of the CSC. The first call does the work; later
// ones wait for it. err is what Err returns; offline, if set, runs once
// the commands are aborted (Shutdown); fromStart is set when Start calls
// it, which must not wait for itself.
func (s *CSC) close(err error, offline func(), fromStart bool) {
	s.lifeMu.Lock()
	if s.closing {
		s.lifeMu.Unlock()
		<-s.end.Done()
		return
	}
	s.closing = true
	cancel, started := s.startCancel, s.startDone
	s.lifeMu.Unlock()
	if cancel != nil && !fromStart {
		cancel()
	}
	s.c.abort() // running commands, startup transitions included, end
	if started != nil && !fromStart {
		t := time.NewTimer(s.cfg.CloseTimeout)
		select {
		case <-started:
		case <-t.C:
			s.c.logger.Error(fmt.Sprintf("Start still running %s after close began; close continues", s.cfg.CloseTimeout))
		}
		t.Stop()
	}
	if offline != nil {
		offline()
	}
	s.stopHeartbeat()
	if s.conf != nil {
		s.conf.stopPoll()
	}
	s.syncLoops(context.Background(), Offline) // stopped, waited for
	if hook := s.cfg.Hooks.Close; hook != nil {
		ctx, cancel := context.WithTimeout(context.Background(), s.cfg.CloseTimeout)
		if herr := recovered(func() error { return hook(ctx) }); herr != nil {
			s.c.logger.Error("Controller.close_tasks failed; close continues", slog.String(tracebackAttr, detail(herr)))
		}
		cancel()
	}
	s.c.Close()
	s.bg.Wait()
	if s.conf != nil {
		s.conf.wait()
	}
	s.unreg()
	s.finish(err)
}

// checkDuplicate looks for another running instance as the reference
// does: a heartbeat read within three heartbeat intervals (own heartbeat
// not started yet) means one is running.
func (s *CSC) checkDuplicate(ctx context.Context) error {
	who := fmt.Sprintf("%s:%d with origin=%d", s.c.comp.Name, s.c.index, os.Getpid())
	s.c.logger.Info(who + " checking for an already-running instance.")
	hb := s.c.comp.Event("heartbeat")
	if hb == nil {
		return nil
	}
	in, err := s.c.in.Domain().NewInstance(s.c.comp, s.c.index, "")
	if err != nil {
		return err
	}
	defer in.Close()
	r, err := in.Reader(hb, topics.ReaderOptions{})
	if err != nil {
		return err
	}
	if err := in.Start(ctx); err != nil {
		return err
	}
	wctx, cancel := context.WithTimeout(ctx, 3*s.cfg.HeartbeatInterval)
	defer cancel()
	rec, err := r.Next(wctx)
	if err != nil {
		if errors.Is(err, context.DeadlineExceeded) && ctx.Err() == nil {
			return nil
		}
		return err
	}
	return &ExpectedError{Err: duplicateError(fmt.Sprintf("%s quitting: found another instance with origin=%v.", who, rec["private_origin"]))}
}

// duplicateError is the reference's text for a duplicate; it matches
// ErrDuplicate.
type duplicateError string

func (e duplicateError) Error() string        { return string(e) }
func (e duplicateError) Is(target error) bool { return target == ErrDuplicate }
