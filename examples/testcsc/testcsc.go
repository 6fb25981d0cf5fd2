package main

import (
	"context"
	"embed"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/lsst-sal/salgo/controller"
	"github.com/lsst-sal/salgo/examples/gen/example"
	"github.com/lsst-sal/salgo/sal"
	"github.com/lsst-sal/salgo/topics"
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
//
// Its handlers are written once, on the typed records of the Example
// component (package examples/gen/example, which carries Example's
// definition, so the program needs no TS_XML_DIR). Serving Example, they
// use the typed CSC; serving ts_xml's Test, whose topics have the same
// fields, the same records go through the map API (FromMap, ToMap).
type TestCSC struct {
	*sal.CSC
	typed  *example.CSC // nil when serving Test
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
	opts = append([]sal.CSCOption{
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
	}, opts...)
	var handled []error
	if Component(b) == "Test" {
		csc, err := b.NewCSC("Test", index, opts...)
		if err != nil {
			return nil, err
		}
		t.CSC = csc
		handled = []error{ // the typed handlers, serving Test
			csc.HandleFunc("setScalars", controller.RecordHandler(t.setScalars)),
			csc.HandleFunc("setArrays", controller.RecordHandler(t.setArrays)),
			csc.HandleFunc("wait", controller.RecordHandler(t.wait)),
			csc.HandleFunc("fault", controller.RecordHandler(t.fault)),
		}
	} else {
		csc, err := example.NewCSC(b.Domain, index, opts...)
		if err != nil {
			return nil, err
		}
		t.CSC, t.typed = csc.CSC, csc
		handled = []error{
			csc.HandleSetScalars(t.setScalars),
			csc.HandleSetArrays(t.setArrays),
			csc.HandleWait(t.wait),
			csc.HandleFault(t.fault),
		}
	}
	for _, err := range handled {
		if err != nil {
			t.CSC.Close()
			return nil, err
		}
	}
	return t, nil
}

// setScalars writes the command's data to the scalars event (set_write:
// only if it changed) and telemetry, as TestCsc's do_setScalars.
func (t *TestCSC) setScalars(ctx context.Context, cmd *sal.Command, data *example.CmdSetScalars) error {
	evt, tel := example.EvtScalars(*data), example.Scalars(*data)
	evt.Private, tel.Private = topics.Private{}, topics.Private{}
	var ev *topics.TypedWriter[*example.EvtScalars]
	var tw *topics.TypedWriter[*example.Scalars]
	if t.typed != nil {
		ev, tw = t.typed.EvtScalars(), t.typed.Scalars()
	}
	return echo(ctx, t, "setScalars", "scalars", ev, &evt, tw, &tel)
}

// setArrays writes the command's data to the arrays event (set_write) and
// telemetry, as TestCsc's do_setArrays.
func (t *TestCSC) setArrays(ctx context.Context, cmd *sal.Command, data *example.CmdSetArrays) error {
	evt, tel := example.EvtArrays(*data), example.Arrays(*data)
	evt.Private, tel.Private = topics.Private{}, topics.Private{}
	var ev *topics.TypedWriter[*example.EvtArrays]
	var tw *topics.TypedWriter[*example.Arrays]
	if t.typed != nil {
		ev, tw = t.typed.EvtArrays(), t.typed.Arrays()
	}
	return echo(ctx, t, "setArrays", "arrays", ev, &evt, tw, &tel)
}

// wait sends CMD_INPROGRESS with the duration and completes after it; a
// negative duration waits as long without CMD_INPROGRESS.
func (t *TestCSC) wait(ctx context.Context, cmd *sal.Command, data *example.CmdWait) error {
	d := time.Duration(data.Duration * float64(time.Second))
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
}

// fault goes to FAULT with error code 1.
func (t *TestCSC) fault(ctx context.Context, cmd *sal.Command, _ *example.CmdFault) error {
	t.Logger().Warn("executing the fault command")
	return t.Fault(ctx, 1, "executing the fault command", "")
}

// echo writes evt to the event topic (set_write: only if it changed) and
// tel to the telemetry topic: with the typed writers ev and tw when the
// CSC serves Example, else (ev and tw nil: Test) as maps with the CSC's
// writers of those names.
func echo[E, T topics.Record](ctx context.Context, t *TestCSC, cmd, topic string, ev *topics.TypedWriter[E], evt E, tw *topics.TypedWriter[T], tel T) error {
	if ev != nil {
		if _, err := ev.SetWrite(ctx, evt, false); err != nil {
			return err
		}
	} else if _, err := t.MustEvent(topic).SetWrite(ctx, toMap(evt), false); err != nil {
		return err
	}
	t.Logger().Info("executing " + cmd)
	var err error
	if tw != nil {
		_, err = tw.Write(ctx, tel)
	} else {
		_, err = t.MustTelemetry(topic).Write(ctx, toMap(tel))
	}
	return err
}

// toMap is rec's user fields as a map record.
func toMap(rec topics.Record) map[string]any {
	m := map[string]any{}
	rec.ToMap(m, false)
	return m
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
