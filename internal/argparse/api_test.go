package argparse_test

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/lsst-sal/salgo/internal/argparse"
)

func TestResult_GivesTypedValuesAndNoneAsNotOK(t *testing.T) {
	p := customParser()
	res, err := p.Parse([]string{"--port", "80", "5", "-v"})
	if err != nil {
		t.Fatal(err)
	}
	if v, ok := res.Int("index"); !ok || v != 5 {
		t.Errorf("Int(index) = %d, %v; want 5, true", v, ok)
	}
	if v, ok := res.String("host"); !ok || v != "localhost" {
		t.Errorf("String(host) = %q, %v; want the default localhost", v, ok)
	}
	if v, ok := res.Int("no_help_option"); ok || v != 0 {
		t.Errorf("Int(no_help_option) = %d, %v; want 0, false (None)", v, ok)
	}
	if v, ok := res.String("a_very_long_option_name"); ok || v != "" {
		t.Errorf("String(a_very_long_option_name) = %q, %v; want \"\", false (None)", v, ok)
	}
	if !res.Bool("verbose") || res.Bool("q") {
		t.Errorf("Bool(verbose), Bool(q) = %v, %v; want true, false", res.Bool("verbose"), res.Bool("q"))
	}
	if res.Value("no_help_option") != nil {
		t.Errorf("Value(no_help_option) = %#v, want nil", res.Value("no_help_option"))
	}
	want := []string{"a_very_long_option_name", "host", "index", "mode", "no_help_option", "port", "q", "verbose"}
	if got := res.Dests(); !slices.Equal(got, want) {
		t.Errorf("Dests() = %q, want %q", got, want)
	}
}

func TestResult_UnknownDestPanics(t *testing.T) {
	res, err := scriptParser("TestScript").Parse([]string{"1"})
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if r := recover(); r == nil || !strings.Contains(fmt.Sprint(r), `"nosuch"`) {
			t.Errorf("recover() = %v, want a panic naming nosuch", r)
		}
	}()
	res.Value("nosuch")
}

func TestResult_EmptyListOfDoubleDashIsNotAString(t *testing.T) {
	res, err := parsers["testcsc"]().Parse([]string{"5", "--override=--"})
	if err != nil {
		t.Fatal(err)
	}
	if v, ok := res.String("override"); ok {
		t.Errorf("String(override) = %q, true; argparse stores [] for --override=--", v)
	}
}

func TestParse_LeavesArgsAlone(t *testing.T) {
	args := []string{"--", "5"}
	if _, err := parsers["testcsc"]().Parse(args); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(args, []string{"--", "5"}) {
		t.Errorf("args became %q", args)
	}
}

func TestParse_IntTooLargeForGoIsInvalid(t *testing.T) {
	_, err := parsers["testcsc"]().Parse([]string{"99999999999999999999"})
	var e *argparse.Exit
	if !errors.As(err, &e) || e.Code != 2 || e.Msg != "argument index: invalid int value: '99999999999999999999'" {
		t.Errorf("err = %v, want argparse's invalid int error", err)
	}
}

func TestExit_ErrorNamesProgAndDetail(t *testing.T) {
	p := parsers["testcsc"]()
	_, err := p.Parse(nil)
	if got, want := err.Error(), "Run TestCsc: error: the following arguments are required: index"; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
	_, err = p.Parse([]string{"--vers"})
	var e *argparse.Exit
	if !errors.As(err, &e) || e.Code != 0 || e.Stdout != "8.2.12\n" || e.Stderr != "" || e.Msg != "" {
		t.Fatalf("err = %#v, want an exit 0 with the version", err)
	}
	if got := err.Error(); !strings.Contains(got, "--version") {
		t.Errorf("Error() = %q, want it to name --version", got)
	}
}

func TestReport_PrintsAndReturnsCode(t *testing.T) {
	var out, errOut bytes.Buffer
	if code := argparse.Report(nil, &out, &errOut); code != 0 || out.Len()+errOut.Len() != 0 {
		t.Errorf("Report(nil) = %d, printed %q %q; want 0 and nothing", code, out.String(), errOut.String())
	}
	if code := argparse.Report(errors.New("boom"), &out, &errOut); code != 1 || errOut.String() != "boom\n" || out.Len() != 0 {
		t.Errorf("Report(boom) = %d, printed %q %q; want 1 and boom on stderr", code, out.String(), errOut.String())
	}
	out.Reset()
	errOut.Reset()
	_, err := parsers["script"]().Parse([]string{"-h"})
	wrapped := fmt.Errorf("starting: %w", err)
	if code := argparse.Report(wrapped, &out, &errOut); code != 0 || !strings.HasPrefix(out.String(), "usage: Run TestScript") || errOut.Len() != 0 {
		t.Errorf("Report(help) = %d, printed %q %q; want 0 and the help on stdout", code, out.String(), errOut.String())
	}
}

