package sal

import (
	"context"
	"time"

	"github.com/lsst-sal/salgo/controller"
	"github.com/lsst-sal/salgo/remote"
	"github.com/lsst-sal/salgo/topics"
	salxml "github.com/lsst-sal/salgo/xml"
)

// The SDK's types, so that programs import only sal.
type (
	// Remote is the client side of one component instance: its commands,
	// events and telemetry.
	// Documented in package remote: go doc github.com/lsst-sal/salgo/remote.Remote
	Remote = remote.Remote
	// Future is a command in flight (Remote.StartCommand).
	// Documented in package remote: go doc github.com/lsst-sal/salgo/remote.Future
	Future = remote.Future
	// AckError is a command that ended with a failed ack; it matches
	// ErrCommandFailed.
	// Documented in package remote: go doc github.com/lsst-sal/salgo/remote.AckError
	AckError = remote.AckError
	// TimeoutError is a command that saw no final ack in time; it matches
	// ErrTimeout.
	// Documented in package remote: go doc github.com/lsst-sal/salgo/remote.TimeoutError
	TimeoutError = remote.TimeoutError
	// Controller is the server side of one component instance, without a
	// state machine.
	// Documented in package controller: go doc github.com/lsst-sal/salgo/controller.Controller
	Controller = controller.Controller
	// ControllerStats counts a Controller's or CSC's commands.
	// Documented in package controller: go doc github.com/lsst-sal/salgo/controller.Stats
	ControllerStats = controller.Stats
	// CSC is a Controller with ts_salobj's summary state machine.
	// Documented in package controller: go doc github.com/lsst-sal/salgo/controller.CSC
	CSC = controller.CSC
	// Hooks act on a CSC's transitions (WithHooks).
	// Documented in package controller: go doc github.com/lsst-sal/salgo/controller.Hooks
	Hooks = controller.Hooks
	// Command is one received command, as a handler sees it.
	// Documented in package controller: go doc github.com/lsst-sal/salgo/controller.Command
	Command = controller.Command
	// Handler runs one command.
	// Documented in package controller: go doc github.com/lsst-sal/salgo/controller.Handler
	Handler = controller.Handler
	// HandlerFunc adapts a function to Handler.
	// Documented in package controller: go doc github.com/lsst-sal/salgo/controller.HandlerFunc
	HandlerFunc = controller.HandlerFunc
	// AckResult is a handler outcome that chooses the final ack itself.
	// Documented in package controller: go doc github.com/lsst-sal/salgo/controller.AckResult
	AckResult = controller.AckResult
	// State is a CSC summary state.
	// Documented in package controller: go doc github.com/lsst-sal/salgo/controller.State
	State = controller.State
	// Configurable makes a CSC configurable (WithConfiguration).
	// Documented in package controller: go doc github.com/lsst-sal/salgo/controller.Configurable
	Configurable = controller.Configurable
	// Configuration is one validated configuration, as Configure gets it.
	// Documented in package controller: go doc github.com/lsst-sal/salgo/controller.Configuration
	Configuration = controller.Configuration
	// ExpectedError is a failure a handler or hook expects: acked
	// CMD_FAILED with its text, and not logged (see Expected).
	// Documented in package controller: go doc github.com/lsst-sal/salgo/controller.ExpectedError
	ExpectedError = controller.ExpectedError
	// Ack is one command acknowledgement.
	// Documented in package topics: go doc github.com/lsst-sal/salgo/topics.Ack
	Ack = topics.Ack
	// AckCode is a command acknowledgement code.
	// Documented in package topics: go doc github.com/lsst-sal/salgo/topics.AckCode
	AckCode = topics.AckCode
	// Reader reads one topic: Get (the newest), Next, TryNext, callbacks.
	// Documented in package topics: go doc github.com/lsst-sal/salgo/topics.Reader
	Reader = topics.Reader
	// ReaderStats counts what happened to a reader's records.
	// Documented in package topics: go doc github.com/lsst-sal/salgo/topics.ReaderStats
	ReaderStats = topics.ReaderStats
	// Writer writes one topic: Write, WriteAsync, Set, SetWrite.
	// Documented in package topics: go doc github.com/lsst-sal/salgo/topics.Writer
	Writer = topics.Writer
	// WriterStats counts a writer's records.
	// Documented in package topics: go doc github.com/lsst-sal/salgo/topics.WriterStats
	WriterStats = topics.WriterStats
	// WriteResult says where a record landed.
	// Documented in package topics: go doc github.com/lsst-sal/salgo/topics.WriteResult
	WriteResult = topics.WriteResult
	// Definitions are the loaded component definitions (ts_xml).
	// Documented in package xml: go doc github.com/lsst-sal/salgo/xml.Definitions
	Definitions = salxml.Definitions
	// Metrics receives the SDK's measurements: see WithMetrics and sal/salprom.
	// Documented in package topics: go doc github.com/lsst-sal/salgo/topics.Metrics
	Metrics = topics.Metrics
	// Observer records one value of a distribution.
	// Documented in package topics: go doc github.com/lsst-sal/salgo/topics.Observer
	Observer = topics.Observer
	// TopicInfo names one topic of one component instance.
	// Documented in package topics: go doc github.com/lsst-sal/salgo/topics.TopicInfo
	TopicInfo = topics.TopicInfo
	// TopicStats are the counters of one reader or writer (Bus.Stats).
	// Documented in package topics: go doc github.com/lsst-sal/salgo/topics.TopicStats
	TopicStats = topics.TopicStats
	// Instance is one component instance on the bus, below Remotes and
	// Controllers: readers and writers of any of its topics (Bus.NewInstance).
	// Documented in package topics: go doc github.com/lsst-sal/salgo/topics.Instance
	Instance = topics.Instance
	// ReaderOptions configure a reader of an Instance.
	// Documented in package topics: go doc github.com/lsst-sal/salgo/topics.ReaderOptions
	ReaderOptions = topics.ReaderOptions
	// TapRecord is one record read by name with Bus.Tap, decoded with its
	// writer's schema.
	// Documented in package topics: go doc github.com/lsst-sal/salgo/topics.TapRecord
	TapRecord = topics.TapRecord
	// BusConfig is a bus's configuration in full (Bus.Config, WithConfig).
	// Documented in package topics: go doc github.com/lsst-sal/salgo/topics.Config
	BusConfig = topics.Config
)

