package controller

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/lsst-sal/salgo/topics"
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

// String returns the Python repr the reference puts in its failure texts,
// e.g. "<State.STANDBY: 5>".
func (s State) String() string {
	if n, ok := stateNames[s]; ok {
		return "<State." + n + ": " + strconv.Itoa(int(s)) + ">"
	}
	return "<State: " + strconv.Itoa(int(s)) + ">"
}

// Name returns "STANDBY" etc.
func (s State) Name() string { return stateNames[s] }

// HeartbeatInterval is how often a CSC writes its heartbeat.
const HeartbeatInterval = time.Second

// Hooks let a CSC act on its transitions; every one is optional. A Begin
// hook that fails leaves the state unchanged and fails the command; an End
// hook that fails reverts the state.
type Hooks struct {
	BeginStart, EndStart             func(ctx context.Context, cmd *Command) error
	BeginEnable, EndEnable           func(ctx context.Context, cmd *Command) error
	BeginDisable, EndDisable         func(ctx context.Context, cmd *Command) error
	BeginStandby, EndStandby         func(ctx context.Context, cmd *Command) error
	BeginExitControl, EndExitControl func(ctx context.Context, cmd *Command) error
	// Configure runs during start with the configurationOverride text.
	Configure func(ctx context.Context, override string) error
	// SummaryState runs after every state change.
	SummaryState func(ctx context.Context, s State) error
}

// CSCConfig configures a CSC; the zero CSCConfig is the reference's
// BaseCsc (initial state STANDBY, simulation mode 0, no duplicate check).
// Applications set it through package sal's options (sal.WithInitialState,
// sal.WithVersion, ...).
type CSCConfig struct {
	// Controller configures the CSC's controller.
	Controller Config
	// InitialState is the state the CSC starts in (default STANDBY).
	InitialState State
	// Version is the cscVersion of softwareVersions (default "unknown").
	Version string
	// SimulationMode is the simulation mode reported (default 0).
	SimulationMode int32
	// CheckDuplicate makes Start fail when another instance's heartbeat
	// is seen.
	CheckDuplicate bool
	// EnabledCommands names commands that fail, with the reference's
	// text, unless the CSC is ENABLED.
	EnabledCommands []string
	// Hooks act on the transitions.
	Hooks Hooks
}

// ErrDuplicate is returned by Start when another instance is running.
var ErrDuplicate = errors.New("controller: another instance of this CSC is running")

// CSC is a Controller with the summary state machine of ts_salobj's
// BaseCsc: start, enable, disable, standby and exitControl (and fault),
// the heartbeat, and the summaryState, errorCode, simulationMode,
// softwareVersions, logLevel and logMessage events. Its generic commands
// are its own: code acts on them through Hooks, not handlers.
type CSC struct {
	c   *Controller
	cfg CSCConfig

	// trMu serialises the state-changing commands: each runs, from the
	// check of the current state to the report of the new one, alone.
	trMu    sync.Mutex
	stateMu sync.Mutex
	state   State

	logger   *slog.Logger
	level    *slog.LevelVar
	done     chan struct{}
	doneOnce sync.Once
	hbStop   chan struct{}
	hbOnce   sync.Once
	hbWG     sync.WaitGroup
}

// genericCommands are the commands a CSC handles itself.
var genericCommands = []string{"start", "enable", "disable", "standby", "exitControl", "setLogLevel"}

// NewCSC makes a CSC of the named component; add handlers for its own
// commands with Handle (the generic ones are the CSC's), then Start.
func NewCSC(d *topics.Domain, name string, index int, cfg CSCConfig) (*CSC, error) {
	if cfg.InitialState == 0 {
		cfg.InitialState = Standby
	}
	if cfg.Version == "" {
		cfg.Version = "unknown"
	}
	switch cfg.InitialState {
	case Standby, Disabled, Enabled, Fault, Offline:
	default:
		return nil, fmt.Errorf("controller: invalid initial state %d", cfg.InitialState)
	}
	c, err := New(d, name, index, cfg.Controller)
	if err != nil {
		return nil, err
	}
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
	s := &CSC{c: c, cfg: cfg, state: cfg.InitialState, level: new(slog.LevelVar), done: make(chan struct{}), hbStop: make(chan struct{})}
	s.logger = slog.New(newLogHandler(s, d.Logger().Handler()))
	type tr struct {
		name       string
		from       []State
		to         State
		begin, end func(context.Context, *Command) error
	}
	h := cfg.Hooks
	for _, t := range []tr{
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
	if c.comp.Command("setLogLevel") != nil {
		_ = c.HandleFunc("setLogLevel", s.setLogLevel)
	}
	return s, nil
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
		return fmt.Errorf("controller: %s is a command of the CSC's state machine, not for a handler: act on it with Hooks (e.g. BeginStart, EndStart, Configure, SummaryState)", name)
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

// State returns the summary state.
func (s *CSC) State() State {
	s.stateMu.Lock()
	defer s.stateMu.Unlock()
	return s.state
}

// RequireEnabled returns nil in ENABLED, else the error BaseCsc's
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
		return fmt.Errorf("%s in Fault state: errorCode=%d, errorReport=%s", what, code, pyRepr(report))
	}
	return fmt.Errorf("%s in state=%s", what, st)
}

