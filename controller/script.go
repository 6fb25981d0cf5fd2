package controller

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/big"
	"regexp"
	"runtime/debug"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/lsst-sal/salgo/internal/cscconfig"
	"github.com/lsst-sal/salgo/internal/jsonschema"
	"github.com/lsst-sal/salgo/internal/plumb"
	"github.com/lsst-sal/salgo/internal/pyrepr"
	"github.com/lsst-sal/salgo/internal/ratelog"
	"github.com/lsst-sal/salgo/internal/yamlx"
	"github.com/lsst-sal/salgo/remote"
	"github.com/lsst-sal/salgo/topics"
)

// ScriptState is the state of a SAL script, ts_xml's ScriptState.
type ScriptState int32

// The script states, with ts_xml's values.
const (
	ScriptUnknown         ScriptState = 0
	ScriptUnconfigured    ScriptState = 1
	ScriptConfigured      ScriptState = 2
	ScriptRunning         ScriptState = 3
	ScriptPaused          ScriptState = 4
	ScriptEnding          ScriptState = 5
	ScriptStopping        ScriptState = 6
	ScriptFailing         ScriptState = 7
	ScriptDone            ScriptState = 8
	ScriptStopped         ScriptState = 9
	ScriptFailed          ScriptState = 10
	ScriptConfigureFailed ScriptState = 11
)

var scriptStateNames = [...]string{"UNKNOWN", "UNCONFIGURED", "CONFIGURED", "RUNNING", "PAUSED", "ENDING",
	"STOPPING", "FAILING", "DONE", "STOPPED", "FAILED", "CONFIGURE_FAILED"}

// Name returns "DONE" etc., or "UNKNOWN(<n>)" for a value that is not a
// ScriptState (BaseScript's state_name).
func (s ScriptState) Name() string {
	if s >= 0 && int(s) < len(scriptStateNames) {
		return scriptStateNames[s]
	}
	return "UNKNOWN(" + strconv.Itoa(int(s)) + ")"
}

// String returns the state's name ("DONE"), as Name does.
func (s ScriptState) String() string { return s.Name() }

// PyRepr returns the Python repr, e.g. "<ScriptState.DONE: 8>", as the
// texts salobj writes on the bus quote it.
func (s ScriptState) PyRepr() string {
	if s >= 0 && int(s) < len(scriptStateNames) {
		return "<ScriptState." + scriptStateNames[s] + ": " + strconv.Itoa(int(s)) + ">"
	}
	return "<ScriptState: " + strconv.Itoa(int(s)) + ">"
}

// Enumerations of the metadata event, ts_xml's values.
type (
	// MetadataCoordSys is metadata.coordinateSystem.
	MetadataCoordSys int16
	// MetadataRotSys is metadata.rotationSystem.
	MetadataRotSys int16
	// MetadataDome is metadata.dome.
	MetadataDome int16
)

// The metadata enumerations.
const (
	CoordSysNone     MetadataCoordSys = 1
	CoordSysICRS     MetadataCoordSys = 2
	CoordSysObserved MetadataCoordSys = 3
	CoordSysMount    MetadataCoordSys = 4

	RotSysNone    MetadataRotSys = 1
	RotSysSky     MetadataRotSys = 2
	RotSysHorizon MetadataRotSys = 3
	RotSysMount   MetadataRotSys = 4

	DomeClosed MetadataDome = 1
	DomeOpen   MetadataDome = 2
	DomeEither MetadataDome = 3
)

// ScriptMetadata is the metadata event a script writes once configured
// (what the ScriptQueue shows of it: its duration, where it points, ...).
// SetMetadata gets it with BaseScript's starting values: no coordinate or
// rotation system, any filter, the dome either way, duration 0.
type ScriptMetadata struct {
	CoordinateSystem MetadataCoordSys
	Position         [2]float64 // in CoordinateSystem, degrees
	RotationSystem   MetadataRotSys
	CameraAngle      float64 // in RotationSystem, degrees
	Filters          string  // acceptable filters, comma-separated; "" for any
	Dome             MetadataDome
	Duration         float64 // estimated, seconds
	NImages          int32
	Instrument       string
	Survey           string
	TotalCheckpoints int32 // checkpoints the script will pass, repeats counted
}

func (m *ScriptMetadata) fields() map[string]any {
	return map[string]any{
		"coordinateSystem": int16(m.CoordinateSystem), "position": []float64{m.Position[0], m.Position[1]},
		"rotationSystem": int16(m.RotationSystem), "cameraAngle": m.CameraAngle, "filters": m.Filters,
		"dome": int16(m.Dome), "duration": m.Duration, "nimages": m.NImages, "instrument": m.Instrument,
		"survey": m.Survey, "totalCheckpoints": m.TotalCheckpoints,
	}
}

