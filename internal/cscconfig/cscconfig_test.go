package cscconfig_test

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/lsst-sal/salgo/internal/cscconfig"

	"github.com/lsst-sal/salgo/internal/wirefixture"
)

// ocsFixtures is the ts_config_ocs fixture folder, or skips t.
func ocsFixtures(t *testing.T) string { return wirefixture.Shared(t, "ts_config_ocs") }

func testSchema(t *testing.T) []byte {
	t.Helper()
	b, err := os.ReadFile(wirefixture.Shared(t, "test-csc-config-schema.yaml"))
	if err != nil {
		t.Skipf("fixture missing: %v", err)
	}
	return b
}

// env is a fake environment for Options.LookupEnv.
func env(kv ...string) func(string) (string, bool) {
	m := map[string]string{}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	return func(k string) (string, bool) { v, ok := m[k]; return v, ok }
}

func newTest(t *testing.T, site, dir string) *cscconfig.Configurator {
	t.Helper()
	c, err := cscconfig.New(cscconfig.Options{
		Component: "Test", Schema: testSchema(t), ConfigPkg: "ts_config_ocs", ConfigDir: dir,
		LookupEnv: env("LSST_SITE", site, "TS_CONFIG_OCS_DIR", ocsFixtures(t)),
	})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func failText(t *testing.T, err error, want string, expected bool) {
	t.Helper()
	var ce *cscconfig.Error
	if !errors.As(err, &ce) {
		t.Fatalf("got %v, want the *cscconfig.Error %q", err, want)
	}
	if ce.Error() != want {
		t.Errorf("text\n got %q\nwant %q", ce.Error(), want)
	}
	if ce.Expected() != expected || cscconfig.IsExpected(err) != expected {
		t.Errorf("%q: Expected() = %v, want %v (kind %s)", want, ce.Expected(), expected, ce.Kind)
	}
}

// TestFixtureMergesAsSalobj checks the values salobj-csc.md §1.10 lists for
// the ts_config_ocs Test/v2 folder, for each site and override.
func TestFixtureMergesAsSalobj(t *testing.T) {
	base := map[string]any{
		"bool0": true, "int0": int64(5), "float0": 3.14, "intarr0": []any{int64(-1), int64(1)}, "multi_type": nil,
	}
	with := func(kv ...any) map[string]any {
		m := map[string]any{}
		for k, v := range base {
			m[k] = v
		}
		for i := 0; i < len(kv); i += 2 {
			m[kv[i].(string)] = kv[i+1]
		}
		return m
	}
	arr := []any{int64(0), int64(2), int64(-3), int64(-5), int64(4)}
	cases := []struct {
		site, override, configurations string
		values                         map[string]any
	}{
		{"test", "", "_init.yaml,_test.yaml", with("string0", "value from site=test")},
		{"test", "all_fields.yaml", "_init.yaml,_test.yaml,all_fields.yaml",
			with("string0", "value from all_fields.yaml", "bool0", false, "int0", int64(-47), "float0", 1.234, "intarr0", arr)},
		{"test", "some_fields.yaml", "_init.yaml,_test.yaml,some_fields.yaml", with("string0", "value from some_fields.yaml", "intarr0", arr)},
		{"test", "empty.yaml", "_init.yaml,_test.yaml,empty.yaml", with("string0", "value from site=test")},
		{"summit", "", "_init.yaml,_summit.yaml", with("string0", "value from site=summit")},
		{"summit", "all_fields.yaml", "_init.yaml,_summit.yaml,all_fields.yaml",
			with("string0", "value from all_fields.yaml", "bool0", false, "int0", int64(-47), "float0", 1.234, "intarr0", arr)},
		{"base", "", "_init.yaml", with("string0", "default value for string0")},
		{"base", "some_fields.yaml", "_init.yaml,some_fields.yaml", with("string0", "value from some_fields.yaml", "intarr0", arr)},
	}
	for _, c := range cases {
		conf := newTest(t, c.site, "")
		cfg, plan, err := conf.Load(context.Background(), c.override)
		if err != nil {
			t.Errorf("site %s, override %q: %v", c.site, c.override, err)
			continue
		}
		if got := cfg.Configurations(); got != c.configurations || strings.Join(plan.Files, ",") != c.configurations {
			t.Errorf("site %s, override %q: configurations %q (plan %v), want %q", c.site, c.override, got, plan.Files, c.configurations)
		}
		if !reflect.DeepEqual(cfg.Values, c.values) {
			t.Errorf("site %s, override %q:\n got %v\nwant %v", c.site, c.override, cfg.Values, c.values)
		}
	}
}

func TestEnvVarAndExplicitDir(t *testing.T) {
	want := filepath.Join(ocsFixtures(t), "Test", "v2")
	if r, err := filepath.EvalSymlinks(want); err == nil {
		want = r
	}
	fromEnv := newTest(t, "test", "")
	explicit := newTest(t, "test", want)
	for name, c := range map[string]*cscconfig.Configurator{"TS_CONFIG_OCS_DIR": fromEnv, "ConfigDir": explicit} {
		if c.Dir() != want || c.URL() != "file://"+want || c.SchemaVersion() != "v2" || c.Site() != "test" {
			t.Errorf("%s: Dir %q URL %q SchemaVersion %q Site %q", name, c.Dir(), c.URL(), c.SchemaVersion(), c.Site())
		}
	}
	if cscconfig.EnvVar("ts_config_mttcs") != "TS_CONFIG_MTTCS_DIR" {
		t.Errorf("EnvVar: %s", cscconfig.EnvVar("ts_config_mttcs"))
	}
}

func TestConstructionErrors(t *testing.T) {
	schema := testSchema(t)
	tmp := t.TempDir()
	notDir := filepath.Join(tmp, "file")
	if err := os.WriteFile(notDir, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	badTitle := strings.Replace(string(schema), "title: Test v2", "title: Testv2", 1)
	cases := []struct {
		name   string
		opts   cscconfig.Options
		want   string
		prefix bool
	}{
		{"no LSST_SITE", cscconfig.Options{Schema: schema, ConfigDir: tmp, LookupEnv: env()},
			"Environment variable $LSST_SITE not defined.", false},
		{"bad title", cscconfig.Options{Schema: []byte(badTitle), ConfigDir: tmp, LookupEnv: env("LSST_SITE", "test")},
			`Schema {'$schema': 'http://json-schema.org/draft-07/schema#', '$id': 'https://github.com/lsst-ts/ts_salobj/blob/main/python/lsst/ts/salobj/config_schema.py', 'title': 'Testv2', `, true},
		{"no title", cscconfig.Options{Schema: []byte("type: object\n"), ConfigDir: tmp, LookupEnv: env("LSST_SITE", "test")},
			"Schema {'type': 'object'} invalid: KeyError('title')", false},
		{"title not v", cscconfig.Options{Schema: []byte("title: Test 2\n"), ConfigDir: tmp, LookupEnv: env("LSST_SITE", "test")},
			`Schema {'title': 'Test 2'} invalid: ValueError("Schema title 'Test 2' must end with ' v<version>'")`, false},
		{"env unset", cscconfig.Options{Component: "Test", Schema: schema, ConfigPkg: "ts_config_ocs", LookupEnv: env("LSST_SITE", "test")},
			"Environment variable TS_CONFIG_OCS_DIR not defined", false},
		{"env not a dir", cscconfig.Options{Component: "Test", Schema: schema, ConfigPkg: "ts_config_ocs", LookupEnv: env("LSST_SITE", "test", "TS_CONFIG_OCS_DIR", notDir)},
			"PosixPath('" + notDir + "') = $TS_CONFIG_OCS_DIR does not exists or is not a directory", false},
		{"no component folder", cscconfig.Options{Component: "Nope", Schema: schema, ConfigPkg: "ts_config_ocs", LookupEnv: env("LSST_SITE", "test", "TS_CONFIG_OCS_DIR", tmp)},
			tmp + "/Nope/v2 = $TS_CONFIG_OCS_DIR/SAL_component_name/schema_version does not exist or is not a directory", false},
		{"explicit not a dir", cscconfig.Options{Schema: schema, ConfigDir: "rel/nosuch", LookupEnv: env("LSST_SITE", "test")},
			"config_dir=rel/nosuch does not exist or is not a directory", false},
	}
	for _, c := range cases {
		_, err := cscconfig.New(c.opts)
		var ce *cscconfig.Error
		if !errors.As(err, &ce) || ce.Expected() {
			t.Errorf("%s: got %v, want a plain (not Expected) *cscconfig.Error", c.name, err)
			continue
		}
		if c.prefix && !strings.HasPrefix(ce.Msg, c.want) || !c.prefix && ce.Msg != c.want {
			t.Errorf("%s:\n got %q\nwant %q", c.name, ce.Msg, c.want)
		}
	}
	_, err := cscconfig.New(cscconfig.Options{Schema: []byte(badTitle), ConfigDir: tmp, LookupEnv: env("LSST_SITE", "test")})
	if !strings.HasSuffix(err.Error(), `'additionalProperties': False} invalid: ValueError("Schema title 'Testv2' must end with ' v<version>'")`) {
		t.Errorf("bad title: %v", err)
	}
}

// writeDir makes a config folder from name → content.
func writeDir(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, text := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	r, err := filepath.EvalSymlinks(dir)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

const goodInit = "metadata:\n  note: ignored\nstring0: init\nbool0: true\nint0: 5\nfloat0: 3.14\nintarr0: [-1, 1]\nmulti_type: null\n"

func TestStartFailuresHaveSalobjTexts(t *testing.T) {
	dir := writeDir(t, map[string]string{
		"_init.yaml":       goodInit,
		"wrong_type.yaml":  "string0: 0\n",
		"extra.yaml":       "string0: x\nunwanted: present\n",
		"scalar.yaml":      "# not a mapping\n1.5\n",
		"syntax.yaml":      "string0: [a, b\n",
		"multi.yaml":       "multi_type: 0\n",
		"list_in_arr.yaml": "intarr0: [1, a]\n",
		"to_dict.yaml":     "int0: {a: 1}\n",
		"from_dict.yaml":   "metadata: 3\n",
		"aliens.yml":       "string0: from a .yml file\n",
	})
	c := newTest(t, "test", dir)
	ctx := context.Background()
	cases := []struct {
		override, want string
		expected       bool
	}{
		{"nosuch.yaml", "Config file '" + dir + "/nosuch.yaml' does not exist", true},
		{"all_fields", "Config file '" + dir + "/all_fields' does not exist", true},
		{"_init.yaml", "configurationOverride filename='_init.yaml' must not start with '_'", true},
		{"wrong_type.yaml", `Configuration failed validation: <ValidationError: "0 is not of type 'string'">`, true},
		{"extra.yaml", `Configuration failed validation: <ValidationError: "Additional properties are not allowed ('unwanted' was unexpected)">`, true},
		{"multi.yaml", `Configuration failed validation: <ValidationError: '0 is not valid under any of the given schemas'>`, true},
		{"list_in_arr.yaml", `Configuration failed validation: <ValidationError: "'a' is not of type 'integer'">`, true},
		{"scalar.yaml", "scalar.yaml=1.5 is not a dict", false},
		{"to_dict.yaml", "config[int0]=5 is not a dict", false},
		{"from_dict.yaml", "config[metadata]={'note': 'ignored'} is a dict, but from_dict.yaml[metadata] = 3 is not", false},
		{"sub/../extra.yaml", "Config file '" + dir + "/sub/../extra.yaml' does not exist", true},
	}
	for _, cs := range cases {
		_, _, err := c.Load(ctx, cs.override)
		failText(t, err, cs.want, cs.expected)
	}
	_, _, err := c.Load(ctx, "syntax.yaml")
	if !cscconfig.IsExpected(err) || !strings.HasPrefix(err.Error(), "Could not parse data in "+dir+"/syntax.yaml as a dict: "+dir+"/syntax.yaml:1: ") {
		t.Errorf("syntax error: %v", err)
	}
	if cfg, _, err := c.Load(ctx, "aliens.yml"); err != nil || cfg.Values["string0"] != "from a .yml file" {
		t.Errorf("a .yml override is readable by name: %v, %v", cfg.Values, err)
	}
	if _, err := c.Read(ctx, []string{"_init.yaml", "", "extra.yaml"}, ""); err == nil || !strings.Contains(err.Error(), "unwanted") {
		t.Errorf("Read skips empty names: %v", err)
	}
}

func TestIncompleteAndMissingInit(t *testing.T) {
	ctx := context.Background()
	noInit := newTest(t, "test", writeDir(t, map[string]string{"x.yaml": "string0: a\n"}))
	_, _, err := noInit.Load(ctx, "")
	failText(t, err, "Config file '"+noInit.Dir()+"/_init.yaml' does not exist", true)

	siteDir := writeDir(t, map[string]string{"_init.yaml": "string0: only this\n", "_test.yaml": "bool0: true\nint0: 5\nfloat0: 3.14\nintarr0: []\nmulti_type: x\n"})
	if _, _, err := newTest(t, "test", siteDir).Load(ctx, ""); err != nil {
		t.Errorf("with the site file: %v", err)
	}
	_, _, err = newTest(t, "no_such_site", siteDir).Load(ctx, "")
	failText(t, err, `Configuration failed validation: <ValidationError: "'bool0' is a required property">`, true)

	_, _, err = newTest(t, "test", writeDir(t, map[string]string{"_init.yaml": ""})).Load(ctx, "")
	failText(t, err, `Configuration failed validation: <ValidationError: "'string0' is a required property">`, true)

	empty := newTest(t, "", writeDir(t, map[string]string{"_init.yaml": goodInit, "_.yaml": "string0: empty site\n"}))
	if cfg, _, err := empty.Load(ctx, ""); err != nil || cfg.Configurations() != "_init.yaml,_.yaml" {
		t.Errorf("LSST_SITE empty reads _.yaml: %v, %v", cfg.Configurations(), err)
	}
}

func TestPlanLogMessage(t *testing.T) {
	c := newTest(t, "test", "")
	p, err := c.Plan("some_fields.yaml:b~1")
	if err != nil {
		t.Fatal(err)
	}
	want := "Reading configuration from config_dir" + c.Dir() + ", git_hash='b~1', files=['_init.yaml', '_test.yaml', 'some_fields.yaml']"
	if p.GitRef != "b~1" || p.LogMessage != want {
		t.Errorf("plan %+v\nwant log %q", p, want)
	}
}

func TestAvailableAndAppliedWithoutGit(t *testing.T) {
	dir := writeDir(t, map[string]string{
		"_init.yaml": goodInit, "_test.yaml": "string0: site\n", "b.yaml": "", "A.yaml": "", ".hidden.yaml": "",
		"x.yml": "", "noext": "", "folder.yaml/inner.yaml": "",
	})
	c, err := cscconfig.New(cscconfig.Options{Schema: testSchema(t), ConfigDir: dir, OtherInfo: "a,b", LookupEnv: env("LSST_SITE", "test")})
	if err != nil {
		t.Fatal(err)
	}
	av, err := c.Available(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	want := cscconfig.Available{
		Overrides: ".hidden.yaml,A.yaml,b.yaml,folder.yaml", Version: "", URL: "file://" + dir, SchemaVersion: "v2",
		GitWarning: "Could not get git info for config_dir=" + dir,
	}
	if av != want {
		t.Errorf("Available\n got %+v\nwant %+v", av, want)
	}
	cfg, _, err := c.Load(context.Background(), "b.yaml")
	if err != nil {
		t.Fatal(err)
	}
	ap := c.Applied(cfg)
	wantAp := cscconfig.Applied{Configurations: "_init.yaml,_test.yaml,b.yaml", Version: "", URL: "file://" + dir, SchemaVersion: "v2", OtherInfo: "a,b"}
	if ap != wantAp {
		t.Errorf("Applied\n got %+v\nwant %+v", ap, wantAp)
	}
	emptyDir := newTest(t, "test", writeDir(t, nil))
	if av, _ := emptyDir.Available(context.Background()); av.Overrides != "" {
		t.Errorf("empty folder: overrides %q", av.Overrides)
	}
}

func TestURLIsPercentEncoded(t *testing.T) {
	base := writeDir(t, map[string]string{"a b,é/_init.yaml": goodInit})
	c := newTest(t, "test", filepath.Join(base, "a b,é"))
	if want := "file://" + base + "/a%20b%2C%C3%A9"; c.URL() != want {
		t.Errorf("URL %q, want %q", c.URL(), want)
	}
}

func git(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-c", "user.email=t@example.com", "-c", "user.name=t", "-c", "commit.gpgsign=false"}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "HOME="+dir)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

func TestGitVersionAndRefs(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	dir := writeDir(t, map[string]string{"_init.yaml": goodInit, "over.yaml": "string0: first\n"})
	git(t, dir, "init", "-q", "-b", "develop")
	git(t, dir, "add", ".")
	git(t, dir, "commit", "-qm", "one")
	first := git(t, dir, "rev-parse", "--short", "HEAD")
	if err := os.WriteFile(filepath.Join(dir, "over.yaml"), []byte("string0: second\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	git(t, dir, "commit", "-qam", "two")
	second := git(t, dir, "rev-parse", "--short", "HEAD")

	c := newTest(t, "test", dir)
	ctx := context.Background()
	av, err := c.Available(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if want := "heads/develop-0-g" + second; av.Version != want || av.GitWarning != "" {
		t.Errorf("version %q (warning %q), want %q", av.Version, av.GitWarning, want)
	}

	if err := os.WriteFile(filepath.Join(dir, "over.yaml"), []byte("string0: working tree\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	av, _ = c.Available(ctx)
	if want := "heads/develop-0-g" + second + "-dirty"; av.Version != want {
		t.Errorf("after an edit: version %q, want %q", av.Version, want)
	}

	for override, want := range map[string]string{
		"over.yaml":          "working tree",
		"over.yaml:HEAD":     "second",
		"over.yaml:HEAD~1":   "first",
		"over.yaml:" + first: "first",
		":HEAD~1":            "init",
	} {
		cfg, _, err := c.Load(ctx, override)
		if err != nil {
			t.Errorf("%s: %v", override, err)
			continue
		}
		if cfg.Values["string0"] != want {
			t.Errorf("%s: string0 %q, want %q", override, cfg.Values["string0"], want)
		}
		if ap := c.Applied(cfg); ap.Version != av.Version || strings.Contains(ap.Configurations, ":") {
			t.Errorf("%s: Applied %+v: the version is the working tree's and the ref is not listed", override, ap)
		}
	}
	_, _, err = c.Load(ctx, "over.yaml:nosuchref")
	failText(t, err, "Could not read config file "+dir+"/_init.yaml with git hash nosuchref: b\"fatal: invalid object name 'nosuchref'.\\n\"", true)

	// A file in the working tree only: it exists, but not at the ref.
	if err := os.WriteFile(filepath.Join(dir, "new.yaml"), []byte("string0: new\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, _, err = c.Load(ctx, "new.yaml:HEAD")
	if want := "Could not read config file " + dir + "/new.yaml with git hash HEAD: b\"fatal: path 'new.yaml' "; !cscconfig.IsExpected(err) || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("got %v, want an ExpectedError starting %q (the rest is git's wording)", err, want)
	}
	// A file at the ref only: it must exist in the working tree.
	if err := os.Remove(filepath.Join(dir, "over.yaml")); err != nil {
		t.Fatal(err)
	}
	_, _, err = c.Load(ctx, "over.yaml:HEAD")
	failText(t, err, "Config file '"+dir+"/over.yaml' does not exist", true)
}

func TestMergeSemantics(t *testing.T) {
	dir := writeDir(t, map[string]string{
		"_init.yaml": goodInit,
		"deep.yaml":  "multi_type: null\nintarr0: [3]\n",
	})
	c := newTest(t, "test", dir)
	cfg, err := c.Read(context.Background(), []string{"_init.yaml", "deep.yaml"}, "")
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(cfg.Values["intarr0"], []any{int64(3)}) {
		t.Errorf("lists are replaced whole: %v", cfg.Values["intarr0"])
	}
}

func TestDecode(t *testing.T) {
	c := newTest(t, "test", "")
	cfg, _, err := c.Load(context.Background(), "all_fields.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var s struct {
		String0   string `json:"string0"`
		Bool0     bool
		Int0      int
		Float0    float64
		Intarr0   []int
		MultiType *string `json:"multi_type"`
	}
	if err := cfg.Decode(&s); err != nil {
		t.Fatal(err)
	}
	if s.String0 != "value from all_fields.yaml" || s.Bool0 || s.Int0 != -47 || s.Float0 != 1.234 ||
		!reflect.DeepEqual(s.Intarr0, []int{0, 2, -3, -5, 4}) || s.MultiType != nil {
		t.Errorf("Decode: %+v", s)
	}
	var m map[string]any
	if err := cfg.Decode(&m); err != nil || m["int0"] != int64(-47) {
		t.Errorf("Decode into a map: %v, %v", m, err)
	}
	m["int0"] = 0
	if cfg.Values["int0"] != int64(-47) {
		t.Error("Decode into a map shares the configuration")
	}
}

func TestConcurrentReadsAndStarts(t *testing.T) {
	c := newTest(t, "test", "")
	ctx := context.Background()
	done := make(chan error, 8)
	for i := 0; i < 4; i++ {
		go func() { _, err := c.Available(ctx); done <- err }()
		go func() {
			cfg, _, err := c.Load(ctx, "all_fields.yaml")
			if err == nil {
				_ = c.Applied(cfg)
			}
			done <- err
		}()
	}
	for i := 0; i < 8; i++ {
		if err := <-done; err != nil {
			t.Error(err)
		}
	}
}
