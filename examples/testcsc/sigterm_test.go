package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/lsst-sal/salgo/remote"
	"github.com/lsst-sal/salgo/sal"
)

// TestTestCSC_SIGTERMAnyMoment starts the program again and again, each
// time in a random initial state, and sends it SIGTERM at a random moment
// of its start or its life (from the duplicate check on): it exits 0 every
// time, says "signal_handler", runs its close hook (its log line), and
// leaves OFFLINE as the last summaryState on the bus, or no state at all
// when the signal came before it wrote one. SALGO_SIGTERM_RUNS sets the
// number of runs (default 2; CI's real-broker suite runs 30); the seed is
// logged, and SALGO_SIGTERM_SEED repeats a sequence.
func TestTestCSC_SIGTERMAnyMoment(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the program: not in -short mode")
	}
	runs := 2
	if s := os.Getenv("SALGO_SIGTERM_RUNS"); s != "" {
		var err error
		if runs, err = strconv.Atoi(s); err != nil {
			t.Fatalf("SALGO_SIGTERM_RUNS=%q: %v", s, err)
		}
	}
	seed := uint64(time.Now().UnixNano())
	if s := os.Getenv("SALGO_SIGTERM_SEED"); s != "" {
		seed, _ = strconv.ParseUint(s, 10, 64)
	}
	t.Logf("SALGO_SIGTERM_SEED=%d", seed)
	rng := rand.New(rand.NewPCG(seed, 0))
	bin := filepath.Join(t.TempDir(), "testcsc")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Duration(runs+2)*time.Minute)
	defer cancel()
	// The program's bus: the broker of LSST_* (CI), else an in-process
	// one of this test that the program reaches over loopback.
	b, err := sal.Connect(ctx, sal.WithLogger(slog.New(slog.DiscardHandler)))
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	cfg := b.Config()
	env := append(os.Environ(), sal.EnvBroker+"="+strings.Join(cfg.Brokers, ","), sal.EnvRegistry+"="+cfg.RegistryURL,
		sal.EnvSubname+"="+cfg.Subname, "LSST_SITE=local")
	comp := Component(b)
	states := []string{"offline", "standby", "disabled", "enabled"}
	written := 0
	for i := range runs {
		state := states[rng.IntN(len(states))]
		delay := time.Duration(rng.Int64N(int64(6500 * time.Millisecond)))
		index := 1000 + rng.IntN(30000)
		what := fmt.Sprintf("run %d: %s:%d --state %s, SIGTERM %s after the duplicate check began", i, comp, index, state, delay.Round(time.Millisecond))
		cmd := exec.CommandContext(ctx, bin, strconv.Itoa(index), "--state", state)
		cmd.Env = env
		var stdout bytes.Buffer
		cmd.Stdout = &stdout
		pipe, err := cmd.StderrPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		var stderr strings.Builder
		var mu sync.Mutex
		checking := make(chan struct{})
		scanned := make(chan struct{})
		go func() {
			defer close(scanned)
			sc := bufio.NewScanner(pipe)
			once := sync.Once{}
			for sc.Scan() {
				mu.Lock()
				stderr.WriteString(sc.Text() + "\n")
				mu.Unlock()
				if strings.Contains(sc.Text(), "checking for an already-running instance") {
					once.Do(func() { close(checking) })
				}
			}
		}()
		exited := make(chan error, 1)
		go func() { <-scanned; exited <- cmd.Wait() }()
		select {
		case <-checking:
			select {
			case <-time.After(delay):
			case err := <-exited: // an initial state of OFFLINE ends by itself
				exited <- err
			}
		case err := <-exited:
			exited <- err
		case <-ctx.Done():
		}
		_ = cmd.Process.Signal(syscall.SIGTERM)
		err = <-exited
		mu.Lock()
		errText := stderr.String()
		mu.Unlock()
		if err != nil {
			t.Fatalf("%s: %v; stdout %q, stderr:\n%s", what, err, stdout.String(), errText)
		}
		if !strings.Contains(errText, "close_tasks: TestCsc closed") {
			t.Errorf("%s: no close hook line in stderr:\n%s", what, errText)
		}
		// A late joiner reads what the program left on the bus.
		r, err := b.NewRemote(ctx, comp, index, remote.WithReadOnly(), remote.WithInclude("summaryState"))
		if err != nil {
			t.Fatal(err)
		}
		last := r.MustEvent("summaryState").Get()
		r.Close()
		if last != nil {
			written++
			if last["summaryState"] != int32(sal.Offline) {
				t.Errorf("%s: the last summaryState on the bus is %v, want OFFLINE", what, last["summaryState"])
			}
		}
		t.Logf("%s: exit 0, close hook ran, last summaryState %v", what, last["summaryState"])
	}
	t.Logf("%d of %d runs had written a state before the signal", written, runs)
}