// The environment variables a bus reads (see the README's configuration
// table), and the default topic subname.
const (
	EnvBroker         = topics.EnvBroker
	EnvRegistry       = topics.EnvRegistry
	EnvSubname        = topics.EnvSubname
	EnvReplication    = topics.EnvReplication
	EnvAcks           = topics.EnvAcks
	EnvUser           = topics.EnvUser
	EnvPassword       = topics.EnvPassword
	EnvProtocol       = topics.EnvProtocol
	EnvMechanism      = topics.EnvMechanism
	EnvMaxHistoryRead = topics.EnvMaxHistoryRead
	EnvIdempotent     = topics.EnvIdempotent
	DefaultSubname    = topics.DefaultSubname
)

// TAI returns the current time in TAI unix seconds, the time scale of
// every private_*Stamp.
func TAI() float64 { return topics.TAI() }

// ConfigFromEnv reads the LSST_* environment variables into a BusConfig,
// as Connect does before applying its options.
func ConfigFromEnv() (BusConfig, error) { return topics.ConfigFromEnv() }

// The summary states and ack codes.
const (
	Disabled = controller.Disabled
	Enabled  = controller.Enabled
	Fault    = controller.Fault
	Offline  = controller.Offline
	Standby  = controller.Standby

	CmdAck        = topics.CmdAck
	CmdInProgress = topics.CmdInProgress
	CmdStalled    = topics.CmdStalled
	CmdComplete   = topics.CmdComplete
	CmdNoPerm     = topics.CmdNoPerm
	CmdNoAck      = topics.CmdNoAck
	CmdFailed     = topics.CmdFailed
	CmdAborted    = topics.CmdAborted
	CmdTimeout    = topics.CmdTimeout
)

// Errors, for errors.Is.
var (
	// ErrClosed is returned by every closed object of the SDK (bus, Remote,
	// command, Controller, CSC, reader, writer).
	ErrClosed = topics.ErrClosed
	// ErrCommandFailed is matched by every *AckError.
	ErrCommandFailed = remote.ErrCommandFailed
	// ErrTimeout is matched by every *TimeoutError.
	ErrTimeout = remote.ErrTimeout
	// ErrNoSuchCommand is matched by the error for a command the component
	// does not have.
	ErrNoSuchCommand = remote.ErrNoSuchCommand
	// ErrNoSuchTopic is matched by the error of a Remote's lookup of an
	// event or telemetry topic it does not have or does not read.
	ErrNoSuchTopic = remote.ErrNoSuchTopic
	// ErrUnknownTopic is matched by every lookup of a topic name a
	// component does not have (Remote, Controller and CSC alike).
	ErrUnknownTopic = salxml.ErrUnknownTopic
	// ErrUnknownComponent is matched by the error for a component the
	// definitions do not have.
	ErrUnknownComponent = salxml.ErrUnknownComponent
	// ErrDuplicate is returned by a CSC's Start when another instance is running.
	ErrDuplicate = controller.ErrDuplicate
	// ErrConfig is matched by every configuration error of the bus.
	ErrConfig = topics.ErrConfig
)