// Logger returns a logger whose records are also written as logMessage
// events (at the level set by setLogLevel, INFO by default).
func (s *CSC) Logger() *slog.Logger { return s.logger }

// Done is closed when the CSC has gone OFFLINE through exitControl.
func (s *CSC) Done() <-chan struct{} { return s.done }

// Start starts the controller, then (as the reference) writes logLevel,
// checks for a duplicate, starts the heartbeat and writes simulationMode,
// softwareVersions, summaryState and errorCode.
func (s *CSC) Start(ctx context.Context) error {
	if s.cfg.CheckDuplicate {
		if err := s.checkDuplicate(ctx); err != nil {
			return err
		}
	}
	if err := s.c.Start(ctx); err != nil {
		return err
	}
	s.writeEvent(ctx, "logLevel", map[string]any{"level": int32(20), "subsystem": ""}, true)
	s.hbWG.Add(1)
	go s.heartbeat()
	s.writeEvent(ctx, "simulationMode", map[string]any{"mode": s.cfg.SimulationMode}, true)
	s.writeEvent(ctx, "softwareVersions", map[string]any{"salVersion": "", "xmlVersion": s.c.in.Domain().Definitions().Version(), "cscVersion": s.cfg.Version, "subsystemVersions": ""}, true)
	if s.c.event("configurationsAvailable") != nil {
		s.writeEvent(ctx, "configurationsAvailable", map[string]any{"overrides": "", "version": "", "url": "", "schemaVersion": ""}, false)
	}
	return s.reportState(ctx, true)
}

func (s *CSC) heartbeat() {
	defer s.hbWG.Done()
	w := s.c.event("heartbeat")
	t := time.NewTicker(HeartbeatInterval)
	defer t.Stop()
	for {
		if w != nil {
			ctx, cancel := context.WithTimeout(s.c.ctx, 5*time.Second)
			if _, err := w.Write(ctx, map[string]any{"heartbeat": false}); err != nil && s.c.ctx.Err() == nil {
				s.c.log.Warn("controller: heartbeat not written", "csc", s.Name(), "err", err)
			}
			cancel()
		}
		select {
		case <-t.C:
		case <-s.hbStop:
			return
		}
	}
}

func (s *CSC) writeEvent(ctx context.Context, name string, fields map[string]any, force bool) {
	w := s.c.event(name)
	if w == nil {
		return
	}
	if _, err := w.SetWrite(ctx, fields, force); err != nil {
		s.c.log.Warn("controller: event not written", "csc", s.Name(), "event", name, "err", err)
	}
}

func (s *CSC) reportState(ctx context.Context, force bool) error {
	st := s.State()
	if s.cfg.Hooks.SummaryState != nil {
		if err := s.cfg.Hooks.SummaryState(ctx, st); err != nil {
			s.c.log.Warn("controller: SummaryState hook failed", "csc", s.Name(), "err", err)
		}
	}
	w := s.c.event("summaryState")
	if w == nil {
		return nil
	}
	if _, err := w.SetWrite(ctx, map[string]any{"summaryState": int32(st)}, force); err != nil {
		return fmt.Errorf("controller: write summaryState: %w", err)
	}
	if st != Fault {
		s.writeEvent(ctx, "errorCode", map[string]any{"errorCode": int32(0), "errorReport": "", "traceback": ""}, false)
	}
	return nil
}

