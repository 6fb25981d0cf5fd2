package main

import (
	"context"
	"embed"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/lsst-sal/salgo/controller"
	"github.com/lsst-sal/salgo/sal"
)

// Version is the Go TestCsc's cscVersion.
const Version = "1.0.0"

//go:embed schema.yaml
var schema []byte

//go:embed all:config
var bundled embed.FS

// Config is the TestCsc's configuration.
type Config struct {
	String0   string  `json:"string0"`
	Bool0     bool    `json:"bool0"`
	Int0      int64   `json:"int0"`
	Float0    float64 `json:"float0"`
	Intarr0   []int64 `json:"intarr0"`
	MultiType any     `json:"multi_type"`
}

// TestCSC is the Go twin of ts_salobj's TestCsc: setScalars and setArrays
// (which need ENABLED) write their data to the events and telemetry of the
// same names, wait sends CMD_INPROGRESS with its duration and completes
// after it (a negative duration: no INPROGRESS, to test timeouts), fault
// faults with code 1; it is configurable with the Test v2 schema.
type TestCSC struct {
	*sal.CSC
	mu     sync.Mutex
	config *Config
}

// Component is the component the TestCsc serves: Test when the
// definitions have it (ts_xml, TS_XML_DIR), else the SDK's built-in copy
// of it, Example.
func Component(b *sal.Bus) string {
	if _, err := b.Definitions().Component("Test"); err == nil {
		return "Test"
	}
	return "Example"
}

// Configuration returns the configuration applied last, or nil.
func (c *TestCSC) Configuration() *Config {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.config
}

// New makes a TestCsc on b (a sal.CSCMaker).
func New(b *sal.Bus, index int, opts ...sal.CSCOption) (*sal.CSC, error) {
	t, err := NewTestCSC(b, index, opts...)
	if err != nil {
		return nil, err
	}
	return t.CSC, nil
}

// NewTestCSC is New, returning the TestCSC.
func NewTestCSC(b *sal.Bus, index int, opts ...sal.CSCOption) (*TestCSC, error) {
	t := &TestCSC{}
	csc, err := b.NewCSC(Component(b), index, append([]sal.CSCOption{
		controller.WithVersion(Version),
		controller.WithEnabledCommands("setScalars", "setArrays", "wait"),
		controller.WithConcurrent("wait"),
		// What a CSC that holds hardware releases here; the TestCsc holds
		// none, and says so on the process log (the line operators and CI
		// look for), not as a logMessage: salobj's TestCsc writes none.
		controller.WithHooks(sal.Hooks{Close: func(context.Context) error {
			b.Logger().Info("close_tasks: TestCsc closed; nothing to release", "csc", t.Name())
			return nil
		}}),
		controller.WithConfiguration(sal.Configurable{
			Schema: schema, ConfigPkg: "ts_config_ocs",
			Configure: func(_ context.Context, c *sal.Configuration) error {
				var cfg Config
				if err := c.Decode(&cfg); err != nil {
					return err
				}
				t.mu.Lock()
				t.config = &cfg
				t.mu.Unlock()
				return nil
			},
		}),
	}, opts...)...)
	if err != nil {
		return nil, err
	}
	t.CSC = csc
	csc.HandleFunc("setScalars", t.echo("setScalars", "scalars"))
	csc.HandleFunc("setArrays", t.echo("setArrays", "arrays"))
	csc.HandleFunc("wait", func(ctx context.Context, cmd *sal.Command) error {
		d := time.Duration(cmd.Data["duration"].(float64) * float64(time.Second))
		if d >= 0 {
			if err := cmd.InProgress(ctx, d, ""); err != nil {
				return err
			}
		} else {
			d = -d
		}
		select {
		case <-time.After(d):
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	})
	csc.HandleFunc("fault", func(ctx context.Context, cmd *sal.Command) error {
		csc.Logger().Warn("executing the fault command")
		return csc.Fault(ctx, 1, "executing the fault command", "")
	})
	return t, nil
}

// echo writes a command's data to the event (set_write: only if it
// changed) and the telemetry topic of the same name, as TestCsc's
// do_setScalars and do_setArrays.
func (t *TestCSC) echo(cmd, topic string) func(context.Context, *sal.Command) error {
	return func(ctx context.Context, c *sal.Command) error {
		fields := map[string]any{}
		for k, v := range c.Data {
			if !strings.HasPrefix(k, "private_") && k != "salIndex" {
				fields[k] = v
			}
		}
		if _, err := t.MustEvent(topic).SetWrite(ctx, fields, false); err != nil {
			return err
		}
		t.Logger().Info("executing " + cmd)
		_, err := t.MustTelemetry(topic).Write(ctx, fields)
		return err
	}
}

// useBundledConfig points TS_CONFIG_OCS_DIR at a copy of the example's own
// configuration folder when it is not set, and LSST_SITE at "local" when
// it is not set, so that the example runs with nothing installed; it says
// so on stderr.
func useBundledConfig(component string) (cleanup func(), err error) {
	cleanup = func() {}
	if _, ok := os.LookupEnv("LSST_SITE"); !ok {
		os.Setenv("LSST_SITE", "local")
		fmt.Fprintln(os.Stderr, "testcsc: LSST_SITE is not set: using \"local\"")
	}
	if _, ok := os.LookupEnv("TS_CONFIG_OCS_DIR"); ok {
		return cleanup, nil
	}
	dir, err := os.MkdirTemp("", "testcsc-config-")
	if err != nil {
		return cleanup, err
	}
	cleanup = func() { os.RemoveAll(dir) }
	if err := os.CopyFS(filepath.Join(dir, component), bundledConfig()); err != nil {
		cleanup()
		return func() {}, err
	}
	os.Setenv("TS_CONFIG_OCS_DIR", dir)
	fmt.Fprintln(os.Stderr, "testcsc: TS_CONFIG_OCS_DIR is not set: using the example's own configuration, copied to", dir)
	return cleanup, nil
}

// bundledConfig is the example's own configuration folder (v2/...).
func bundledConfig() fs.FS {
	sub, err := fs.Sub(bundled, "config")
	if err != nil {
		panic(err) // the embedded folder is there
	}
	return sub
}
