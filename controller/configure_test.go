package controller_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/lsst-sal/salgo/controller"
	"github.com/lsst-sal/salgo/internal/testbus"
	"github.com/lsst-sal/salgo/internal/wirefixture"
	"github.com/lsst-sal/salgo/remote"
)

// testConfig is the Test CSC's configuration as its schema has it.
type testConfig struct {
	String0   string  `json:"string0"`
	Bool0     bool    `json:"bool0"`
	Int0      int     `json:"int0"`
	Float0    float64 `json:"float0"`
	Intarr0   []int   `json:"intarr0"`
	MultiType any     `json:"multi_type"`
}

// configFolder copies the fixture's Test/v2 configuration folder to
// <tmp>/Example/v2 (the embedded component is named Example) and returns
// <tmp>, the package folder.
func configFolder(t *testing.T) string {
	t.Helper()
	src := wirefixture.Shared(t, "ts_config_ocs", "Test", "v2")
	pkg := t.TempDir()
	dst := filepath.Join(pkg, "Example", "v2")
	if err := os.MkdirAll(dst, 0o755); err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(src, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dst, e.Name()), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return pkg
}

// configurable returns a Configurable of the Test schema whose Configure
// records what it gets.
func configurable(t *testing.T, dir string) (*controller.Configurable, func() []testConfig) {
	t.Helper()
	schema, err := os.ReadFile(wirefixture.Shared(t, "test-csc-config-schema.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	// The schema's title names the component: "Test v2" gives v2.
	var mu sync.Mutex
	var got []testConfig
	return &controller.Configurable{
			Schema: schema, ConfigPkg: "ts_config_ocs", ConfigDir: dir, OtherInfo: "scalars",
			Configure: func(_ context.Context, c *controller.Configuration) error {
				var tc testConfig
				if err := c.Decode(&tc); err != nil {
					return err
				}
				mu.Lock()
				got = append(got, tc)
				mu.Unlock()
				return nil
			},
		}, func() []testConfig {
			mu.Lock()
			defer mu.Unlock()
			return append([]testConfig(nil), got...)
		}
}

// TestCSC_Configurable: the configuration is found through
// TS_CONFIG_OCS_DIR, _init.yaml, _test.yaml and the override are merged
// and validated, Configure gets the values, configurationsAvailable and
// configurationApplied carry what the reference writes; a bad override
// fails start with the reference's text and leaves the state unchanged.
func TestCSC_Configurable(t *testing.T) {
	t.Setenv("LSST_SITE", "test")
	pkg := configFolder(t)
	t.Setenv("TS_CONFIG_OCS_DIR", pkg)
	d := testbus.Domain(t, nil)
	spec, got := configurable(t, "")
	csc := startCSC(t, d, 1, controller.WithConfiguration(*spec))
	r := newRemote(t, d, 1)
	ctx := testbus.Ctx(t)
	dir := filepath.Join(pkg, "Example", "v2")
	url := "file://" + dir

	av, err := r.MustEvent("configurationsAvailable").Next(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for k, want := range map[string]any{"overrides": "all_fields.yaml,empty.yaml,some_fields.yaml", "version": "", "url": url, "schemaVersion": "v2"} {
		if av[k] != want {
			t.Errorf("configurationsAvailable.%s = %q, want %q", k, av[k], want)
		}
	}

	_, err = r.Command(ctx, "start", map[string]any{"configurationOverride": "nosuch.yaml"})
	var ae *remote.AckError
	if want := "Failed: Config file '" + dir + "/nosuch.yaml' does not exist"; !errors.As(err, &ae) || ae.Ack.Result != want {
		t.Errorf("start with a missing override: %v; want %q", err, want)
	}
	_, err = r.Command(ctx, "start", map[string]any{"configurationOverride": "_init.yaml"})
	if want := "Failed: configurationOverride filename='_init.yaml' must not start with '_'"; !errors.As(err, &ae) || ae.Ack.Result != want {
		t.Errorf("start with a reserved name: %v; want %q", err, want)
	}
	if csc.State() != controller.Standby || len(got()) != 0 {
		t.Fatalf("after failed starts: state %s, Configure called %d times", csc.State().Name(), len(got()))
	}
	if rec := r.MustEvent("configurationApplied").Get(); rec != nil {
		t.Errorf("configurationApplied written by a failed start: %v", rec)
	}

	command(t, r, "start", map[string]any{"configurationOverride": "all_fields.yaml"})
	ap, err := r.MustEvent("configurationApplied").Next(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for k, want := range map[string]any{"configurations": "_init.yaml,_test.yaml,all_fields.yaml", "version": "", "url": url, "schemaVersion": "v2", "otherInfo": "scalars"} {
		if ap[k] != want {
			t.Errorf("configurationApplied.%s = %q, want %q", k, ap[k], want)
		}
	}
	cfgs := got()
	want := testConfig{String0: "value from all_fields.yaml", Bool0: false, Int0: -47, Float0: 1.234, Intarr0: []int{0, 2, -3, -5, 4}}
	if len(cfgs) != 1 || cfgs[0].String0 != want.String0 || cfgs[0].Int0 != want.Int0 || cfgs[0].Float0 != want.Float0 || len(cfgs[0].Intarr0) != 5 || cfgs[0].MultiType != nil || cfgs[0].Bool0 {
		t.Errorf("Configure got %+v, want %+v", cfgs, want)
	}
}

// TestCSC_ConfigDirAndErrors: an explicit folder is used as given; a
// missing LSST_SITE, a missing folder and a bad schema title are refused
// at construction with the reference's texts.
func TestCSC_ConfigDirAndErrors(t *testing.T) {
	pkg := configFolder(t)
	d := testbus.Domain(t, nil)
	spec, got := configurable(t, filepath.Join(pkg, "Example", "v2"))
	t.Setenv("LSST_SITE", "summit")
	t.Setenv("TS_CONFIG_OCS_DIR", "")
	csc := startCSC(t, d, 1, controller.WithConfiguration(*spec))
	r := newRemote(t, d, 1)
	command(t, r, "start", nil)
	if c := got(); len(c) != 1 || c[0].String0 != "value from site=summit" {
		t.Errorf("Configure got %+v, want the summit site's string0", c)
	}
	if csc.State() != controller.Disabled {
		t.Errorf("state %s after start", csc.State().Name())
	}

	os.Unsetenv("LSST_SITE")
	if _, err := controller.NewCSC(d, "Example", 2, controller.WithConfiguration(*spec)); err == nil || err.Error() != "Environment variable $LSST_SITE not defined." {
		t.Errorf("no LSST_SITE: %v", err)
	}
	t.Setenv("LSST_SITE", "test")
	bad := *spec
	bad.ConfigDir = filepath.Join(pkg, "nosuch")
	if _, err := controller.NewCSC(d, "Example", 2, controller.WithConfiguration(bad)); err == nil || !strings.Contains(err.Error(), "does not exist or is not a directory") {
		t.Errorf("missing folder: %v", err)
	}
	bad = *spec
	bad.Schema = []byte("title: Testv2\ntype: object\n")
	if _, err := controller.NewCSC(d, "Example", 2, controller.WithConfiguration(bad)); err == nil || !strings.Contains(err.Error(), "must end with ' v<version>'") {
		t.Errorf("bad schema title: %v", err)
	}
}

// TestCSC_InitialStateThroughTransitions: a CSC started with initial state
// ENABLED gets there through start (with the override, so Configure runs
// once) and enable, writing each summaryState, as the reference does.
func TestCSC_InitialStateThroughTransitions(t *testing.T) {
	t.Setenv("LSST_SITE", "test")
	pkg := configFolder(t)
	d := testbus.Domain(t, nil)
	spec, got := configurable(t, filepath.Join(pkg, "Example", "v2"))
	r, err := remote.New(d, "Example", 1)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if err := r.Start(testbus.Ctx(t)); err != nil {
		t.Fatal(err)
	}
	csc := startCSC(t, d, 1, controller.WithConfiguration(*spec), controller.WithInitialState(controller.Enabled), controller.WithOverride("some_fields.yaml"))
	for _, want := range []controller.State{controller.Standby, controller.Disabled, controller.Enabled} {
		if s := nextState(t, r); s != want {
			t.Fatalf("summaryState %s, want %s", s.Name(), want.Name())
		}
	}
	if csc.State() != controller.Enabled {
		t.Errorf("state %s", csc.State().Name())
	}
	if c := got(); len(c) != 1 || c[0].String0 != "value from some_fields.yaml" {
		t.Errorf("Configure calls %+v, want one with some_fields.yaml's values", c)
	}
	// Next, not Get: configurationApplied is another topic than
	// summaryState and may be handed over after ENABLED.
	ap, err := r.MustEvent("configurationApplied").Next(testbus.Ctx(t))
	if err != nil || ap["configurations"] != "_init.yaml,_test.yaml,some_fields.yaml" {
		t.Errorf("configurationApplied %v, %v", ap, err)
	}
}
