package smoke

// salctl commander, from a script and on a terminal.

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// TestSalctlCommanderScript drives salctl commander from a stdin script on
// the in-process bus: start, enable, setScalars with fields (by name, with
// NaN, and positionally), exit; then a script with a refused command and
// a bad value (exit status 1), and the same with -e (stops at the first).
func TestSalctlCommanderScript(t *testing.T) {
	t.Parallel()
	env := baseEnv()
	script := "start\nenable\nsetScalars int0=3 string0=\"from smoke\" double0=NaN\nsetScalars true 200 -7\nshow summaryState\nexit\n"
	r := runIn(t, env, script, "salctl", "commander", "Example:1")
	if r.code != 0 {
		t.Fatalf("commander script: want exit 0\n%s", r)
	}
	for _, re := range []string{
		// The late-joiner history first, then each line echoed and its acks.
		`(?m)^\d\d:\d\d:\d\d\.\d{3} evt summaryState: summaryState=5 \(STANDBY\)\n(?s:.*)^> start$`,
		`(?m)^> start\n(?s:.*)^\d\d:\d\d:\d\d\.\d{3} start #-?\d+: ack 303 \(CMD_COMPLETE\), error 0, result "Done"\n(?s:.*)^> enable$`,
		`(?m)^> start\n(?s:.*)^\d\d:\d\d:\d\d\.\d{3} evt summaryState: summaryState=1 \(DISABLED\)\n(?s:.*)^> enable$`,
		`(?m)^> enable\n(?s:.*)^\d\d:\d\d:\d\d\.\d{3} enable #-?\d+: ack 303 \(CMD_COMPLETE\), error 0, result "Done"\n(?s:.*)^> setScalars`,
		`(?m)^> enable\n(?s:.*)evt summaryState: summaryState=2 \(ENABLED\)\n(?s:.*)^> setScalars`,
		`(?m)^> setScalars int0=3 string0="from smoke" double0=NaN\n\d\d:\d\d:\d\d\.\d{3} setScalars #-?\d+: ack 303 \(CMD_COMPLETE\), error 0, result "Done"$`,
		`(?m)^> setScalars true 200 -7\n\d\d:\d\d:\d\d\.\d{3} setScalars #-?\d+: ack 303 \(CMD_COMPLETE\), error 0, result "Done"$`,
		`(?m)^> show summaryState\n\d\d:\d\d:\d\d\.\d{3} evt summaryState: summaryState=2 \(ENABLED\)\n> exit\n\z`,
	} {
		if !regexp.MustCompile(re).MatchString(r.stdout) {
			t.Errorf("commander script: no match for %s\n%s", re, r)
		}
	}
	if !strings.Contains(r.stderr, "a built-in CSC Example:1 answers") || strings.Contains(r.stdout, "heartbeat") {
		t.Errorf("commander: want the built-in CSC said on stderr, and no heartbeat printed\n%s", r)
	}

	// A failing line makes the exit status 1 at the end.
	r = runIn(t, env, "enable\nsetScalars byte0=256\nstart\n", "salctl", "commander", "Example:1", "-filter", "-all")
	for _, want := range []string{
		`(?m)^> enable\n\d\d:\d\d:\d\d\.\d{3} enable #-?\d+: ack -302 \(CMD_FAILED\), error 1, result "Failed: enable not allowed in state <State.STANDBY: 5>"\nerror: enable #-?\d+: CMD_FAILED\n`,
		`(?m)^> setScalars byte0=256\nerror: field byte0: "256" is not a byte \(a whole number from 0 to 255\)\n`,
		`(?m)^> start\n\d\d:\d\d:\d\d\.\d{3} start #-?\d+: ack 303 \(CMD_COMPLETE\)`,
	} {
		if !regexp.MustCompile(want).MatchString(r.stdout) {
			t.Errorf("commander with failures: no match for %s\n%s", want, r)
		}
	}
	if r.code != 1 || !strings.Contains(r.stderr, "salctl: 2 of 3 lines failed") || strings.Contains(r.stdout, " evt ") {
		t.Errorf("commander with failures: want exit 1, 2 of 3 lines failed, no event (-filter -all)\n%s", r)
	}
	// -e stops at the first.
	r = runIn(t, env, "enable\nstart\n", "salctl", "commander", "Example:1", "-e")
	if r.code != 1 || !strings.Contains(r.stderr, "line 1 failed (-e): enable") || strings.Contains(r.stdout, "> start") {
		t.Errorf("commander -e: want exit 1 at line 1, start never run\n%s", r)
	}
	if r := run(t, env, "salctl", "commander", "Example:1", "-timeout", "0"); r.code != 2 || !strings.Contains(r.stderr, "-timeout 0s: want a duration > 0") {
		t.Errorf("commander -timeout 0: want exit 2\n%s", r)
	}
}

