package sal_test

import (
	"context"
	"fmt"
	"go/format"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/lsst-sal/salgo/sal"
	"github.com/lsst-sal/salgo/sal/saltest"
	salxml "github.com/lsst-sal/salgo/xml"
)

// maxFragments bounds the README's Go blocks marked <!-- fragment -->:
// every other one runs.
const maxFragments = 1

// readmeExample is a program of the README and the files shown with it:
// its main.go starts it; the blocks after it that are test files or
// marked <!-- file: NAME --> are its other files, until the next main.go.
type readmeExample struct {
	section string
	line    int
	files   map[string]string
	order   []string
}

func (e *readmeExample) add(name, text string) {
	if _, ok := e.files[name]; !ok {
		e.order = append(e.order, name)
	}
	e.files[name] += text
}

// readmeExamples groups the README's blocks into examples. A Go block is
// a program (func main), a test file (func TestX) of the program before
// it, or marked <!-- fragment -->; anything else is an error.
func readmeExamples(t *testing.T) (examples []*readmeExample, fragments int) {
	t.Helper()
	var cur *readmeExample
	for _, b := range readmeFences(t) {
		name, marked := strings.CutPrefix(b.mark, "file:")
		name = strings.TrimSpace(name)
		switch {
		case b.mark == "fragment":
			fragments++
			continue
		case marked:
		case b.lang != "go":
			continue // shell, YAML without a file name: shown, not run
		case mainRE.MatchString(b.text):
			name = "main.go"
		case testRE.MatchString(b.text):
			name = fmt.Sprintf("readme%d_test.go", b.line)
		default:
			t.Errorf("README.md:%d (section %q): a Go block that is neither a program nor a test file; mark it <!-- fragment --> if it cannot run", b.line, b.section)
			continue
		}
		if name == "main.go" {
			cur = &readmeExample{section: b.section, line: b.line, files: map[string]string{}}
			examples = append(examples, cur)
		} else if cur == nil {
			t.Errorf("README.md:%d (section %q): %s comes before any program", b.line, b.section, name)
			continue
		}
		if strings.HasSuffix(name, ".go") {
			if f, err := format.Source([]byte(b.text)); err != nil || string(f) != b.text {
				t.Errorf("README.md:%d (section %q): %s is not gofmt-formatted (%v):\n%s", b.line, b.section, name, err, f)
			}
		}
		cur.add(name, b.text)
	}
	return examples, fragments
}

// TestReadme_SnippetsRun: every Go block of the README runs as shown,
// with the files the README shows beside it. A program is built inside
// the module and run: a CSC's (sal.RunCSC) by saltest.CheckMain to
// ENABLED and OFFLINE, with its config folder (--configdir config) and
// LSST_SITE=test as the README runs it, on a bus shared with the test
// instead of --embedded; a script's (sal.RunScript) by
// saltest.CheckScriptExecutable; any other to its end, exit 0. Its test
// files run first, with go test. TS_XML_DIR is left as it is: the
// README's programs run with and without it (a script needs it).
func TestReadme_SnippetsRun(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs programs: not in -short mode")
	}
	examples, fragments := readmeExamples(t)
	if fragments > maxFragments {
		t.Errorf("README.md has %d Go blocks marked <!-- fragment -->, at most %d: make them programs or tests", fragments, maxFragments)
	}
	if len(examples) == 0 {
		t.Fatal("README.md has no Go program")
	}
	for _, e := range examples {
		t.Run(fmt.Sprintf("%s@%d", e.section, e.line), func(t *testing.T) { runReadmeExample(t, e) })
	}
}

var (
	mainRE = regexp.MustCompile(`(?m)^func main\(\) {`)
	testRE = regexp.MustCompile(`(?m)^func Test`)
)

var componentRE = regexp.MustCompile(`Component:\s*"(\w+)"`)

func runReadmeExample(t *testing.T, e *readmeExample) {
	main := e.files["main.go"]
	needXML := strings.Contains(main, "sal.RunScript(")
	if needXML && os.Getenv(salxml.EnvDir) == "" {
		t.Skipf("%s is unset: the README's script commands the Test component, which is only in ts_xml", salxml.EnvDir)
	}
	// Inside the module, so that it imports the SDK as a module that
	// requires it does; a directory starting with "." is left out of
	// ./... patterns.
	dir, err := os.MkdirTemp("..", ".readme-run-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if dir, err = filepath.Abs(dir); err != nil {
		t.Fatal(err)
	}
	for _, name := range e.order {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(e.files[name]), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	env := os.Environ()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	gocmd := func(args ...string) {
		t.Helper()
		cmd := exec.CommandContext(ctx, "go", args...)
		cmd.Dir, cmd.Env = dir, env
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("README.md:%d: go %s: %v\n%s", e.line, strings.Join(args, " "), err, out)
		}
	}
	for _, name := range e.order {
		if strings.HasSuffix(name, "_test.go") {
			gocmd("test", "-count=1", ".")
			break
		}
	}
	bin := filepath.Join(dir, "program")
	gocmd("build", "-o", bin, ".")
	switch {
	case strings.Contains(main, "sal.RunCSC("):
		m := componentRE.FindStringSubmatch(main)
		if m == nil {
			t.Fatalf("README.md:%d: a CSC program without a Component", e.line)
		}
		o := saltest.MainOptions{Command: []string{bin}, Component: m[1], Index: 1, InitialState: sal.Enabled,
			Env: []string{"LSST_SITE=test"}}
		if fi, err := os.Stat(filepath.Join(dir, "config")); err == nil && fi.IsDir() {
			o.Args = []string{"--configdir", filepath.Join(dir, "config")}
		}
		if m[1] == "Example" {
			o.Bus = []sal.Option{sal.WithDefinitions(sal.EmbeddedDefinitions())}
		}
		saltest.CheckMain(t, o)
	case needXML:
		saltest.CheckScriptExecutable(t, bin, saltest.ScriptOptions{})
	default:
		cmd := exec.CommandContext(ctx, bin)
		cmd.Dir, cmd.Env = dir, env
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("README.md:%d: the program failed: %v\n%s", e.line, err, out)
		}
	}
}
