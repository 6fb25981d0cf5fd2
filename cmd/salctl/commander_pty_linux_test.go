package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
	"unsafe"
)

// openPTY opens a pseudo-terminal: its master side and its slave, the
// terminal a program reads.
func openPTY(t *testing.T) (master, slave *os.File) {
	t.Helper()
	m, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pseudo-terminal: %v", err)
	}
	var unlock int32
	if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, m.Fd(), syscall.TIOCSPTLCK, uintptr(unsafe.Pointer(&unlock))); e != 0 {
		m.Close()
		t.Fatalf("unlock the pseudo-terminal: %v", e)
	}
	var n uint32
	if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, m.Fd(), syscall.TIOCGPTN, uintptr(unsafe.Pointer(&n))); e != 0 {
		m.Close()
		t.Fatalf("the pseudo-terminal's number: %v", e)
	}
	s, err := os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		m.Close()
		t.Fatal(err)
	}
	return m, s
}

// ptyChild is set in the environment of the test binary run as salctl
// commander on a pseudo-terminal.
const ptyChild = "SALCTL_TEST_PTY_CHILD"

// TestCommanderPTY drives salctl commander through a pseudo-terminal, as
// an operator does, with the line editor, on the in-process bus (the test
// binary runs itself as salctl commander Example:1 with the terminal as
// its stdin and stdout): wait duration=8 then, once it is in progress,
// setScalars: setScalars completes first. Then Ctrl-C interrupts a long
// wait and leaves the line being typed, which is finished and run.
func TestCommanderPTY(t *testing.T) {
	if os.Getenv(ptyChild) != "" {
		err := run(&env{ctx: context.Background(), stdin: os.Stdin, stdout: os.Stdout, stderr: os.Stderr},
			[]string{"commander", "Example:1", "-filter", "-all"})
		if err != nil {
			fmt.Fprintln(os.Stderr, "salctl:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	if testing.Short() {
		t.Skip("runs the commander in a process of its own: not in -short mode")
	}
	master, slave := openPTY(t)
	defer master.Close()
	cmd := exec.Command(os.Args[0], "-test.run=^TestCommanderPTY$")
	cmd.Env = append(os.Environ(), ptyChild+"=1", "TS_XML_DIR=", "TERM=xterm")
	for i, kv := range cmd.Env {
		if strings.HasPrefix(kv, "LSST_KAFKA_BROKER_ADDR=") {
			cmd.Env[i] = "SALCTL_TEST_UNSET=1" // the in-process bus
		}
	}
	var stderr syncBuffer
	cmd.Stdin, cmd.Stdout, cmd.Stderr = slave, slave, &stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true}
	if err := cmd.Start(); err != nil {
		slave.Close()
		t.Fatal(err)
	}
	slave.Close() // the child has it: the master reads EIO once it exits
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	defer func() {
		select {
		case <-exited:
		default:
			cmd.Process.Kill()
			<-exited
		}
	}()
	screen := newWatchBuffer()
	read := make(chan struct{})
	go func() {
		defer close(read)
		io.Copy(screen, master)
	}()
	defer func() {
		if t.Failed() {
			t.Logf("stderr:\n%s", stderr.String())
		}
	}()
	typeKeys := func(s string) {
		if _, err := master.Write([]byte(s)); err != nil {
			t.Fatal(err)
		}
	}
	screen.waitFor(t, `Example:1> `)
	typeKeys("start\r")
	screen.waitFor(t, `start #\d+: ack 303`)
	typeKeys("enable\r")
	screen.waitFor(t, `enable #\d+: ack 303`)
	typeKeys("wait duration=8\r") // setScalars must fit in it, however loaded the machine
	screen.waitFor(t, `wait #\d+: ack 301 \(CMD_INPROGRESS\)`)
	typeKeys("setScalars int0=1\r")
	screen.waitFor(t, `(?s)setScalars #\d+: ack 303.*wait #\d+: ack 303`)
	var order []string
	for _, m := range regexp.MustCompile(`(\w+) #\d+: ack 303 `).FindAllStringSubmatch(screen.String(), -1) {
		order = append(order, m[1])
	}
	if want := []string{"start", "enable", "setScalars", "wait"}; !slices.Equal(order, want) {
		t.Errorf("completed in the order %q, want %q", order, want)
	}

	// Ctrl-C with a line half typed interrupts the wait; the line stays,
	// is finished and runs.
	typeKeys("wait duration=60\r")
	screen.waitFor(t, `(?s)wait #\d+: ack 303.*wait #\d+: ack 301 \(CMD_INPROGRESS\)`)
	typeKeys("setScalars int0=")
	typeKeys("\x03")
	screen.waitFor(t, `interrupted: wait #\d+: stopped waiting; the CSC may still finish it`)
	typeKeys("7\r")
	screen.waitFor(t, `(?s)interrupted: wait.*setScalars #\d+: ack 303`)
	typeKeys("history\r")
	screen.waitFor(t, `\d+  setScalars int0=7\r?\n`)
	typeKeys("exit\r")
	select {
	case err := <-exited:
		// The interrupted wait failed: exit status 1.
		if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 || !strings.Contains(stderr.String(), "1 of 8 lines failed") {
			t.Errorf("exit: %v, want status 1 (1 of 8 lines failed)\nstderr: %s", err, stderr.String())
		}
	case <-time.After(time.Minute):
		t.Fatalf("the commander did not exit within a minute\n%s", screen.String())
	}
	exited <- nil
	<-read
	if !strings.Contains(stderr.String(), "heartbeat seen ") {
		t.Errorf("banner: %s", stderr.String())
	}
}
