package sal

import (
	"os"
	"time"

	"github.com/lsst-sal/salgo/controller"
	"github.com/lsst-sal/salgo/remote"
)

// A RemoteOption configures a Remote (NewRemote, Bus.NewRemote).
type RemoteOption interface{ applyRemote(*remote.Config) }

// A CSCOption configures a CSC (NewCSC, Bus.NewCSC).
type CSCOption interface{ applyCSC(*controller.CSCConfig) }

// A ControllerOption configures a Controller (NewController,
// Bus.NewController) or the controller of a CSC: every ControllerOption
// is also a CSCOption.
type ControllerOption interface {
	CSCOption
	applyController(*controller.Config)
}

// A RoleOption configures Remotes, Controllers and CSCs alike.
type RoleOption interface {
	RemoteOption
	ControllerOption
}

// A CommandOption configures one command (Remote.Command,
// Remote.StartCommand).
// Documented in package remote: go doc github.com/lsst-sal/salgo/remote.CommandOption
type CommandOption = remote.CommandOption

type remoteOpt func(*remote.Config)

func (f remoteOpt) applyRemote(c *remote.Config) { f(c) }

type controllerOpt func(*controller.Config)

func (f controllerOpt) applyController(c *controller.Config) { f(c) }
func (f controllerOpt) applyCSC(c *controller.CSCConfig)     { f(&c.Controller) }

type cscOpt func(*controller.CSCConfig)

func (f cscOpt) applyCSC(c *controller.CSCConfig) { f(c) }

type roleOpt struct {
	r func(*remote.Config)
	c func(*controller.Config)
}

func (o roleOpt) applyRemote(c *remote.Config)         { o.r(c) }
func (o roleOpt) applyController(c *controller.Config) { o.c(c) }
func (o roleOpt) applyCSC(c *controller.CSCConfig)     { o.c(&c.Controller) }
func remoteConfig(opts []RemoteOption) (c remote.Config) {
	return apply(c, opts, RemoteOption.applyRemote)
}
func controllerConfig(opts []ControllerOption) (c controller.Config) {
	return apply(c, opts, ControllerOption.applyController)
}
func cscConfig(opts []CSCOption) (c controller.CSCConfig) { return apply(c, opts, CSCOption.applyCSC) }

func apply[C, O any](c C, opts []O, f func(O, *C)) C {
	for _, o := range opts {
		f(o, &c)
	}
	return c
}

// WithIdentity sets the private_identity a Remote writes in its commands
// (default: the bus's identity, user@fqdn, or the identity of a CSC made
// on the bus), or a Controller or CSC in what it writes (default
// "Name[:index]").
func WithIdentity(id string) RoleOption {
	return roleOpt{func(c *remote.Config) { c.Identity = id }, func(c *controller.Config) { c.Identity = id }}
}

// WithQueueLen sets the queue length of a Remote's event and telemetry
// readers (default 100, minimum 10), or of a Controller's command readers
// (default and minimum 1000). When a queue is full, the oldest record is
// dropped and counted.
func WithQueueLen(n int) RoleOption {
	return roleOpt{func(c *remote.Config) { c.QueueLen = n }, func(c *controller.Config) { c.QueueLen = n }}
}

// WithReadOnly makes a Remote that sends no commands and reads no acks
// (default: it can command).
func WithReadOnly() RemoteOption { return remoteOpt(func(c *remote.Config) { c.ReadOnly = true }) }

// WithInclude makes a Remote read only the named events and telemetry
// topics (bare, SAL or attribute names; a bare name that is both an event and
// a telemetry topic names both; default: all of them). Commands are
// not filtered. It cannot be combined with WithExclude.
func WithInclude(names ...string) RemoteOption {
	return remoteOpt(func(c *remote.Config) { c.Include = append(c.Include, names...) })
}

// WithExclude makes a Remote read every event and telemetry topic except
// the named ones (default: none excluded).
func WithExclude(names ...string) RemoteOption {
	return remoteOpt(func(c *remote.Config) { c.Exclude = append(c.Exclude, names...) })
}

// WithEventHistory says whether a Remote's event readers first deliver
// the newest sample written before the Remote started (per SAL index): true
// by default, as the reference's evt_max_history=1; false reads only what
// is written afterwards.
func WithEventHistory(on bool) RemoteOption {
	return remoteOpt(func(c *remote.Config) { c.NoEventHistory = !on })
}

// WithKeepOutOfOrder makes a Remote deliver events and telemetry samples
// older than the last one seen of the same SAL index (default: dropped and
// counted, as the reference does).
func WithKeepOutOfOrder() RemoteOption {
	return remoteOpt(func(c *remote.Config) { c.KeepOutOfOrder = true })
}

// WithAllowMissing lets a Controller or CSC start without a handler for
// every command: those answer CMD_FAILED "This command is not supported"
// (default: Start fails naming them).
func WithAllowMissing() ControllerOption {
	return controllerOpt(func(c *controller.Config) { c.AllowMissing = true })
}

// WithConcurrent lets several instances of the named commands run at once
// (default: the commands of one topic run one at a time).
func WithConcurrent(commands ...string) ControllerOption {
	return controllerOpt(func(c *controller.Config) { c.Concurrent = append(c.Concurrent, commands...) })
}

// WithWriteOnly makes a Controller that reads no commands and writes no
// acks, only events and telemetry (default: it reads its commands).
func WithWriteOnly() ControllerOption {
	return controllerOpt(func(c *controller.Config) { c.WriteOnly = true })
}

// WithInitialState sets the summary state a CSC starts in (default STANDBY).
func WithInitialState(s State) CSCOption {
	return cscOpt(func(c *controller.CSCConfig) { c.InitialState = s })
}

