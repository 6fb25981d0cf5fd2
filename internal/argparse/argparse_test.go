package argparse_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/lsst-sal/salgo/internal/argparse"
	"github.com/lsst-sal/salgo/internal/pyrepr"
)

// recordedCase is one command line and what CPython's argparse did with it:
// the exit status (0 also when parsing succeeded), what it printed, and the
// namespace as sorted "dest=repr(value)" lines.
type recordedCase struct {
	parser  string
	columns int // COLUMNS when recorded; 0 for unset
	args    []string
	code    int
	stdout  string
	stderr  string
	values  string
}

// TestParse_MatchesRecordedArgparse runs every recorded command line
// through the Go parser and compares the exit status, stderr and the parsed
// values with what Python printed, byte for byte. So is stdout, except the
// help and version texts (terminal-only, see docs/architecture.md): those
// are not wrapped, so they are compared as Python's words in Python's order
// (whitespace aside), after the usage, which must be Python's exactly.
func TestParse_MatchesRecordedArgparse(t *testing.T) {
	t.Setenv("COLUMNS", "") // as recorded: COLUMNS unset, not a terminal
	for _, c := range recorded {
		t.Run(c.parser+"/"+strings.Join(c.args, "_"), func(t *testing.T) {
			if c.columns != 0 {
				t.Setenv("COLUMNS", itoa(c.columns))
			}
			p := parsers[c.parser]()
			res, err := p.Parse(c.args)
			var stdout, stderr bytes.Buffer
			code := argparse.Report(err, &stdout, &stderr)
			if code != c.code {
				t.Errorf("exit code %d, Python %d (err %v)", code, c.code, err)
			}
			if stdout.String() != c.stdout && (c.code != 0 || !sameLayoutFree(stdout.String(), c.stdout)) {
				t.Errorf("stdout:\n%s\nPython %s printed:\n%s", stdout.String(), recordedPython, c.stdout)
			}
			if stderr.String() != c.stderr {
				t.Errorf("stderr:\n%s\nPython %s printed:\n%s", stderr.String(), recordedPython, c.stderr)
			}
			parsed := c.code == 0 && c.stdout == "" && c.stderr == ""
			if (err == nil) != parsed {
				t.Fatalf("err %v, Python parsed: %v", err, parsed)
			}
			if err == nil {
				if got := namespace(res); got != c.values {
					t.Errorf("values:\n%s\nPython:\n%s", got, c.values)
				}
			}
		})
	}
}

// sameLayoutFree reports whether a help or version text is Python's up to
// the wrapping of its lines: the usage block (up to the first blank line)
// is identical, and the rest has the same characters once whitespace is
// removed.
func sameLayoutFree(got, python string) bool {
	usage, _, _ := strings.Cut(python, "\n\n")
	if strings.HasPrefix(python, "usage: ") && !strings.HasPrefix(got, usage+"\n") {
		return false
	}
	squeeze := func(s string) string { return strings.Join(strings.Fields(s), "") }
	return squeeze(got) == squeeze(python)
}

func namespace(r *argparse.Result) string {
	var lines []string
	for _, d := range r.Dests() {
		lines = append(lines, d+"="+pyrepr.Repr(r.Value(d)))
	}
	return strings.Join(lines, "\n")
}
