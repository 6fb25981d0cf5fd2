package cscconfig_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lsst-sal/salgo/internal/cscconfig"
	"github.com/lsst-sal/salgo/internal/hostile"
	"github.com/lsst-sal/salgo/internal/pyrepr"
)

// The hostile-bus tests: the start command's configurationOverride names
// the file to read and the git reference to read it at; whatever it says,
// only files of the configuration folder are read, git gets no option, and
// the files' YAML is read in bounded time and memory.

const hostileSchema = "title: Hostile v1\ntype: object\nproperties:\n  data: {type: array}\n  text: {type: string}\n"

func newHostile(t *testing.T, files map[string]string) (*cscconfig.Configurator, string) {
	t.Helper()
	dir := writeDir(t, files)
	c, err := cscconfig.New(cscconfig.Options{Component: "Hostile", Schema: []byte(hostileSchema), ConfigDir: dir, LookupEnv: env("LSST_SITE", "test")})
	if err != nil {
		t.Fatal(err)
	}
	return c, dir
}

func TestHostile_BombFileRefused(t *testing.T) {
	c, dir := newHostile(t, map[string]string{"_init.yaml": "", "bomb.yaml": hostile.Laughs(9, "data")})
	var err error
	n := hostile.Allocated(func() { _, _, err = c.Load(context.Background(), "bomb.yaml") })
	path := dir + "/bomb.yaml"
	failText(t, err, "Could not parse data in "+path+" as a dict: "+path+":7: the document expands to more than 1000000 nodes (scalars, sequences and mappings, each use of an alias counted in full): refused, as a YAML bomb", true)
	if n > 1<<20 {
		t.Errorf("refusing a 9-level bomb allocated %d bytes, want < 1 MiB", n)
	}
}

// TestHostile_SharedValuesRead: a six-level bomb (under the limit) is
// read, merged, validated and decoded without being expanded.
func TestHostile_SharedValuesRead(t *testing.T) {
	c, _ := newHostile(t, map[string]string{"_init.yaml": hostile.Laughs(6, "data")})
	var cfg cscconfig.Config
	var err error
	n := hostile.Allocated(func() { cfg, _, err = c.Load(context.Background(), "") })
	if err != nil {
		t.Fatal(err)
	}
	if n > 1<<20 {
		t.Errorf("reading a six-level bomb allocated %d bytes, want < 1 MiB", n)
	}
	data := cfg.Values["data"].([]any)
	if &data[0].([]any)[0] != &data[8].([]any)[0] {
		t.Error("the aliases of data are no longer one list")
	}
	var m map[string]any
	n = hostile.Allocated(func() { err = cfg.Decode(&m) })
	if err != nil {
		t.Fatal(err)
	}
	if n > 1<<20 {
		t.Errorf("Decode into a map allocated %d bytes, want < 1 MiB", n)
	}
	if d := m["data"].([]any); len(d) != 9 || &d[0] == &data[0] {
		t.Error("Decode into a map: want a copy of data")
	}
}

func TestHostile_DeepHugeAndInvalidFiles(t *testing.T) {
	big := strings.Repeat("x", 1<<20)
	c, dir := newHostile(t, map[string]string{
		"_init.yaml": "",
		"deep.yaml":  "data: " + strings.Repeat("[", 100000) + "\n",
		"huge.yaml":  "text: " + big + "\ndata: [" + strings.Repeat("0, ", 99999) + "0]\n",
		"utf8.yaml":  "text: \xff\n",
	})
	ctx := context.Background()
	var err error
	n := hostile.Allocated(func() { _, _, err = c.Load(ctx, "deep.yaml") })
	failText(t, err, "Could not parse data in "+dir+"/deep.yaml as a dict: "+dir+"/deep.yaml:1: exceeded max depth of 10000", true)
	if n > 8<<20 {
		t.Errorf("100000 nested lists: allocated %d bytes", n)
	}
	var cfg cscconfig.Config
	n = hostile.Allocated(func() { cfg, _, err = c.Load(ctx, "huge.yaml") })
	if err != nil || cfg.Values["text"] != big || len(cfg.Values["data"].([]any)) != 100000 {
		t.Fatalf("a 1 MiB string and 100000 items: %v", err)
	}
	if n > 64<<20 {
		t.Errorf("a 1.3 MB file: allocated %d bytes, want < 64 MiB", n)
	}
	_, _, err = c.Load(ctx, "utf8.yaml")
	failText(t, err, "'utf-8' codec can't decode byte 0xff in position 6: invalid start byte", false)
}