func metadataFrom(d map[string]any) ScriptMetadata {
	m := ScriptMetadata{}
	v, _ := d["coordinateSystem"].(int16)
	m.CoordinateSystem = MetadataCoordSys(v)
	if p, ok := d["position"].([]float64); ok && len(p) == 2 {
		m.Position = [2]float64{p[0], p[1]}
	}
	v, _ = d["rotationSystem"].(int16)
	m.RotationSystem = MetadataRotSys(v)
	m.CameraAngle, _ = d["cameraAngle"].(float64)
	m.Filters, _ = d["filters"].(string)
	v, _ = d["dome"].(int16)
	m.Dome = MetadataDome(v)
	m.Duration, _ = d["duration"].(float64)
	m.NImages, _ = d["nimages"].(int32)
	m.Instrument, _ = d["instrument"].(string)
	m.Survey, _ = d["survey"].(string)
	m.TotalCheckpoints, _ = d["totalCheckpoints"].(int32)
	return m
}

// ScriptConfiguration is a script's validated configuration: the
// configure command's YAML read as Python reads it, a top-level "metadata"
// key removed, validated against the schema with its defaults filled in
// (salobj's DefaultingValidator).
type ScriptConfiguration struct {
	// Values are the top-level keys and their values (map[string]any,
	// []any, string, bool, int64, float64, nil); empty for a script without
	// a schema.
	Values map[string]any
	// Text is the configure command's config field.
	Text string
}

// Decode fills v (a pointer to a struct or map) from the values, as
// encoding/json would from the same JSON.
func (c *ScriptConfiguration) Decode(v any) error {
	return cscconfig.Config{Values: c.Values}.Decode(v)
}

// ScriptHeartbeatInterval is how often a script writes its heartbeat
// (BaseScript's HEARTBEAT_INTERVAL); the first comes one interval after
// Start.
const ScriptHeartbeatInterval = 5 * time.Second

// ScriptConfig describes a SAL script, as the class attributes and
// methods of a subclass of ts_salobj's BaseScript do. Name and Run are
// required; the other hooks are optional. sal.RunScript runs it as a
// program (sal.ScriptSpec is this type).
type ScriptConfig struct {
	// Name is the script's class name: description.classname, and the
	// program name of its command line ("Run <Name> from the command
	// line").
	Name string
	// Description is a short description for operators
	// (description.description).
	Description string
	// Help is detailed help, Markdown encouraged (description.help).
	Help string
	// Schema is the configuration's JSON Schema (Draft 7) as YAML, with
	// defaults where they make sense (they are filled in); nil (or a
	// document that is empty) for a script without configuration, whose
	// configure command must then carry an empty config. --schema prints
	// it.
	Schema []byte
	// Setup prepares the script as a salobj script's constructor does; it
	// is the first thing Start does. Make there the Remotes of the
	// components the script commands (Script.NewRemote): they are listed
	// in description.remotes, and the script waits for them to be ready
	// before it reports UNCONFIGURED. An error fails Start.
	Setup func(ctx context.Context, s *Script) error
	// Configure gets the validated configuration in the configure command
	// (state UNCONFIGURED); an error fails the script (CONFIGURE_FAILED).
	Configure func(ctx context.Context, s *Script, cfg *ScriptConfiguration) error
	// SetMetadata sets the metadata fields the script knows (after
	// Configure); the event is written when it returns.
	SetMetadata func(s *Script, md *ScriptMetadata)
	// Run does the work, calling s.Checkpoint where the script may pause
	// or stop. Its ctx ends on stop (or a stop checkpoint, or Close): return
	// then. A nil return ends in DONE; an error in FAILED (reason "Error in
	// run: <error>", a Remote's failed command reading as salobj's
	// AckError does; logged with details unless it is an ExpectedError); a
	// stop in STOPPED.
	Run func(ctx context.Context, s *Script) error
	// Cleanup runs once the script is ending, if Run was started (also
	// after a stop or a failure); an error ends in FAILED and makes Err
	// return it.
	Cleanup func(ctx context.Context, s *Script) error
	// HeartbeatInterval is the heartbeat period (default
	// ScriptHeartbeatInterval).
	HeartbeatInterval time.Duration
	// FinalStateDelay is how long the script waits, once its final state
	// is written (acknowledged by the broker) and the ack of the command
	// that ended it sent, before Done closes (and a script process exits):
	// time for the ScriptQueue to read the final state before it learns of
	// the exit (salobj's final_state_delay). 0 means
	// DefaultFinalStateDelay; a negative value, none.
	FinalStateDelay time.Duration
	// Options configure the script's controller (WithIdentity,
	// WithQueueLen; it always reads its commands and needs a handler for
	// each).
	Options []Option
}

// DefaultFinalStateDelay is ScriptConfig.FinalStateDelay's default
// (BaseScript's final_state_delay, 0.3 s).
const DefaultFinalStateDelay = 300 * time.Millisecond