// tmux runs a tmux command on the test's own server.
func tmux(t *testing.T, sock string, args ...string) string {
	t.Helper()
	cmd := exec.Command("tmux", append([]string{"-S", sock, "-f", os.DevNull}, args...)...)
	cmd.Env = append(baseEnv(), "TERM=xterm-256color")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("tmux %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// TestSalctlCommanderTmux runs salctl commander on a terminal (a tmux
// pane), types a command with tab completion and reads the ack on the
// screen, then quits with Ctrl-D.
func TestSalctlCommanderTmux(t *testing.T) {
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux is not installed: the commander's terminal mode (editing, completion) cannot be driven without it")
	}
	t.Parallel()
	sock := filepath.Join(t.TempDir(), "tmux.sock")
	// The pane runs salctl with the test's environment (the server is
	// started by this tmux call, and inherits it), then says how it ended:
	// the shell reaps it, which tmux itself may do late.
	tmux(t, sock, "new-session", "-d", "-s", "smoke", "-x", "150", "-y", "50",
		"'"+filepath.Join(binDir, "salctl")+`' commander Example:1; echo "salctl exited with status $?"`)
	t.Cleanup(func() { _ = exec.Command("tmux", "-S", sock, "kill-server").Run() })
	tmux(t, sock, "set-option", "-w", "-t", "smoke", "remain-on-exit", "on")
	screen := func() string { return tmux(t, sock, "capture-pane", "-p", "-J", "-t", "smoke") }
	// waitScreen polls the screen (tmux has no way to say when it
	// changed) until re matches.
	waitScreen := func(what string, re *regexp.Regexp) string {
		t.Helper()
		deadline := time.Now().Add(runTimeout)
		tick := time.NewTicker(50 * time.Millisecond)
		defer tick.Stop()
		for {
			s := screen()
			if re.MatchString(s) {
				return s
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s: no %q on the screen within %s:\n%s", what, re, runTimeout, s)
			}
			<-tick.C
		}
	}
	waitScreen("the prompt", regexp.MustCompile(`(?m)^Example:1> *$`))
	// "sta" and Tab: two candidates, listed.
	tmux(t, sock, "send-keys", "-t", "smoke", "sta", "Tab")
	waitScreen("the candidates of sta", regexp.MustCompile(`(?m)^Example:1> sta *\n.*standby +start`))
	// "r" and Tab: one, completed with a space.
	tmux(t, sock, "send-keys", "-t", "smoke", "r", "Tab")
	waitScreen("start completed", regexp.MustCompile(`(?m)^Example:1> start *$`))
	tmux(t, sock, "send-keys", "-t", "smoke", "Enter")
	s := waitScreen("start's ack", regexp.MustCompile(`(?m)^\d\d:\d\d:\d\d\.\d{3} start #-?\d+: ack 303 \(CMD_COMPLETE\), error 0, result "Done" *$`))
	if !regexp.MustCompile(`(?m)evt summaryState: summaryState=1 \(DISABLED\) *$`).MatchString(s) {
		waitScreen("summaryState DISABLED", regexp.MustCompile(`(?m)evt summaryState: summaryState=1 \(DISABLED\) *$`))
	}
	// A field name completed after the command: "setSc" Tab "int" Tab.
	tmux(t, sock, "send-keys", "-t", "smoke", "setSc", "Tab", "int", "Tab")
	waitScreen("int0= completed", regexp.MustCompile(`(?m)^Example:1> setScalars int0= *$`))
	tmux(t, sock, "send-keys", "-t", "smoke", "42", "Enter")
	waitScreen("setScalars' ack", regexp.MustCompile(`(?m)^\d\d:\d\d:\d\d\.\d{3} setScalars #-?\d+: ack 303 \(CMD_COMPLETE\), error 0, result "Done" *$`))
	// Ctrl-D on an empty line quits, with exit status 0.
	tmux(t, sock, "send-keys", "-t", "smoke", "C-d")
	s = waitScreen("the end", regexp.MustCompile(`(?m)^salctl exited with status \d+ *$`))
	if !regexp.MustCompile(`(?m)^Example:1> exit *\n(?s:.*)^salctl exited with status 0 *$`).MatchString(s) {
		t.Errorf("commander after Ctrl-D: want exit status 0\n%s", s)
	}
}