// TestHostile_OverrideOutsideFolder: salobj reads whatever path the
// override names (its ack then quotes the file); here a name that leaves
// the folder, by "..", an absolute path or a symlink, is refused before
// anything is read.
func TestHostile_OverrideOutsideFolder(t *testing.T) {
	outside := t.TempDir()
	secret := filepath.Join(outside, "secret.yaml")
	if err := os.WriteFile(secret, []byte("TOPSECRET line\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	c, dir := newHostile(t, map[string]string{"_init.yaml": "", "ok.yaml": "text: fine\n", "sub/inner.yaml": "text: inner\n"})
	for _, link := range []struct{ name, target string }{
		{"link.yaml", secret}, {"out", outside}, {"inside.yaml", "ok.yaml"}, {"sublink", "sub"},
	} {
		if err := os.Symlink(link.target, filepath.Join(dir, link.name)); err != nil {
			t.Skipf("no symlinks here: %v", err)
		}
	}
	rel, err := filepath.Rel(dir, secret)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for _, name := range []string{rel, "sub/../" + rel, secret, "/etc/passwd", "link.yaml", "out/secret.yaml", "sublink/../" + rel,
		// Lexically inside, but ".." after a symlink is the target's parent.
		"out/../" + filepath.Base(outside) + "/secret.yaml"} {
		var err error
		n := hostile.Allocated(func() { _, _, err = c.Load(ctx, name) })
		failText(t, err, "configurationOverride filename='"+name+"' is outside config_dir="+dir, true)
		if n > 64<<10 {
			t.Errorf("%s: allocated %d bytes", name, n)
		}
	}
	for name, want := range map[string]string{"ok.yaml": "fine", "inside.yaml": "fine", "sub/inner.yaml": "inner", "sublink/inner.yaml": "inner", "sub/../ok.yaml": "fine"} {
		cfg, _, err := c.Load(ctx, name)
		if err != nil || cfg.Values["text"] != want {
			t.Errorf("%s: %v, %v; want text %q", name, cfg.Values, err, want)
		}
	}
}

// TestHostile_GitRefs: a reference that git could take as an option, or
// that is not a reference, is refused before git runs.
func TestHostile_GitRefs(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	c, dir := newHostile(t, map[string]string{"_init.yaml": "text: init\n"})
	git(t, dir, "init", "-q")
	git(t, dir, "add", ".")
	git(t, dir, "commit", "-qm", "one")
	out := filepath.Join(t.TempDir(), "written")
	ctx := context.Background()
	for ref, why := range map[string]string{
		"-p":                      "it starts with '-'",
		"--output=" + out:         "it starts with '-'",
		"HEAD --":                 "it contains a space or a control character",
		"HEAD\n":                  "it contains a space or a control character",
		"b:c":                     "it contains one of : ? * [ \\",
		"HEAD..HEAD":              "it contains '..'",
		"refs/*":                  "it contains one of : ? * [ \\",
		"--end-of-options":        "it starts with '-'",
		"-c core.pager=touch /x ": "it starts with '-'",
	} {
		var err error
		n := hostile.Allocated(func() { _, _, err = c.Load(ctx, ":"+ref) })
		want := "configurationOverride git reference " + pyrepr.String(strings.ToValidUTF8(ref, "\uFFFD")) + " is not valid: " + why
		failText(t, err, want, true)
		if n > 64<<10 {
			t.Errorf("%q: allocated %d bytes", ref, n)
		}
		_, err = c.Read(ctx, []string{"_init.yaml"}, ref)
		failText(t, err, want, true)
	}
	_, _, err := c.Load(ctx, "x\xff.yaml:\xffHEAD")
	failText(t, err, "configurationOverride='x\ufffd.yaml:\ufffdHEAD' is not valid UTF-8", true)
	_, err = c.Read(ctx, []string{"_init.yaml"}, "\xffHEAD")
	failText(t, err, "configurationOverride git reference '\ufffdHEAD' is not valid: it is not valid UTF-8", true)
	if matches, _ := filepath.Glob(out + "*"); len(matches) != 0 {
		t.Errorf("git wrote %v", matches)
	}
	for _, ref := range []string{"HEAD", "HEAD~0", "HEAD^{commit}", "master@{0}"} {
		if ref == "master@{0}" {
			ref = git(t, dir, "rev-parse", "--abbrev-ref", "HEAD") + "@{0}"
		}
		cfg, _, err := c.Load(ctx, ":"+ref)
		if err != nil || cfg.Values["text"] != "init" {
			t.Errorf("%s: %v, %v", ref, cfg.Values, err)
		}
	}
}