// Script is the Controller of a SAL script (the Script component, at its
// own SAL index) with ts_salobj's BaseScript state machine: the configure,
// run, resume, stop, setCheckpoints, setGroupId and setLogLevel commands,
// the state, checkpoints, description, metadata, logLevel, logMessage and
// heartbeat events, with salobj's texts and order. Make it with NewScript,
// Start it, and wait for Done.
type Script struct {
	c      *Controller
	cfg    ScriptConfig
	schema *jsonschema.Schema // nil: no configuration
	rl     *ratelog.Limiter

	// mu guards what follows; state writes are made holding it, so that
	// the state event's records go out in the order of the changes.
	mu             sync.Mutex
	startCalled    bool // Setup runs in the first Start only
	state          ScriptState
	exiting        bool
	runStarted     bool // salobj's _run_task is not None
	runActive      bool // ... and not done
	runCancel      context.CancelFunc
	runCtx         context.Context
	stopRequested  bool          // stop command or stop checkpoint while running
	pause          chan struct{} // a checkpoint waiting for resume
	pauseRE        *regexp.Regexp
	stopRE         *regexp.Regexp
	numCheckpoints int32
	lastCheckpoint string
	subGroup       int

	end   ending
	unreg func() // leaves the Domain's list of what its Close closes
	// endTimer, once the command that ended the script is acked, closes
	// Done FinalStateDelay later with exitErr; Close ends it early with
	// the same error. Guarded by mu, as ended (the timer is set).
	endTimer *time.Timer
	ended    bool
	// exitErr is the script's own end, set once its final state is
	// written (exited), before the ack: what Close ends with from then on.
	exitErr error
	exited  bool

	hbMu   sync.Mutex
	hbStop chan struct{}
	bg     sync.WaitGroup
}

// scriptCommands are the commands a Script handles (setLogLevel is the
// Controller's).
var scriptCommands = []string{"configure", "run", "resume", "stop", "setCheckpoints", "setGroupId"}

// NewScript makes the Controller of a SAL script: the Script component at
// index (which must not be 0), its schema checked against the Draft 7
// metaschema. Then Start it.
func NewScript(d *topics.Domain, index int, cfg ScriptConfig) (*Script, error) {
	if index == 0 {
		return nil, errors.New("controller: Script: index must be nonzero")
	}
	if cfg.Name == "" {
		return nil, errors.New("controller: Script: no Name (description.classname)")
	}
	if cfg.Run == nil {
		return nil, fmt.Errorf("controller: script %s has no Run", cfg.Name)
	}
	var schema *jsonschema.Schema
	if len(cfg.Schema) > 0 {
		doc, err := yamlx.UnmarshalOrdered(cfg.Name+" schema", cfg.Schema)
		if err != nil {
			return nil, fmt.Errorf("controller: script %s: %w", cfg.Name, err)
		}
		if doc != nil {
			if schema, err = jsonschema.CompileValue(cfg.Name, doc); err != nil {
				return nil, fmt.Errorf("controller: script %s: %w", cfg.Name, err)
			}
		}
	}
	if cfg.HeartbeatInterval <= 0 {
		cfg.HeartbeatInterval = ScriptHeartbeatInterval
	}
	if cfg.FinalStateDelay == 0 {
		cfg.FinalStateDelay = DefaultFinalStateDelay
	}
	var cc config
	for _, o := range cfg.Options {
		o(&cc)
	}
	cc.AllowMissing, cc.WriteOnly = false, false
	c, err := newController(d, "Script", index, cc)
	if err != nil {
		return nil, err
	}
	s := &Script{c: c, cfg: cfg, schema: schema, end: newEnding(),
		pauseRE: fullMatch(regexp.MustCompile("")), stopRE: fullMatch(regexp.MustCompile(""))}
	s.rl = ratelog.New(c.logger, topics.LogInterval)
	handlers := []func(context.Context, *Command) error{s.doConfigure, s.doRun, s.doResume, s.doStop, s.doSetCheckpoints, s.doSetGroupID}
	for i, name := range scriptCommands {
		if err := c.HandleFunc(name, handlers[i]); err != nil {
			c.Close()
			return nil, err
		}
	}
	for _, ev := range []string{"state", "checkpoints", "description", "metadata", "heartbeat"} {
		if c.event(ev) == nil {
			c.Close()
			return nil, fmt.Errorf("controller: component Script has no %s event", ev)
		}
	}
	// The reference's bare set at construction: nothing is written yet.
	_, _ = c.event("description").Set(map[string]any{"classname": cfg.Name, "description": cfg.Description, "help": cfg.Help})
	if s.unreg, err = onClose(d, plumb.RankRunner, s.Close); err != nil {
		c.Close()
		return nil, err
	}
	return s, nil
}

// fullMatch compiles re as Python's re.fullmatch uses it: the whole name
// must match.
func fullMatch(re *regexp.Regexp) *regexp.Regexp {
	return regexp.MustCompile(`^(?:` + re.String() + `)$`)
}

// Name returns the script's class name (ScriptConfig.Name), as
// description.classname gives it.
func (s *Script) Name() string { return s.cfg.Name }

// Domain returns the Domain the script runs on.
func (s *Script) Domain() *topics.Domain { return s.c.in.Domain() }

// NewRemote makes and starts a Remote on the script's Domain that
// commands with the script's identity ("Script:<index>"), as a Remote made
// in a salobj script's constructor does; opts may override it. Made in
// Setup, it is listed in description.remotes.
func (s *Script) NewRemote(ctx context.Context, name string, index int, opts ...remote.Option) (*remote.Remote, error) {
	r, err := remote.New(s.Domain(), name, index, append([]remote.Option{remote.WithIdentity(s.Identity())}, opts...)...)
	if err != nil {
		return nil, err
	}
	if err := r.Start(ctx); err != nil {
		r.Close()
		return nil, err
	}
	return r, nil
}