func (s *CSC) transition(ctx context.Context, cmd *Command, from []State, to State, begin, end func(context.Context, *Command) error) error {
	s.trMu.Lock()
	defer s.trMu.Unlock()
	s.stateMu.Lock()
	cur := s.state
	s.stateMu.Unlock()
	allowed := false
	for _, f := range from {
		allowed = allowed || f == cur
	}
	if !allowed {
		return fmt.Errorf("%s not allowed in state %s", cmd.Name, cur)
	}
	if begin != nil {
		if err := begin(ctx, cmd); err != nil {
			return err
		}
	}
	if cmd.Name == "start" {
		override, _ := cmd.Data["configurationOverride"].(string)
		if s.cfg.Hooks.Configure != nil {
			if err := s.cfg.Hooks.Configure(ctx, override); err != nil {
				return err
			}
		}
		if s.c.event("configurationApplied") != nil {
			s.writeEvent(ctx, "configurationApplied", map[string]any{"configurations": override, "version": "", "url": "", "schemaVersion": "", "otherInfo": ""}, true)
		}
	}
	s.stateMu.Lock()
	s.state = to
	s.stateMu.Unlock()
	if end != nil {
		if err := end(ctx, cmd); err != nil {
			s.stateMu.Lock()
			s.state = cur
			s.stateMu.Unlock()
			return err
		}
	}
	if err := s.reportState(ctx, false); err != nil {
		return err
	}
	if to == Offline {
		// Done closes once the final ack is out (written or failed), so
		// that a program exiting on Done does not cut it off.
		cmd.acked = func() { s.doneOnce.Do(func() { close(s.done) }) }
	}
	return nil
}

// Fault puts the CSC in FAULT and writes errorCode (always) and summaryState.
func (s *CSC) Fault(ctx context.Context, code int32, report, traceback string) error {
	s.stateMu.Lock()
	s.state = Fault
	s.stateMu.Unlock()
	s.writeEvent(ctx, "errorCode", map[string]any{"errorCode": code, "errorReport": report, "traceback": traceback}, true)
	return s.reportState(ctx, false)
}

func (s *CSC) setLogLevel(ctx context.Context, cmd *Command) error {
	level, _ := cmd.Data["level"].(int32)
	sub, _ := cmd.Data["subsystem"].(string)
	if sub == "" {
		s.level.Set(pyToSlog(level))
	}
	s.writeEvent(ctx, "logLevel", map[string]any{"level": level, "subsystem": sub}, true)
	return nil
}

// Close stops the heartbeat, aborts running commands and closes the
// controller. It is safe to call twice and concurrently; every call
// returns once the CSC is closed.
func (s *CSC) Close() {
	s.hbOnce.Do(func() { close(s.hbStop) })
	s.c.Close()
	s.hbWG.Wait()
}

func (s *CSC) checkDuplicate(ctx context.Context) error {
	in, err := s.c.in.Domain().NewInstance(s.c.comp, s.c.index, "")
	if err != nil {
		return err
	}
	defer in.Close()
	hb := s.c.comp.Event("heartbeat")
	if hb == nil {
		return nil
	}
	r, err := in.Reader(hb, topics.ReaderOptions{})
	if err != nil {
		return err
	}
	if err := in.Start(ctx); err != nil {
		return err
	}
	wctx, cancel := context.WithTimeout(ctx, 3*HeartbeatInterval)
	defer cancel()
	rec, err := r.Next(wctx)
	if err != nil {
		if errors.Is(err, context.DeadlineExceeded) && ctx.Err() == nil {
			return nil
		}
		return err
	}
	return fmt.Errorf("%w: %s heartbeat seen from process %v (%v)", ErrDuplicate, s.Name(), rec["private_origin"], rec["private_identity"])
}

// Python logging levels as written in logLevel and logMessage.
func slogToPy(l slog.Level) int32 {
	switch {
	case l >= slog.LevelError:
		return 40
	case l >= slog.LevelWarn:
		return 30
	case l >= slog.LevelInfo:
		return 20
	}
	return 10
}

func pyToSlog(l int32) slog.Level {
	switch {
	case l >= 40:
		return slog.LevelError
	case l >= 30:
		return slog.LevelWarn
	case l >= 20:
		return slog.LevelInfo
	}
	return slog.LevelDebug
}

// pyRepr renders s as Python's repr does for the texts of the reference:
// single quotes unless s holds a single quote and no double quote, with
// backslash, the quote, tab, newline and carriage return escaped and
// other control characters as \xhh.
func pyRepr(s string) string {
	q := byte('\'')
	if strings.ContainsRune(s, '\'') && !strings.ContainsRune(s, '"') {
		q = '"'
	}
	var b strings.Builder
	b.WriteByte(q)
	for _, r := range s {
		switch {
		case r == '\\':
			b.WriteString(`\\`)
		case r == rune(q):
			b.WriteString(`\'`)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\x%02x`, r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte(q)
	return b.String()
}
