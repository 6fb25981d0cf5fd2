package cli

// The programs' main: signals, exit statuses and --version, the same for
// every salctl verb.

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime"
	"runtime/debug"
	"strings"
	"sync"
	"syscall"
)

// The exit statuses of every salctl verb.
const (
	StatusOK          = 0
	StatusFailure     = 1   // the work failed or timed out
	StatusUsage       = 2   // a mistake on the command line
	StatusNotRunning  = 3   // the CSC addressed is not running (no fresh heartbeat)
	StatusInterrupted = 130 // SIGINT (Ctrl-C): 128 + 2, as a shell reports it
	StatusTerminated  = 143 // SIGTERM: 128 + 15
)

// ExitStatusHelp is the paragraph of the programs' usage texts that states
// the exit statuses.
const ExitStatusHelp = `Exit status: 0 success; 1 failure or timeout; 2 usage error; 130 interrupted
by SIGINT (Ctrl-C); 143 terminated by SIGTERM. A second signal ends the
program at once.
`

var sigs struct {
	mu   sync.Mutex
	trap func()    // SIGINT handler of an interactive shell, or nil
	got  os.Signal // the signal that cancelled the context
}

// Main runs a program: run gets a context that SIGINT and SIGTERM cancel
// and the arguments after the program name. Main prints run's error on
// stderr after "prog:" and exits with the status of the convention (see
// ExitStatusHelp, Status); with usageHint a usage error is followed by
// "run 'prog -h' for usage".
func Main(prog string, usageHint bool, run func(ctx context.Context, args []string) error) {
	ctx, cancel := context.WithCancel(context.Background())
	ch := make(chan os.Signal, 2)
	signal.Notify(ch, os.Interrupt, syscall.SIGTERM)
	go func() {
		for s := range ch {
			sigs.mu.Lock()
			trap, first := sigs.trap, sigs.got == nil
			if trap == nil || s != os.Interrupt {
				if first {
					sigs.got = s
				}
				trap = nil
			}
			sigs.mu.Unlock()
			switch {
			case trap != nil:
				trap()
			case first:
				cancel()
			default:
				fmt.Fprintf(os.Stderr, "%s: %s again: exiting at once\n", prog, signalName(s))
				os.Exit(signalStatus(s))
			}
		}
	}()
	err := run(ctx, os.Args[1:])
	sigs.mu.Lock()
	got := sigs.got
	sigs.mu.Unlock()
	cancel()
	os.Exit(Status(os.Stderr, prog, err, usageHint, got))
}

// TrapInterrupt makes SIGINT call fn instead of cancelling Main's
// context, until release is called: an interactive shell interrupts the
// command it runs, not itself. SIGTERM still ends the program.
func TrapInterrupt(fn func()) (release func()) {
	sigs.mu.Lock()
	sigs.trap = fn
	sigs.mu.Unlock()
	return func() {
		sigs.mu.Lock()
		sigs.trap = nil
		sigs.mu.Unlock()
	}
}

// NotRunningError is a CSC that is not running, from its heartbeat:
// exit status 3 (StatusNotRunning).
type NotRunningError struct{ Msg string }

func (e NotRunningError) Error() string { return e.Msg }

// Status is the exit status for run's error err, after signal sig (nil:
// none), and prints err on w after "prog:": 130 or 143 after SIGINT or
// SIGTERM whatever err is (a cancellation is not printed), else 0 for no
// error or -h, 2 for a UsageError, 3 for a NotRunningError, 1 for any
// other.
func Status(w io.Writer, prog string, err error, usageHint bool, sig os.Signal) int {
	if sig != nil {
		if err != nil && !errors.Is(err, context.Canceled) && !errors.Is(err, flag.ErrHelp) {
			fmt.Fprintln(w, prog+":", err)
		}
		fmt.Fprintf(w, "%s: %s\n", prog, map[bool]string{true: "interrupted", false: "terminated"}[sig == os.Interrupt])
		return signalStatus(sig)
	}
	if err == nil || errors.Is(err, flag.ErrHelp) {
		return StatusOK
	}
	fmt.Fprintln(w, prog+":", err)
	var ue UsageError
	if errors.As(err, &ue) {
		if usageHint {
			fmt.Fprintf(w, "run '%s -h' for usage\n", prog)
		}
		return StatusUsage
	}
	var nr NotRunningError
	if errors.As(err, &nr) {
		return StatusNotRunning
	}
	return StatusFailure
}

func signalStatus(s os.Signal) int {
	if s == os.Interrupt {
		return StatusInterrupted
	}
	return StatusTerminated
}

func signalName(s os.Signal) string {
	if s == os.Interrupt {
		return "SIGINT"
	}
	return "SIGTERM"
}

// Version is the line that --version prints: the program, the module and
// its version, the VCS revision the binary was built from (with its time,
// and "modified" for a dirty tree) when the build recorded one, and the Go
// version and platform, all from runtime/debug.ReadBuildInfo.
func Version(prog string) string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return fmt.Sprintf("%s: no build information, %s %s/%s", prog, runtime.Version(), runtime.GOOS, runtime.GOARCH)
	}
	settings := map[string]string{}
	for _, s := range bi.Settings {
		settings[s.Key] = s.Value
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s %s", prog, bi.Main.Path, bi.Main.Version)
	if rev := settings["vcs.revision"]; rev != "" {
		fmt.Fprintf(&b, ", revision %s", rev)
		var extra []string
		if t := settings["vcs.time"]; t != "" {
			extra = append(extra, t)
		}
		if settings["vcs.modified"] == "true" {
			extra = append(extra, "modified")
		}
		if len(extra) > 0 {
			fmt.Fprintf(&b, " (%s)", strings.Join(extra, ", "))
		}
	} else {
		b.WriteString(", no VCS revision recorded (built outside a git checkout or with -buildvcs=false)")
	}
	fmt.Fprintf(&b, ", %s %s/%s", bi.GoVersion, runtime.GOOS, runtime.GOARCH)
	return b.String()
}

// VersionFlag adds the -version flag (also given as --version) to fs.
func VersionFlag(fs *flag.FlagSet) *bool {
	return fs.Bool("version", false, "print the version (module, VCS revision, Go) and exit")
}

// PrintVersion prints Version(prog) on w.
func PrintVersion(w io.Writer, prog string) error {
	_, err := fmt.Fprintln(w, Version(prog))
	return err
}