// Index returns the SAL index.
func (s *Script) Index() int { return s.c.index }

// Identity returns the private_identity written ("Script:<index>").
func (s *Script) Identity() string { return s.c.Identity() }

// Logger returns the script's logger (the Script component's; see
// Controller.Logger): its records become logMessage events.
func (s *Script) Logger() *slog.Logger { return s.c.Logger() }

// SetLogLevel sets the level of the records written as logMessage.
func (s *Script) SetLogLevel(l slog.Level) { s.c.SetLogLevel(l) }

// Event returns the writer of one of the Script component's events (see
// Controller.Event): the SDK writes state, checkpoints, description,
// metadata, logLevel, logMessage and heartbeat itself.
func (s *Script) Event(name string) (*topics.Writer, error) { return s.c.Event(name) }

// State returns the current state.
func (s *Script) State() ScriptState {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.state
}

func (s *Script) stateField(name string) string {
	v, _ := s.c.event("state").Data()[name].(string)
	return v
}

// Reason returns the state event's reason.
func (s *Script) Reason() string { return s.stateField("reason") }

// GroupID returns the group ID set by setGroupId ("" if none).
func (s *Script) GroupID() string { return s.stateField("groupId") }

// BlockID returns the block ID the configure command gave ("" if none).
func (s *Script) BlockID() string { return s.stateField("blockId") }

// Checkpoints returns the pause and stop patterns in force.
func (s *Script) Checkpoints() (pause, stop string) {
	d := s.c.event("checkpoints").Data()
	pause, _ = d["pause"].(string)
	stop, _ = d["stop"].(string)
	return pause, stop
}

// NextSupplementedGroupID returns "<group ID>#<n>", n counting 1, 2, ...
// from the last setGroupId (BaseScript's next_supplemented_group_id); an
// error "No group ID" if none is set.
func (s *Script) NextSupplementedGroupID() (string, error) {
	g := s.GroupID()
	if g == "" {
		//lint:ignore ST1005 salobj's text, byte for byte
		return "", errors.New("No group ID")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.subGroup++
	return g + "#" + strconv.Itoa(s.subGroup), nil
}

// Done is closed when the script has ended: its final state written
// (acknowledged by the broker), the ack of the command that ended it sent,
// then FinalStateDelay passed; or Close called.
func (s *Script) Done() <-chan struct{} { return s.end.Done() }

// Err returns, once Done is closed, the error that ended the script in
// its exit (Cleanup's, or a failed final write), else nil. The final
// state says how it ended.
func (s *Script) Err() error { return s.end.Err() }

func (s *Script) finish(err error) { s.end.finish(err) }

// Start starts the script as BaseScript.start does, after Setup: the
// topics and logLevel, the heartbeat (the first one interval later), a
// wait for every other Instance on the Domain (the script's Remotes) to be
// ready, state UNCONFIGURED, then description with remotes = their
// "<Name>:<index>", sorted, joined by commas.
func (s *Script) Start(ctx context.Context) error {
	s.mu.Lock()
	again := s.startCalled
	s.startCalled = true
	s.mu.Unlock()
	if again {
		return errors.New("controller: Start called twice")
	}
	if s.cfg.Setup != nil {
		if err := s.call(func() error { return s.cfg.Setup(ctx, s) }); err != nil {
			return fmt.Errorf("controller: script %s: setup: %w", s.cfg.Name, err)
		}
	}
	if err := s.c.Start(ctx); err != nil {
		return err
	}
	s.startHeartbeat()
	set := map[string]bool{}
	for _, in := range s.c.in.Domain().Instances() {
		if in == s.c.in {
			continue
		}
		select {
		case <-in.Ready():
		case <-ctx.Done():
			return fmt.Errorf("controller: start %s: waiting for %s: %w", s.Name(), in.Component().NameIndex(in.Index()), ctx.Err())
		}
		set[in.Component().Name+":"+strconv.Itoa(in.Index())] = true
	}
	names := make([]string, 0, len(set))
	for n := range set {
		names = append(names, n)
	}
	sort.Strings(names)
	s.mu.Lock()
	err := s.setState(ScriptUnconfigured, nil, false, false)
	s.mu.Unlock()
	if err != nil {
		return err
	}
	if _, err := s.c.event("description").SetWrite(ctx, map[string]any{"remotes": strings.Join(names, ",")}, true); err != nil {
		return fmt.Errorf("controller: write description: %w", err)
	}
	return nil
}

// Close stops the heartbeat, cancels Run (the run command then writes
// STOPPING; Cleanup does not run, as on a signal in salobj) and closes the
// controller. It writes no final state. It is safe to call twice and
// concurrently; it must not be called from a hook (it waits for them).
func (s *Script) Close() {
	endErr := s.cancelRun()
	s.c.Close()
	s.bg.Wait()
	s.unreg()
	s.finish(endErr)
}

// cancelRun is the first half of Close: the script is exiting, its
// heartbeat and end timer stop and Run's context is cancelled (the
// commands' contexts are cancelled after, by the controller's Close). It
// returns the error the script ended with, if it had ended.
func (s *Script) cancelRun() (endErr error) {
	s.mu.Lock()
	s.exiting = true
	cancel := s.runCancel
	if s.exited {
		endErr = s.exitErr
	}
	if s.endTimer != nil {
		s.endTimer.Stop()
	}
	s.mu.Unlock()
	s.stopHeartbeat()
	if cancel != nil {
		cancel()
	}
	return endErr
}

// writeCtx bounds a state write that must happen even when the command's
// context is over (the run command's, closing).
func writeCtx() (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.Background(), 30*time.Second)
}