// A CSCMaker makes a CSC on a bus: a CSC author's constructor, which the
// runner (RunCSC) and the tests (sal/saltest) call. opts are theirs (the
// initial state, the simulation mode, ...): pass them to Bus.NewCSC after
// the CSC's own, so that they take precedence.
type CSCMaker func(b *Bus, index int, opts ...CSCOption) (*CSC, error)

// Expected marks err as an ExpectedError (nil stays nil).
func Expected(err error) error { return controller.Expected(err) }

// Expectedf is Expected(fmt.Errorf(format, args...)).
func Expectedf(format string, args ...any) error { return controller.Expectedf(format, args...) }

// ParseState returns the summary state of a name, in any case ("enabled").
func ParseState(name string) (State, bool) { return controller.ParseState(name) }

// TransitionCommands returns the commands that take a CSC from one state
// to another, as ts_salobj's set_summary_state does.
func TransitionCommands(from, to State) ([]string, error) {
	return controller.TransitionCommands(from, to)
}

// ExpectedStates returns from followed by the state after each command of
// TransitionCommands(from, to).
func ExpectedStates(from, to State) ([]State, error) { return controller.ExpectedStates(from, to) }

// LevelCritical is the slog level of Python's CRITICAL (50) in logMessage.
const LevelCritical = controller.LevelCritical

// DefaultCommandTimeout is a command's timeout unless remote.WithTimeout
// sets one.
const DefaultCommandTimeout = remote.DefaultTimeout

// DefaultStartTimeout bounds NewRemote, NewController and NewCSC, which
// take no context. To bound them otherwise, connect the process-wide bus
// with Default(ctx) and use its ctx-first methods (Bus.NewRemote).
const DefaultStartTimeout = 2 * time.Minute

// EmbeddedDefinitions returns the definitions built into the SDK: its
// Example component (a copy of ts_xml's Test component), for programs and
// tests that need no ts_xml checkout.
func EmbeddedDefinitions() *Definitions { return salxml.Embedded() }

// NewRemote makes and starts a Remote of the named component and SAL index
// (0 for a non-indexed component; for an indexed one, 0 reads every index)
// on the process-wide Bus (see Default), returning once its event history
// is caught up. Close it when done; sal.Close closes the Bus.
func NewRemote(name string, index int, opts ...RemoteOption) (*Remote, error) {
	ctx, cancel := context.WithTimeout(context.Background(), DefaultStartTimeout)
	defer cancel()
	b, err := Default(ctx)
	if err != nil {
		return nil, err
	}
	return b.NewRemote(ctx, name, index, opts...)
}

// NewRemote makes and starts a Remote on this Bus (see sal.NewRemote).
func (b *Bus) NewRemote(ctx context.Context, name string, index int, opts ...RemoteOption) (*Remote, error) {
	r, err := remote.New(b.Domain, name, index, opts...)
	if err != nil {
		return nil, err
	}
	if err := r.Start(ctx); err != nil {
		r.Close()
		return nil, err
	}
	return r, nil
}

// NewController makes a Controller on the process-wide Bus; add handlers,
// then Start it.
func NewController(name string, index int, opts ...ControllerOption) (*Controller, error) {
	ctx, cancel := context.WithTimeout(context.Background(), DefaultStartTimeout)
	defer cancel()
	b, err := Default(ctx)
	if err != nil {
		return nil, err
	}
	return b.NewController(name, index, opts...)
}

// NewController makes a Controller on this Bus.
func (b *Bus) NewController(name string, index int, opts ...ControllerOption) (*Controller, error) {
	return controller.New(b.Domain, name, index, opts...)
}

// NewCSC makes a CSC on the process-wide Bus; add handlers for its own
// commands, then Start it.
func NewCSC(name string, index int, opts ...CSCOption) (*CSC, error) {
	ctx, cancel := context.WithTimeout(context.Background(), DefaultStartTimeout)
	defer cancel()
	b, err := Default(ctx)
	if err != nil {
		return nil, err
	}
	return b.NewCSC(name, index, opts...)
}

// NewCSC makes a CSC on this Bus.
func (b *Bus) NewCSC(name string, index int, opts ...CSCOption) (*CSC, error) {
	return controller.NewCSC(b.Domain, name, index, opts...)
}