func TestUsage_IsTheUsageOfErrors(t *testing.T) {
	t.Setenv("COLUMNS", "")
	p := parsers["statesim"]()
	_, err := p.Parse([]string{"5", "--bogus"})
	var e *argparse.Exit
	if !errors.As(err, &e) {
		t.Fatal(err)
	}
	if want := p.Usage() + "Run MTMount: error: unrecognized arguments: --bogus\n"; e.Stderr != want {
		t.Errorf("stderr %q, want %q", e.Stderr, want)
	}
}

func TestSetColumns_OverridesCOLUMNS(t *testing.T) {
	t.Setenv("COLUMNS", "200")
	p := parsers["testcsc"]()
	p.SetColumns(80)
	const want = "usage: Run TestCsc [-h] [--loglevel LOGLEVEL]\n" +
		"                   [--state {offline,standby,disabled,enabled}] [--version]\n" +
		"                   [--configdir CONFIGDIR] [--override OVERRIDE]\n" +
		"                   index\n"
	if got := p.Usage(); got != want {
		t.Errorf("Usage() =\n%s\nwant\n%s", got, want)
	}
}

func TestAdd_PanicsWhereArgparseRaises(t *testing.T) {
	cases := []struct {
		name string
		add  func(p *argparse.Parser)
		want string
	}{
		{"conflict", func(p *argparse.Parser) { p.Flag("--help") }, "argument --help: conflicting option string: --help"},
		{"conflict alias", func(p *argparse.Parser) { p.Int("--n", argparse.Aliases("-h")) }, "argument --n/-h: conflicting option string: -h"},
		{"required positional", func(p *argparse.Parser) { p.Int("index", argparse.Required()) }, "'required' is an invalid argument for positionals"},
		{"dest positional", func(p *argparse.Parser) { p.Int("index", argparse.Dest("i")) }, "dest supplied twice for positional argument"},
		{"flag positional", func(p *argparse.Parser) { p.Flag("schema") }, "only Int and String arguments may be positional"},
		{"empty name", func(p *argparse.Parser) { p.String("") }, "needs a name"},
		{"lone dash", func(p *argparse.Parser) { p.String("-", argparse.Dest("x")) }, "invalid option string '-'"},
		{"dashes only", func(p *argparse.Parser) { p.String("--") }, "dest= is required for options like '--'"},
		{"alias without dash", func(p *argparse.Parser) { p.String("--a", argparse.Aliases("b")) }, "invalid option string 'b'"},
		{"negative number", func(p *argparse.Parser) { p.Flag("-1") }, "looks like a negative number"},
		{"int choices on string", func(p *argparse.Parser) { p.String("--s", argparse.Choices(1, 2)) }, "choice 1 does not fit"},
		{"choices on flag", func(p *argparse.Parser) { p.Flag("--f", argparse.Choices("a")) }, "Choices need an Int or String"},
		{"metavar on flag", func(p *argparse.Parser) { p.Flag("--f", argparse.Metavar("F")) }, "Metavar needs an Int or String"},
		{"string default on int", func(p *argparse.Parser) { p.Int("--n", argparse.Default("5")) }, `default "5" does not fit`},
		{"dest on version", func(p *argparse.Parser) { p.Version("--version", "1", argparse.Dest("v")) }, "takes only Help and Aliases"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			defer func() {
				r := recover()
				if r == nil || !strings.Contains(fmt.Sprint(r), c.want) {
					t.Errorf("recover() = %v, want a panic containing %q", r, c.want)
				}
			}()
			c.add(argparse.New("prog", ""))
		})
	}
}

// TestHelp_LayoutIsArgparsesWithoutWrapping pins the help layout, which is
// Go's own beyond the usage: argparse's columns, texts not wrapped.
func TestHelp_LayoutIsArgparsesWithoutWrapping(t *testing.T) {
	p := customParser()
	p.SetColumns(80)
	want := `usage: Run MyCsc [-h] [--host ADDR] --port PORT [-v] [-q] [--mode MODE]
                 [--no-help-option NO_HELP_OPTION]
                 [--a-very-long-option-name A_VERY_LONG_OPTION_NAME]
                 [--version]
                 index

Run the MyCsc CSC: a controller that talks to the hardware over TCP/IP, with a simulator for tests and a well-known default host.

positional arguments:
  index                 SAL index.

options:
  -h, --help            show this help message and exit
  --host ADDR           address of the low-level controller
  --port PORT           TCP port
  -v, --verbose         say more
  -q                    say less
  --mode MODE           how to move
  --no-help-option NO_HELP_OPTION
  --a-very-long-option-name A_VERY_LONG_OPTION_NAME
                        long names put the help on the next line, and a long help wraps at the help width
  --version             show program's version number and exit
`
	if got := p.Help(); got != want {
		t.Errorf("Help():\n%s\nwant:\n%s", got, want)
	}
}