// setState is BaseScript.set_state: state (noState: unchanged) and reason
// (nil: unchanged; with keepOld, appended to the old one after "; "), with
// lastCheckpoint and numCheckpoints, written if changed or forced. s.mu is
// held.
func (s *Script) setState(st ScriptState, reason *string, keepOld, force bool) error {
	w := s.c.event("state")
	fields := map[string]any{"lastCheckpoint": s.lastCheckpoint, "numCheckpoints": s.numCheckpoints}
	if st != noState {
		fields["state"] = uint8(st)
		s.state = st
	}
	if reason != nil {
		r := *reason
		if keepOld {
			if old, _ := w.Data()["reason"].(string); old != "" {
				r = old + "; " + r
			}
		}
		fields["reason"] = capText(r)
	}
	ctx, cancel := writeCtx()
	defer cancel()
	if _, err := w.SetWrite(ctx, fields, force); err != nil {
		return fmt.Errorf("controller: write state: %w", err)
	}
	return nil
}

// noState leaves the state unchanged in setState.
const noState ScriptState = -1

func ptr(s string) *string { return &s }

// assertState is BaseScript.assert_state; s.mu is held.
func (s *Script) assertState(action string, states ...ScriptState) error {
	if s.exiting {
		return Expectedf("Cannot %s: script is exiting", action)
	}
	if !slices.Contains(states, s.state) {
		names := make([]string, len(states))
		for i, st := range states {
			names[i] = st.Name()
		}
		return Expectedf("Cannot %s: state=%s instead of %s", action, s.state.Name(), strings.Join(names, ", "))
	}
	return nil
}

// checkRegex compiles a checkpoint pattern. Python's re syntax is not
// Go's RE2: lookarounds, backreferences, possessive quantifiers and
// conditionals are refused here (Python accepts them), and \d, \w, \s and
// \b are ASCII-only here (Unicode in Python).
func checkRegex(what, pattern string) (*regexp.Regexp, error) {
	re, err := regexp.Compile(pattern)
	if err != nil {
		return nil, Expectedf("%s=%s not a valid regex: %v", what, pyrepr.String(pattern), err)
	}
	return fullMatch(re), nil
}

// setCheckpoints is BaseScript._set_checkpoints: both patterns checked,
// then checkpoints written (forced). s.mu is held.
func (s *Script) setCheckpoints(ctx context.Context, pause, stop string) error {
	pre, err := checkRegex("pause", pause)
	if err != nil {
		return err
	}
	sre, err := checkRegex("stop", stop)
	if err != nil {
		return err
	}
	s.pauseRE, s.stopRE = pre, sre
	if _, err := s.c.event("checkpoints").SetWrite(ctx, map[string]any{"pause": pause, "stop": stop}, true); err != nil {
		return fmt.Errorf("controller: write checkpoints: %w", err)
	}
	return nil
}

// parseConfig reads and validates the configure command's text as
// BaseScript.do_configure does.
func (s *Script) parseConfig(text string) (*ScriptConfiguration, error) {
	conf := &ScriptConfiguration{Values: map[string]any{}, Text: text}
	if s.schema == nil {
		if text != "" {
			//lint:ignore ST1005 salobj's text, byte for byte
			return nil, fmt.Errorf("This script has no configuration so config=%s must be empty.", text)
		}
		return conf, nil
	}
	var v any
	if text != "" {
		var err error
		if v, err = yamlx.UnmarshalOrdered("config", []byte(text)); err != nil {
			if py, ok := yamlx.PyErrorText(text, err); ok {
				return nil, &yamlError{text: py, err: err}
			}
			return nil, err
		}
		if truthy(v) {
			switch x := v.(type) {
			case *yamlx.Map:
				x.Delete("metadata")
			case []any:
				return nil, errors.New("pop expected at most 1 argument, got 2")
			default:
				return nil, fmt.Errorf("'%s' object has no attribute 'pop'", pyTypeName(v))
			}
		}
	}
	values, err := s.schema.FillDefaults(v)
	if err != nil {
		return nil, err
	}
	conf.Values = values
	return conf, nil
}

// yamlError is a configuration that is not YAML, with PyYAML's text.
type yamlError struct {
	text string
	err  error
}

func (e *yamlError) Error() string { return e.text }
func (e *yamlError) Unwrap() error { return e.err }

