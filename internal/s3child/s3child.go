// Package s3child runs the SDK's in-process S3 store in a process of its
// own, the test binary run again, so that a test's or a benchmark's
// memory figures do not count the store's copy of the data. Tests and
// benchmarks only.
package s3child

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"

	"github.com/lsst-sal/salgo/internal/embedded/s3store"
)

// env makes the test binary the store instead of running its tests.
const env = "SALGO_S3_STORE_CHILD"

// Serve, called first in TestMain, makes the binary the store when it is
// the child Start runs: it prints the store's URL and serves until its
// standard input closes, then exits. Otherwise it returns at once.
func Serve() {
	if os.Getenv(env) != "1" {
		return
	}
	s, err := s3store.Start()
	if err != nil {
		fmt.Println("error:", err)
		os.Exit(1)
	}
	fmt.Println(s.URL())
	_, _ = io.Copy(io.Discard, os.Stdin)
	s.Close()
	os.Exit(0)
}

// Process is a store in a child process.
type Process struct {
	// URL is the store's endpoint.
	URL   string
	cmd   *exec.Cmd
	stdin io.Closer
}

// Start runs the test binary again as the store (running no test and no
// benchmark) and returns once the store has printed its URL.
func Start() (*Process, error) {
	cmd := exec.Command(os.Args[0], "-test.run=^$", "-test.bench=^$")
	cmd.Env = append(os.Environ(), env+"=1")
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	p := &Process{cmd: cmd, stdin: stdin}
	line, err := bufio.NewReader(stdout).ReadString('\n')
	line = strings.TrimSpace(line)
	if err != nil || !strings.HasPrefix(line, "http://") {
		return nil, errors.Join(fmt.Errorf("s3child: the store process said %q: %v", line, err), p.Stop())
	}
	p.URL = line
	return p, nil
}

// Stop closes the store's standard input and waits for it to exit.
func (p *Process) Stop() error {
	p.stdin.Close()
	return p.cmd.Wait()
}
