package controller

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/lsst-sal/salgo/internal/cscconfig"
)

// Configuration is one validated configuration of a configurable CSC:
// _init.yaml, then _<LSST_SITE>.yaml, then the start command's override,
// merged (mappings deeply, everything else replaced) and validated against
// the CSC's schema (Draft 7, no defaults filled: every value comes from
// the files, as for ts_salobj's ConfigurableCsc).
type Configuration struct {
	// Values are the top-level keys and their values: map[string]any,
	// []any, string, bool, int64, float64, nil, as Python's YAML reader
	// gives them (YAML 1.1: yes/no/on/off are booleans, 1e3 a string).
	Values map[string]any
	// Files are the files read, in order ("_init.yaml", "_test.yaml", ...).
	Files []string
	// GitRef is the git reference the files were read at ("" for the
	// working tree).
	GitRef string
	// SchemaVersion (e.g. "v2") and URL (file://...) of the folder.
	SchemaVersion, URL string

	c cscconfig.Config
}

// Decode fills v (a pointer to a struct or map) from the values, as
// encoding/json would from the same JSON: exported fields, json tags,
// names matched case-insensitively, unknown keys ignored.
func (c *Configuration) Decode(v any) error { return c.c.Decode(v) }

// configurator is a CSC's configuration state: the folder, its poller
// while in STANDBY (configurationsAvailable), and the start command's
// reading.
type configurator struct {
	*cscconfig.Configurator
	spec *Configurable

	mu   sync.Mutex
	stop chan struct{} // the running poller's, or nil
	wg   sync.WaitGroup
}

func newConfigurator(component string, spec *Configurable) (*configurator, error) {
	c, err := cscconfig.New(cscconfig.Options{
		Component: component, Schema: spec.Schema, ConfigPkg: spec.ConfigPkg,
		ConfigDir: spec.ConfigDir, OtherInfo: spec.OtherInfo, LookupEnv: spec.LookupEnv,
	})
	if err != nil {
		return nil, err
	}
	return &configurator{Configurator: c, spec: spec}, nil
}

// readDir reads the folder as the reference's read_config_dir does and
// writes configurationsAvailable if it changed; the version also goes to
// configurationApplied's data (not written).
func (c *configurator) readDir(ctx context.Context, s *CSC) {
	av, err := c.Available(ctx)
	if err != nil {
		s.c.rl.Log(slog.LevelWarn, "config-dir", "controller: cannot read the configuration folder", "csc", s.Name(), "dir", c.Dir(), "err", err)
		return
	}
	if av.GitWarning != "" {
		s.c.rl.Log(slog.LevelWarn, "config-git", av.GitWarning)
	}
	s.set("configurationApplied", map[string]any{"version": av.Version})
	if err := s.write(ctx, "configurationsAvailable", map[string]any{
		"overrides": av.Overrides, "version": av.Version, "url": av.URL, "schemaVersion": av.SchemaVersion,
	}, false); err != nil && s.c.ctx.Err() == nil {
		s.c.rl.Log(slog.LevelWarn, "config-avail", "controller: configurationsAvailable not written", "csc", s.Name(), "err", err)
	}
}

// startPoll reads the folder every second until stopPoll.
func (c *configurator) startPoll(s *CSC) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.stop != nil || s.c.ctx.Err() != nil {
		return
	}
	stop := make(chan struct{})
	c.stop = stop
	c.wg.Add(1)
	go func() {
		defer c.wg.Done()
		t := time.NewTicker(time.Second)
		defer t.Stop()
		for {
			select {
			case <-t.C:
			case <-stop:
				return
			case <-s.c.ctx.Done():
				return
			}
			c.readDir(s.c.ctx, s)
		}
	}()
}

func (c *configurator) stopPoll() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.stop != nil {
		close(c.stop)
		c.stop = nil
	}
}

func (c *configurator) wait() { c.wg.Wait() }

// configure is the configuration half of the start command, as the
// reference's ConfigurableCsc.begin_start: the poller stopped, the folder
// read once more, the override's files read, merged and validated, the
// Configure hook called, configurationApplied written (forced).
func (s *CSC) configure(ctx context.Context, cmd *Command) error {
	c := s.conf
	c.stopPoll()
	c.wait()
	c.readDir(ctx, s)
	override, _ := cmd.Data["configurationOverride"].(string)
	plan, err := c.Plan(override)
	if err != nil {
		return err
	}
	s.c.logger.Debug(plan.LogMessage)
	cfg, err := c.Read(ctx, plan.Files, plan.GitRef)
	if err != nil {
		return err
	}
	conf := &Configuration{Values: cfg.Values, Files: cfg.Files, GitRef: cfg.GitRef, SchemaVersion: c.SchemaVersion(), URL: c.URL(), c: cfg}
	if c.spec.Configure != nil {
		if err := c.spec.Configure(ctx, conf); err != nil {
			return err
		}
	}
	ap := c.Applied(cfg)
	return s.write(ctx, "configurationApplied", map[string]any{
		"configurations": ap.Configurations, "version": ap.Version, "url": ap.URL,
		"schemaVersion": ap.SchemaVersion, "otherInfo": ap.OtherInfo,
	}, true)
}