// truthy is Python's bool() of a value the YAML reader gives.
func truthy(v any) bool {
	switch x := v.(type) {
	case nil:
		return false
	case bool:
		return x
	case string:
		return x != ""
	case int64:
		return x != 0
	case *big.Int:
		return x.Sign() != 0
	case float64:
		return x != 0
	case []any:
		return len(x) > 0
	case []byte:
		return len(x) > 0
	case *yamlx.Map:
		return x.Len() > 0
	}
	return true // dates and timestamps
}

// pyTypeName is the Python type name of a YAML value.
func pyTypeName(v any) string {
	switch v.(type) {
	case bool:
		return "bool"
	case string:
		return "str"
	case int64, *big.Int:
		return "int"
	case float64:
		return "float"
	case []byte:
		return "bytes"
	case yamlx.Date:
		return "datetime.date"
	case yamlx.Timestamp:
		return "datetime.datetime"
	}
	return fmt.Sprintf("%T", v)
}

// errText is Python's str() of an error: the multi-line form of a schema
// validation error.
func errText(err error) string {
	var ve *jsonschema.ValidationError
	if errors.As(err, &ve) {
		return ve.Plain()
	}
	return err.Error()
}

func (s *Script) doConfigure(ctx context.Context, cmd *Command) error {
	s.mu.Lock()
	err := s.assertState("configure", ScriptUnconfigured)
	s.mu.Unlock()
	if err != nil {
		return err
	}
	text, _ := cmd.Data["config"].(string)
	conf, err := s.parseConfig(text)
	if err == nil && s.cfg.Configure != nil {
		err = s.call(func() error { return s.cfg.Configure(ctx, s, conf) })
	}
	if err != nil {
		msg := fmt.Sprintf("config(%s) failed", text)
		full := msg + ": " + errText(err)
		s.c.logger.Error(msg, slog.String(tracebackAttr, errorDetail(err)))
		s.mu.Lock()
		werr := s.setState(ScriptConfigureFailed, &full, false, false)
		s.mu.Unlock()
		if werr != nil {
			s.c.logger.Error(werr.Error())
		}
		s.exit(cmd)
		return &ExpectedError{Err: errors.New(full)}
	}
	pause, _ := cmd.Data["pauseCheckpoint"].(string)
	stop, _ := cmd.Data["stopCheckpoint"].(string)
	s.mu.Lock()
	err = s.setCheckpoints(ctx, pause, stop)
	s.mu.Unlock()
	if err != nil {
		return err
	}
	if level, _ := cmd.Data["logLevel"].(int32); level != 0 {
		s.c.logs.setPy(level)
		if err := s.c.writeLogLevel(ctx); err != nil {
			return err
		}
	}
	w := s.c.event("metadata")
	_, _ = w.Set(map[string]any{"coordinateSystem": int16(CoordSysNone), "rotationSystem": int16(RotSysNone),
		"filters": "", "dome": int16(DomeEither), "duration": 0.0})
	md := metadataFrom(w.Data())
	if s.cfg.SetMetadata != nil {
		if err := s.call(func() error { s.cfg.SetMetadata(s, &md); return nil }); err != nil {
			return err
		}
	}
	fields := md.fields()
	for k := range fields {
		if w.Topic().Field(k) == nil {
			delete(fields, k) // an older ts_xml: not in this definition
		}
	}
	if _, err := w.Set(fields); err != nil {
		return fmt.Errorf("controller: metadata: %w", err)
	}
	if _, err := w.Write(ctx, w.Data()); err != nil {
		return fmt.Errorf("controller: write metadata: %w", err)
	}
	blockID, _ := cmd.Data["blockId"].(string)
	_, _ = s.c.event("state").Set(map[string]any{"blockId": blockID})
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.setState(ScriptConfigured, nil, false, false)
}

// call runs a hook; a panic becomes an error with its stack.
func (s *Script) call(f func() error) error { return recovered(f) }

// recovered runs f; a panic becomes a *panicError with its stack (detail
// gives the stack as the traceback).
func recovered(f func() error) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = &panicError{value: p, stack: string(debug.Stack())}
		}
	}()
	return f()
}

type panicError struct {
	value any
	stack string
}

func (p *panicError) Error() string { return fmt.Sprintf("panic: %v", p.value) }

// detail is the traceback of an error (the stack of a panic).
func detail(err error) string {
	var p *panicError
	if errors.As(err, &p) {
		return p.stack
	}
	return errorDetail(err)
}

// runErrText is the text of an error Run returned, as salobj's str() of
// the exception: an error that has a Python text of its own (package
// remote's AckError and TimeoutError: "msg='Command failed', ackcmd=(...)"
// and its AckTimeoutError) reads as that text; wrapped, the wrapper's text
// is kept around it.
func runErrText(err error) string {
	var py interface {
		error
		PythonText() string
	}
	if !errors.As(err, &py) {
		return err.Error()
	}
	return strings.Replace(err.Error(), py.Error(), py.PythonText(), 1)
}

