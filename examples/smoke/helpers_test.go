package smoke

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"go.uber.org/goleak"
)

// examples are the programs built, by directory under examples/; salctl
// is built too, from its own module in cmd/salctl.
var examples = []string{"quickstart", "typed", "schemas", "write", "read", "localkafka", "telemetrycsc", "remote", "savefile"}

// binDir holds the built examples.
var binDir string

// runTimeout bounds every run of an example.
const runTimeout = 60 * time.Second

// backgroundTimeout bounds the life of an example started in the background.
const backgroundTimeout = 10 * time.Minute

func TestMain(m *testing.M) {
	os.Exit(testMain(m))
}

func testMain(m *testing.M) int {
	dir, err := os.MkdirTemp("", "salgo-smoke-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	binDir = dir
	gobin, err := exec.LookPath("go")
	if err != nil {
		fmt.Fprintln(os.Stderr, "smoke: the go command is needed to build the examples:", err)
		return 1
	}
	args := []string{"build", "-o", dir + string(os.PathSeparator)}
	for _, e := range examples {
		args = append(args, "github.com/lsst-sal/salgo/examples/"+e)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	for _, args := range [][]string{args, {"build", "-C", filepath.Join("..", "..", "cmd", "salctl"), "-o", filepath.Join(dir, "salctl"), "."}} {
		cmd := exec.CommandContext(ctx, gobin, args...)
		cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
		if err := cmd.Run(); err != nil {
			fmt.Fprintf(os.Stderr, "smoke: go %s failed: %v\n", strings.Join(args, " "), err)
			return 1
		}
	}
	code := m.Run()
	if code == 0 {
		// The in-process tests (TestRealBroker, localkafka's bus) leave no
		// goroutine behind.
		if err := goleak.Find(); err != nil {
			fmt.Fprintln(os.Stderr, "smoke: goroutines left running:", err)
			return 1
		}
	}
	return code
}

// baseEnv is the test's environment without the variables that would send
// an example to another bus or other definitions.
func baseEnv() []string {
	var out []string
	for _, kv := range os.Environ() {
		if strings.HasPrefix(kv, "LSST_") || strings.HasPrefix(kv, "TS_XML_DIR=") {
			continue
		}
		out = append(out, kv)
	}
	return out
}

// result is a finished run.
type result struct {
	stdout, stderr string
	code           int
}

func (r result) String() string {
	return fmt.Sprintf("exit %d\n--- stdout:\n%s--- stderr:\n%s", r.code, r.stdout, r.stderr)
}

// run runs an example to its end, bounded by runTimeout.
func run(t *testing.T, env []string, name string, args ...string) result {
	t.Helper()
	return runIn(t, env, "", name, args...)
}

// runIn runs an example with stdin to its end, bounded by runTimeout.
func runIn(t *testing.T, env []string, stdin, name string, args ...string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), runTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, filepath.Join(binDir, name), args...)
	cmd.Env = env
	cmd.Stdin = strings.NewReader(stdin)
	cmd.WaitDelay = 5 * time.Second
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	r := result{stdout: out.String(), stderr: errb.String()}
	var ee *exec.ExitError
	switch {
	case ctx.Err() != nil:
		t.Fatalf("%s %s: still running after %s\n%s", name, strings.Join(args, " "), runTimeout, r)
	case errors.As(err, &ee):
		r.code = ee.ExitCode()
	case err != nil:
		t.Fatalf("%s: %v", name, err)
	}
	return r
}

// mustRun runs an example and fails the test unless it exits 0.
func mustRun(t *testing.T, env []string, name string, args ...string) result {
	t.Helper()
	r := run(t, env, name, args...)
	if r.code != 0 {
		t.Fatalf("%s %s:\n%s", name, strings.Join(args, " "), r)
	}
	return r
}

// proc is an example running in the background.
type proc struct {
	t      *testing.T
	name   string
	cmd    *exec.Cmd
	mu     sync.Mutex
	out    map[string]*bytes.Buffer // "stdout", "stderr"
	lines  chan struct{}            // poked on every line
	done   chan struct{}
	err    error
	cancel context.CancelFunc
}