// WithVersion sets the cscVersion a CSC reports in softwareVersions
// (default "unknown").
func WithVersion(v string) CSCOption { return cscOpt(func(c *controller.CSCConfig) { c.Version = v }) }

// WithSimulationMode sets the simulation mode a CSC reports (default 0).
func WithSimulationMode(m int32) CSCOption {
	return cscOpt(func(c *controller.CSCConfig) { c.SimulationMode = m })
}

// WithCheckDuplicate makes a CSC's Start fail with ErrDuplicate when
// another instance's heartbeat is seen (default: no check; the runner
// turns it on).
func WithCheckDuplicate() CSCOption {
	return cscOpt(func(c *controller.CSCConfig) { c.CheckDuplicate = true })
}

// WithEnabledCommands makes the named commands of a CSC fail, with
// BaseCsc's assert_enabled text, unless it is ENABLED (default: the CSC's
// own commands run in any state; handlers may call CSC.RequireEnabled).
func WithEnabledCommands(names ...string) CSCOption {
	return cscOpt(func(c *controller.CSCConfig) { c.EnabledCommands = append(c.EnabledCommands, names...) })
}

// WithHooks sets a CSC's transition hooks (default: none).
func WithHooks(h Hooks) CSCOption { return cscOpt(func(c *controller.CSCConfig) { c.Hooks = h }) }

// WithTimeout sets the time a command is allowed (default
// DefaultCommandTimeout, 1 hour, as the reference); each CMD_INPROGRESS ack
// extends it by its timeout field. It bounds the command; a call's ctx
// bounds the call.
func WithTimeout(d time.Duration) CommandOption { return remote.WithTimeout(d) }

// WithNextAck makes Remote.Command return the first acknowledgement,
// whatever it is (default: it waits for the final one).
func WithNextAck() CommandOption { return remote.WithNextAck() }

// WithConfiguration makes a CSC configurable as ts_salobj's
// ConfigurableCsc (default: not configurable; start ignores its
// configurationOverride): its schema, its configuration package (found
// through <PKG>_DIR, e.g. TS_CONFIG_OCS_DIR) or folder, and the Configure
// hook that gets each validated configuration in the start command.
func WithConfiguration(c Configurable) CSCOption {
	return cscOpt(func(cfg *controller.CSCConfig) { cfg.Configurable = &c })
}

// WithConfigDir sets the configuration folder of a configurable CSC
// (--configdir; salobj's config_dir), instead of the configuration
// package's; give it after WithConfiguration (a CSCMaker's caller's
// options come after the CSC's own). No effect on a CSC that is not
// configurable.
func WithConfigDir(dir string) CSCOption {
	return configurableOpt(func(c *Configurable) { c.ConfigDir = dir })
}

// WithSite sets the site of a configurable CSC, whose _<site>.yaml is
// read after _init.yaml, instead of $LSST_SITE (which is then not
// needed); give it after WithConfiguration. Tests use it (sal/saltest
// does) so as not to set the process's environment.
func WithSite(site string) CSCOption {
	return configurableOpt(func(c *Configurable) {
		next := c.LookupEnv
		if next == nil {
			next = os.LookupEnv
		}
		c.LookupEnv = func(key string) (string, bool) {
			if key == "LSST_SITE" {
				return site, true
			}
			return next(key)
		}
	})
}

// configurableOpt changes a copy of the CSC's Configurable, if it has one.
func configurableOpt(f func(*Configurable)) CSCOption {
	return cscOpt(func(c *controller.CSCConfig) {
		if c.Configurable != nil {
			cp := *c.Configurable
			f(&cp)
			c.Configurable = &cp
		}
	})
}

// WithOverride sets the start command's configurationOverride used when
// the CSC goes through DISABLED to reach its initial state (default "").
func WithOverride(override string) CSCOption {
	return cscOpt(func(c *controller.CSCConfig) { c.Override = override })
}

// WithValidSimulationModes sets the simulation modes a CSC supports
// (default 0 only); a mode outside them is refused at construction. A
// program run by RunCSC declares its modes once, in
// RunSpec.ValidSimulationModes, which the runner (and RunSpec.Maker, for
// tests) passes here: use this option for a CSC made without a RunSpec.
func WithValidSimulationModes(modes ...int32) CSCOption {
	return cscOpt(func(c *controller.CSCConfig) { c.ValidSimulationModes = append([]int32(nil), modes...) })
}

// WithHeartbeatInterval sets a CSC's heartbeat period (default 1 s, as the
// reference; the duplicate check waits three of them).
func WithHeartbeatInterval(d time.Duration) CSCOption {
	return cscOpt(func(c *controller.CSCConfig) { c.HeartbeatInterval = d })
}

// WithSubsystemVersions sets softwareVersions.subsystemVersions
// ("name=version" pairs joined by commas; default "").
func WithSubsystemVersions(v string) CSCOption {
	return cscOpt(func(c *controller.CSCConfig) { c.SubsystemVersions = v })
}

// WithCloseTimeout bounds the CSC's Close hook (Hooks.Close), overriding
// the default controller.DefaultCloseTimeout (10 s).
func WithCloseTimeout(d time.Duration) CSCOption {
	return cscOpt(func(c *controller.CSCConfig) { c.CloseTimeout = d })
}

// WithMaxConcurrent bounds how many handlers of concurrent commands
// (WithConcurrent) run at once; the excess is refused with CMD_FAILED,
// overriding the default controller.DefaultMaxConcurrent (100).
func WithMaxConcurrent(n int) ControllerOption {
	return controllerOpt(func(c *controller.Config) { c.MaxConcurrent = n })
}