func (s *Script) doRun(ctx context.Context, cmd *Command) error {
	s.mu.Lock()
	if err := s.assertState("run", ScriptConfigured); err != nil {
		s.mu.Unlock()
		return err
	}
	if s.stateField("groupId") == "" {
		s.mu.Unlock()
		return Expectedf("Group ID not set")
	}
	runCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	if err := s.setState(ScriptRunning, nil, false, false); err != nil {
		s.mu.Unlock()
		return err
	}
	s.runStarted, s.runActive, s.runCtx, s.runCancel = true, true, runCtx, cancel
	s.mu.Unlock()

	err := s.call(func() error { return s.cfg.Run(runCtx, s) })

	s.mu.Lock()
	s.runActive = false
	var werr error
	switch {
	case s.stopRequested || s.exiting || ctx.Err() != nil:
		// Stopped (the stop command, a stop checkpoint, or Close, which
		// cancels Run's context before this command's): what Run
		// returned does not matter.
		if s.state != ScriptStopping {
			werr = s.setState(ScriptStopping, nil, false, false)
		}
	case err == nil:
		werr = s.setState(ScriptEnding, nil, false, false)
	default:
		if !isExpected(err) {
			s.c.logger.Error("Error in run", slog.String(tracebackAttr, detail(err)))
		}
		werr = s.setState(ScriptFailing, ptr("Error in run: "+runErrText(err)), false, false)
	}
	s.mu.Unlock()
	if werr != nil {
		s.c.logger.Error(werr.Error())
	}
	s.exit(cmd)
	return nil // the ack is Done whatever happened: the state says it
}

// Checkpoint is where Run may be paused or stopped (BaseScript's
// checkpoint): it counts the checkpoint and names it in the state event,
// then, if the whole name matches the stop pattern, writes STOPPING,
// cancels Run's context and returns an error matching context.Canceled
// (return it); else, if it matches the pause pattern, writes PAUSED and
// waits for resume (then writes RUNNING and returns nil) or for a stop or
// ctx (then returns the context's error); else writes the state again
// (forced) and returns nil. Once the script is stopping it returns the
// cancellation at once. Outside Run it returns salobj's "checkpoint
// error: ..." texts.
//
// The patterns are the configure command's pauseCheckpoint and
// stopCheckpoint, matched as Python's re.fullmatch does (the default stop
// pattern "" stops at a checkpoint without a name) in Go's RE2 syntax:
// patterns with lookarounds or backreferences are refused by configure,
// and \d, \w and \s match ASCII only.
func (s *Script) Checkpoint(ctx context.Context, name string) error {
	s.mu.Lock()
	if s.state != ScriptRunning {
		defer s.mu.Unlock()
		return fmt.Errorf("checkpoint error: state=%s instead of RUNNING; did you call checkpoint from somewhere other than `run`?", s.state.Name())
	}
	if !s.runStarted {
		defer s.mu.Unlock()
		return errors.New("checkpoint error: state is RUNNING but no run_task")
	}
	if !s.runActive {
		defer s.mu.Unlock()
		return errors.New("checkpoint error: state is RUNNING but run_task is done")
	}
	if err := s.runCtx.Err(); err != nil {
		// Stopped already (salobj: the cancelled task raises at its next
		// await): nothing more is counted or written.
		s.mu.Unlock()
		return err
	}
	s.numCheckpoints++
	s.lastCheckpoint = name
	switch {
	case s.stopRE.MatchString(name):
		defer s.mu.Unlock()
		_, stop := s.Checkpoints()
		s.stopRequested = true
		err := s.setState(ScriptStopping, nil, false, false)
		s.runCancel()
		if err != nil {
			return err
		}
		return &stopError{name: name, pattern: stop}
	case s.pauseRE.MatchString(name):
		ch := make(chan struct{})
		s.pause = ch
		runCtx := s.runCtx
		err := s.setState(ScriptPaused, nil, false, false)
		s.mu.Unlock()
		if err != nil {
			return err
		}
		select {
		case <-ch:
		case <-runCtx.Done():
			return runCtx.Err()
		case <-ctx.Done():
			return ctx.Err()
		}
		s.mu.Lock()
		defer s.mu.Unlock()
		return s.setState(ScriptRunning, nil, false, false)
	default:
		defer s.mu.Unlock()
		return s.setState(noState, nil, false, true)
	}
}

// stopError is what a stop checkpoint returns; it matches context.Canceled.
type stopError struct{ name, pattern string }

func (e *stopError) Error() string {
	return fmt.Sprintf("stop by request: checkpoint %s matches %s", e.name, e.pattern)
}

func (e *stopError) Is(target error) bool { return target == context.Canceled }

func (s *Script) doResume(ctx context.Context, cmd *Command) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.assertState("resume", ScriptPaused); err != nil {
		return err
	}
	if s.pause != nil {
		close(s.pause)
		s.pause = nil
	}
	return nil
}

func (s *Script) doStop(ctx context.Context, cmd *Command) error {
	s.mu.Lock()
	if s.exiting {
		s.mu.Unlock()
		return nil
	}
	if s.runActive {
		s.stopRequested = true
		s.runCancel()
		s.mu.Unlock()
		return nil // acked at once; the run command winds down
	}
	err := s.setState(ScriptStopping, nil, false, false)
	s.mu.Unlock()
	if err != nil {
		s.c.logger.Error(err.Error())
	}
	s.exit(cmd)
	return nil
}

