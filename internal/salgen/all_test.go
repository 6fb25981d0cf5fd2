package salgen_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lsst-sal/salgo/internal/salgen"
	salxml "github.com/lsst-sal/salgo/xml"
)

// scratchModule is the module path of the modules the tests generate into:
// under salgo's internal/, so that their tests may use
// internal/salgen/recordtest.
const scratchModule = "github.com/lsst-sal/salgo/internal/salgen/scratch"

// newScratch makes a module in a new temporary folder that requires the
// SDK from this checkout, and returns the folder.
func newScratch(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	mod := fmt.Sprintf("module %s\n\ngo 1.26\n\nrequire github.com/lsst-sal/salgo v0.0.0\n\nreplace github.com/lsst-sal/salgo => %s\n", scratchModule, root)
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte(mod), 0o644); err != nil {
		t.Fatal(err)
	}
	sum, err := os.ReadFile(filepath.Join(root, "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "go.sum"), sum, 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// goCmd runs the go command in dir and returns its combined output.
func goCmd(ctx context.Context, dir string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, "go", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod -trimpath", "GOWORK=off")
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// sampled are the components whose generated records are checked against
// the map codec in the all-components test: the largest, the camera with
// .avsc topics, the test component, and a few ordinary ones.
var sampled = []string{"MTM1M3", "MTMount", "MTCamera", "Test", "ATDome", "Scheduler"}

const recordsTest = `package %[1]s_test

import (
	"testing"

	"github.com/lsst-sal/salgo/internal/leaktest"
	"github.com/lsst-sal/salgo/internal/salgen/recordtest"
	"%[2]s/%[1]s"
)

func TestMain(m *testing.M) { leaktest.VerifyTestMain(m) }

func TestRecords(t *testing.T) {
	c, err := %[1]s.Definition()
	if err != nil {
		t.Fatal(err)
	}
	if c.Name != %[1]s.Name {
		t.Fatalf("Definition is of %%s", c.Name)
	}
	recordtest.Check(t, c, %[1]s.RecordTypes, recordtest.Options{Records: 4, Seed: 28, MaxTruncations: 300})
}
`

// TestGenerate_AllComponents generates every component of the ts_xml that
// TS_XML_DIR names into a scratch module, which must build and pass go
// vet; the records of the sampled components are checked against the map
// codec there (recordtest.Check).
func TestGenerate_AllComponents(t *testing.T) {
	dir := os.Getenv(salxml.EnvDir)
	if dir == "" {
		t.Skip("TS_XML_DIR is not set")
	}
	if testing.Short() {
		t.Skip("builds every component's package: not with -short")
	}
	start := time.Now()
	defs, err := salxml.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	out := newScratch(t)
	names := defs.Names()
	for _, c := range names {
		if err := salgen.Generate(defs, c, out, salgen.Options{}); err != nil {
			t.Fatalf("%s: %v", c, err)
		}
	}
	for _, c := range sampled {
		if !defs.Has(c) {
			t.Errorf("ts_xml has no %s", c)
			continue
		}
		p := salgen.PackageName(c)
		src := fmt.Sprintf(recordsTest, p, scratchModule)
		if err := os.WriteFile(filepath.Join(out, p, "records_test.go"), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("generated %d components in %v", len(names), time.Since(start).Round(time.Millisecond))
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Minute) // a guard, not a measure
	defer cancel()
	var pkgs []string
	for _, c := range sampled {
		pkgs = append(pkgs, "./"+salgen.PackageName(c))
	}
	// The generated packages are compiled without optimisation (-N -l):
	// that proves they compile in a third of the time (MTCamera's 60,000
	// lines of straight-line code take half a minute to optimise).
	for _, args := range [][]string{{"build", "-gcflags=-N -l", "./..."}, {"vet", "./..."}, append([]string{"test", "-count=1", "-gcflags=-N -l"}, pkgs...)} {
		t0 := time.Now()
		outText, err := goCmd(ctx, out, args...)
		if err != nil {
			t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, outText)
		}
		t.Logf("go %s: %v", strings.Join(args, " "), time.Since(t0).Round(time.Millisecond))
	}
	t.Logf("all components: %v", time.Since(start).Round(time.Millisecond))
}

// TestGenerate_PrivateHeader: a topic whose schema starts with the usual
// header (salIndex, then the private_ fields) has it encoded by the
// topics.*Private functions; MTCamera's .avsc telemetry, whose private
// fields come after its own, keeps them inline, in its schema's order
// (TestGenerate_AllComponents round-trips both through the map codec).
func TestGenerate_PrivateHeader(t *testing.T) {
	dir := os.Getenv(salxml.EnvDir)
	if dir == "" {
		t.Skip("TS_XML_DIR is not set")
	}
	defs, err := salxml.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	text := func(comp, file string) string {
		fs, err := salgen.Files(defs, comp, salgen.Options{})
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range fs {
			if f.Name == file {
				return string(f.Data)
			}
		}
		t.Fatalf("%s: no %s", comp, file)
		return ""
	}
	test := text("Test", "telemetry.go")
	if n := strings.Count(test, "topics.DecodePrivate(&d, &r.Private, true)"); n == 0 || strings.Contains(test, "r.Private.SndStamp = d.Double") {
		t.Errorf("Test's telemetry: %d topics.DecodePrivate calls, inline private fields %v: want only the calls", n, strings.Contains(test, "r.Private.SndStamp = d.Double"))
	}
	cam := text("MTCamera", "telemetry.go")
	if !strings.Contains(cam, `r.Private.SndStamp = d.Double("private_sndStamp")`) {
		t.Error("MTCamera's telemetry: no topic decodes its private fields inline")
	}
	if !strings.Contains(cam, "topics.DecodePrivate(&d, &r.Private, false)") {
		t.Error("MTCamera's telemetry: no topic uses topics.DecodePrivate")
	}
}