// start starts an example in the background; the test's cleanup stops it.
// Its lifetime is bounded by backgroundTimeout, not runTimeout: a test that
// talks to it for more than a minute on a loaded machine must not see it
// killed half way (each wait on it is bounded by runTimeout).
func start(t *testing.T, env []string, name string, args ...string) *proc {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), backgroundTimeout)
	cmd := exec.CommandContext(ctx, filepath.Join(binDir, name), args...)
	cmd.Env = env
	cmd.WaitDelay = 5 * time.Second
	cmd.Cancel = func() error { return cmd.Process.Signal(syscall.SIGTERM) }
	p := &proc{t: t, name: name, cmd: cmd, out: map[string]*bytes.Buffer{"stdout": {}, "stderr": {}},
		lines: make(chan struct{}, 1), done: make(chan struct{}), cancel: cancel}
	so, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	se, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		cancel()
		t.Fatalf("start %s: %v", name, err)
	}
	var readers sync.WaitGroup
	for stream, rd := range map[string]io.Reader{"stdout": so, "stderr": se} {
		readers.Add(1)
		go func() {
			defer readers.Done()
			sc := bufio.NewScanner(rd)
			sc.Buffer(make([]byte, 1<<20), 1<<20)
			for sc.Scan() {
				p.mu.Lock()
				p.out[stream].WriteString(sc.Text() + "\n")
				p.mu.Unlock()
				select {
				case p.lines <- struct{}{}:
				default:
				}
			}
		}()
	}
	go func() {
		readers.Wait() // the pipes must be drained before Wait
		p.err = cmd.Wait()
		cancel()
		close(p.done)
	}()
	t.Cleanup(func() { p.stop() })
	return p
}

// text returns what the process printed so far on a stream.
func (p *proc) text(stream string) string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.out[stream].String()
}

func (p *proc) dump() string {
	return fmt.Sprintf("--- %s stdout:\n%s--- %s stderr:\n%s", p.name, p.text("stdout"), p.name, p.text("stderr"))
}

// waitFor waits until a stream holds a match of re, and returns the match.
func (p *proc) waitFor(stream string, re *regexp.Regexp) []string {
	p.t.Helper()
	m, ok := p.tryWaitFor(stream, re)
	if !ok {
		p.t.Fatalf("%s exited (%v) before printing %q on %s\n%s", p.name, p.err, re, stream, p.dump())
	}
	return m
}

// tryWaitFor is waitFor, returning false if the process ends first.
func (p *proc) tryWaitFor(stream string, re *regexp.Regexp) ([]string, bool) {
	p.t.Helper()
	deadline := time.After(runTimeout)
	for {
		if m := re.FindStringSubmatch(p.text(stream)); m != nil {
			return m, true
		}
		select {
		case <-p.lines:
		case <-p.done:
			m := re.FindStringSubmatch(p.text(stream))
			return m, m != nil
		case <-deadline:
			p.t.Fatalf("%s: no %q on %s within %s\n%s", p.name, re, stream, runTimeout, p.dump())
		}
	}
}

// wait waits for the process to end by itself and returns its exit code.
func (p *proc) wait() int {
	p.t.Helper()
	select {
	case <-p.done:
	case <-time.After(runTimeout):
		p.t.Fatalf("%s still running after %s\n%s", p.name, runTimeout, p.dump())
	}
	var ee *exec.ExitError
	if errors.As(p.err, &ee) {
		return ee.ExitCode()
	}
	if p.err != nil {
		p.t.Fatalf("%s: %v\n%s", p.name, p.err, p.dump())
	}
	return 0
}

// exitCode is the exit status of a process that has ended (-1 if it
// did not exit by itself).
func (p *proc) exitCode() int {
	<-p.done
	var ee *exec.ExitError
	if errors.As(p.err, &ee) {
		return ee.ExitCode()
	}
	if p.err != nil {
		return -1
	}
	return 0
}

// stop sends SIGTERM (if still running) and waits for the end.
func (p *proc) stop() {
	select {
	case <-p.done:
		return
	default:
	}
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.done:
	case <-time.After(10 * time.Second):
		_ = p.cmd.Process.Kill()
		<-p.done
	}
	p.cancel()
}

// count returns how many times re matches s.
func count(re *regexp.Regexp, s string) int { return len(re.FindAllStringIndex(s, -1)) }

// TestSourcesTracked stats every Go source of the module. The examples are
// built by a go command the test cache cannot see; files a test opens are
// part of the cache key, so an edit anywhere invalidates cached results.
func TestSourcesTracked(t *testing.T) {
	err := filepath.WalkDir(filepath.Join("..", ".."), func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && (strings.HasSuffix(p, ".go") || strings.HasSuffix(p, ".xml")) {
			_, err = os.Stat(p)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}