func (s *Script) doSetCheckpoints(ctx context.Context, cmd *Command) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.assertState("setCheckpoints", ScriptUnconfigured, ScriptConfigured, ScriptRunning, ScriptPaused); err != nil {
		return err
	}
	pause, _ := cmd.Data["pause"].(string)
	stop, _ := cmd.Data["stop"].(string)
	return s.setCheckpoints(ctx, pause, stop)
}

func (s *Script) doSetGroupID(ctx context.Context, cmd *Command) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.assertState("setGroupId", ScriptConfigured); err != nil {
		return err
	}
	g, _ := cmd.Data["groupId"].(string)
	if _, err := s.c.event("state").SetWrite(ctx, map[string]any{"groupId": g}, true); err != nil {
		return fmt.Errorf("controller: write state: %w", err)
	}
	s.subGroup = 0
	return nil
}

// finalStates maps the state at exit to the final one (BaseScript._exit).
var finalStates = map[ScriptState]ScriptState{
	ScriptEnding: ScriptDone, ScriptStopping: ScriptStopped,
	ScriptFailing: ScriptFailed, ScriptConfigureFailed: ScriptConfigureFailed,
}

// exit is BaseScript._exit, called by the command that ends the script:
// the first call wins; Cleanup runs if Run was started; the heartbeat
// stops; the final state is written (the old reason kept); Done closes
// once that command's ack is sent.
func (s *Script) exit(cmd *Command) {
	s.mu.Lock()
	if s.exiting {
		s.mu.Unlock()
		return
	}
	s.exiting = true
	ran := s.runStarted
	s.mu.Unlock()
	var err error
	if ran && s.cfg.Cleanup != nil {
		// Cleanup is not cut short by stop: its context is the
		// controller's, which ends only with Close.
		err = s.call(func() error { return s.cfg.Cleanup(s.c.ctx, s) })
	}
	s.stopHeartbeat()
	if err == nil {
		s.mu.Lock()
		final, ok := finalStates[s.state]
		var reason *string
		if !ok {
			reason = ptr("unexpected state for _exit " + s.state.Name())
			final = ScriptFailed
		}
		s.c.logger.Info("Setting final state to " + final.PyRepr())
		err = s.setState(final, reason, true, false)
		s.mu.Unlock()
	}
	if err != nil {
		if !isExpected(err) {
			s.c.logger.Error("Error in run", slog.String(tracebackAttr, detail(err)))
		}
		s.mu.Lock()
		if werr := s.setState(ScriptFailed, ptr("failed in _exit: "+err.Error()), true, false); werr != nil {
			s.c.logger.Error(werr.Error())
		}
		s.mu.Unlock()
	}
	s.mu.Lock()
	s.exitErr, s.exited = err, true // Close, even before the ack is out, ends with it
	s.mu.Unlock()
	cmd.acked = func() { s.ending(err) }
}

// ending closes Done with err FinalStateDelay from now (at once if it is
// negative); Close closes it earlier with the same err. It runs on a
// callback of the Kafka client: it must not block.
func (s *Script) ending(err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ended {
		return
	}
	s.ended = true
	if s.cfg.FinalStateDelay < 0 {
		s.finish(err)
		return
	}
	s.endTimer = time.AfterFunc(s.cfg.FinalStateDelay, func() { s.finish(err) })
}

func (s *Script) startHeartbeat() {
	s.hbMu.Lock()
	defer s.hbMu.Unlock()
	if s.hbStop != nil {
		return
	}
	stop := make(chan struct{})
	s.hbStop = stop
	w := s.c.event("heartbeat")
	s.bg.Add(1)
	go func() {
		defer s.bg.Done()
		t := time.NewTicker(s.cfg.HeartbeatInterval)
		defer t.Stop()
		for {
			select {
			case <-t.C:
			case <-stop:
				return
			}
			ctx, cancel := context.WithTimeout(s.c.ctx, 5*time.Second)
			if _, err := w.Write(ctx, w.Data()); err != nil && s.c.ctx.Err() == nil {
				s.rl.Log(slog.LevelError, "heartbeat", "Heartbeat output failed", slog.String(tracebackAttr, errorDetail(err)))
			}
			cancel()
		}
	}()
}

func (s *Script) stopHeartbeat() {
	s.hbMu.Lock()
	defer s.hbMu.Unlock()
	if s.hbStop != nil {
		close(s.hbStop)
		s.hbStop = nil
	}
}

// ScriptSchemaYAML returns what a script prints for --schema: its schema
// (YAML) as PyYAML's yaml.safe_dump writes it, keys sorted, without the
// newline print adds; "" and false for a script without a schema.
func ScriptSchemaYAML(schema []byte) (string, bool, error) {
	if len(schema) == 0 {
		return "", false, nil
	}
	doc, err := yamlx.UnmarshalOrdered("schema", schema)
	if err != nil || doc == nil {
		return "", false, err
	}
	text, err := yamlx.SafeDump(doc)
	return text, err == nil, err
}
