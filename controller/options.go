package controller

import (
	"os"
	"time"
)

// An Option changes one of a Controller's settings from its default (New,
// sal.NewController). Every Option is also a CSCOption: it then sets the
// CSC's controller.
type Option func(*config)

func (o Option) applyCSC(c *cscConfig) { o(&c.Controller) }

// A CSCOption changes one of a CSC's settings from its default (NewCSC,
// sal.NewCSC): the CSC options below, or an Option of its controller.
type CSCOption interface{ applyCSC(*cscConfig) }

type cscOption func(*cscConfig)

func (o cscOption) applyCSC(c *cscConfig) { o(c) }

// WithIdentity sets the private_identity a Controller, CSC or script
// writes (default "Name[:index]").
func WithIdentity(id string) Option { return func(c *config) { c.Identity = id } }

// WithQueueLen sets the queue length of each command topic (default and
// minimum 1000); when a queue is full, the oldest command is dropped
// unanswered and counted in Stats.Overflow.
func WithQueueLen(n int) Option { return func(c *config) { c.QueueLen = n } }

// WithAllowMissing lets a Controller or CSC start without a handler for
// every command: those answer CMD_FAILED "This command is not supported"
// (default: Start fails naming them).
func WithAllowMissing() Option { return func(c *config) { c.AllowMissing = true } }

// WithConcurrent lets several instances of the named commands run at once
// (default: the commands of one topic run one at a time).
func WithConcurrent(commands ...string) Option {
	return func(c *config) { c.Concurrent = append(c.Concurrent, commands...) }
}

// WithWriteOnly makes a Controller that reads no commands and writes no
// acks (setLogLevel included), only what its program writes, not even
// logLevel at start (default: it reads its commands).
func WithWriteOnly() Option { return func(c *config) { c.WriteOnly = true } }

// WithMaxConcurrent bounds how many handlers of concurrent commands
// (WithConcurrent) run at once (default DefaultMaxConcurrent, 100): a
// command beyond it is refused at once, acked CMD_FAILED "Failed: too many
// commands running at once (limit N); try again later", and counted in
// Stats.Rejected, so that a flood of commands cannot grow the process
// without bound.
func WithMaxConcurrent(n int) Option { return func(c *config) { c.MaxConcurrent = n } }

// WithInitialState sets the summary state a CSC goes to in Start (default
// STANDBY), through the transition commands as the reference does.
func WithInitialState(s State) CSCOption { return cscOption(func(c *cscConfig) { c.InitialState = s }) }

// WithOverride sets the start command's configurationOverride used when
// Start goes through DISABLED to reach the initial state (--override;
// default "").
func WithOverride(override string) CSCOption {
	return cscOption(func(c *cscConfig) { c.Override = override })
}

// WithVersion sets the cscVersion a CSC reports in softwareVersions
// (default "unknown").
func WithVersion(v string) CSCOption { return cscOption(func(c *cscConfig) { c.Version = v }) }

// WithSubsystemVersions sets softwareVersions.subsystemVersions
// ("name=version" pairs joined by commas; default "").
func WithSubsystemVersions(v string) CSCOption {
	return cscOption(func(c *cscConfig) { c.SubsystemVersions = v })
}

// WithSimulationMode sets the simulation mode a CSC reports (default 0);
// it must be one of the valid modes (WithValidSimulationModes).
func WithSimulationMode(m int32) CSCOption {
	return cscOption(func(c *cscConfig) { c.SimulationMode = m })
}

// WithValidSimulationModes sets the simulation modes a CSC supports
// (default 0 only); a mode outside them is refused at construction. A
// program run by sal.RunCSC declares its modes once, in
// RunSpec.ValidSimulationModes, which the runner (and RunSpec.Maker, for
// tests) passes here: use this option for a CSC made without a RunSpec.
func WithValidSimulationModes(modes ...int32) CSCOption {
	return cscOption(func(c *cscConfig) { c.ValidSimulationModes = append([]int32(nil), modes...) })
}

// WithCheckDuplicate makes a CSC's Start fail with ErrDuplicate when
// another instance's heartbeat is seen (default: no check; the runner
// turns it on).
func WithCheckDuplicate() CSCOption { return cscOption(func(c *cscConfig) { c.CheckDuplicate = true }) }

// WithEnabledCommands makes the named commands of a CSC fail, with
// BaseCsc's assert_enabled text, unless it is ENABLED (default: the CSC's
// own commands run in any state; handlers may call CSC.RequireEnabled).
func WithEnabledCommands(names ...string) CSCOption {
	return cscOption(func(c *cscConfig) { c.EnabledCommands = append(c.EnabledCommands, names...) })
}

// WithHeartbeatInterval sets a CSC's heartbeat period (default 1 s, as the
// reference; the duplicate check waits three of them).
func WithHeartbeatInterval(d time.Duration) CSCOption {
	return cscOption(func(c *cscConfig) { c.HeartbeatInterval = d })
}

// WithCloseTimeout bounds the CSC's Close hook (Hooks.Close), and Close's
// wait for a Start still under way (default DefaultCloseTimeout, 10 s).
func WithCloseTimeout(d time.Duration) CSCOption {
	return cscOption(func(c *cscConfig) { c.CloseTimeout = d })
}

// WithHooks sets a CSC's transition hooks (default: none).
func WithHooks(h Hooks) CSCOption { return cscOption(func(c *cscConfig) { c.Hooks = h }) }

// WithConfiguration makes a CSC configurable as ts_salobj's
// ConfigurableCsc (default: not configurable; start ignores its
// configurationOverride): its schema, its configuration package (found
// through <PKG>_DIR, e.g. TS_CONFIG_OCS_DIR) or folder, and the Configure
// hook that gets each validated configuration in the start command.
func WithConfiguration(c Configurable) CSCOption {
	return cscOption(func(cfg *cscConfig) { cfg.Configurable = &c })
}

// WithConfigDir sets the configuration folder of a configurable CSC
// (--configdir; salobj's config_dir), instead of the configuration
// package's; give it after WithConfiguration (a sal.CSCMaker's caller's
// options come after the CSC's own). No effect on a CSC that is not
// configurable.
func WithConfigDir(dir string) CSCOption {
	return configurableOption(func(c *Configurable) { c.ConfigDir = dir })
}

// WithSite sets the site of a configurable CSC, whose _<site>.yaml is
// read after _init.yaml, instead of $LSST_SITE (which is then not
// needed); give it after WithConfiguration. Tests use it (sal/saltest
// does) so as not to set the process's environment.
func WithSite(site string) CSCOption {
	return configurableOption(func(c *Configurable) {
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

// configurableOption changes a copy of the CSC's Configurable, if it has one.
func configurableOption(f func(*Configurable)) CSCOption {
	return cscOption(func(c *cscConfig) {
		if c.Configurable != nil {
			cp := *c.Configurable
			f(&cp)
			c.Configurable = &cp
		}
	})
}
