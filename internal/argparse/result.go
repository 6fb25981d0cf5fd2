package argparse

import (
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
)

// Result holds the values of a parsed command line by destination (Python's
// argparse.Namespace): every argument's value or default, nil for None.
// Values are int for Int, string for String, bool for Flag and whatever was
// given for Const. Asking for a destination the parser does not have panics,
// as Python's attribute access would raise.
type Result struct {
	values map[string]any
}

// Value returns the value stored under dest: nil (None) when the argument
// was not given and has no default.
func (r *Result) Value(dest string) any {
	v, ok := r.values[dest]
	if !ok {
		panic(fmt.Sprintf("argparse: the parser has no argument with destination %q", dest))
	}
	return v
}

// Int returns the int stored under dest; ok is false when there is none
// (None: not given and no default).
func (r *Result) Int(dest string) (v int, ok bool) {
	v, ok = r.Value(dest).(int)
	return v, ok
}

// String returns the string stored under dest; ok is false when there is
// none (None, or argparse's empty list for "--name=--").
func (r *Result) String(dest string) (v string, ok bool) {
	v, ok = r.Value(dest).(string)
	return v, ok
}

// Bool returns the value of a Flag: whether it was given (or its default).
func (r *Result) Bool(dest string) bool {
	v, _ := r.Value(dest).(bool)
	return v
}

// Dests returns the destinations, sorted.
func (r *Result) Dests() []string {
	return slices.Sorted(maps.Keys(r.values))
}

// Exit is returned by Parse when the command line ends the program instead
// of running it: what to print where and the exit status, as argparse
// prints them before it calls sys.exit.
type Exit struct {
	// Code is the exit status: 0 after -h or --version, 2 after a usage error.
	Code int
	// Stdout is the help or version text (with its final newline), or "".
	Stdout string
	// Stderr is, for a usage error, the usage and "<prog>: error: <Msg>"
	// with a newline, or "".
	Stderr string
	// Msg is the error detail, e.g. "the following arguments are required:
	// index"; "" for Code 0.
	Msg string

	prog   string
	option string
}

// Error returns "<prog>: error: <Msg>" for a usage error, and says which
// option asked for the exit otherwise.
func (e *Exit) Error() string {
	if e.Code != 0 {
		return e.prog + ": error: " + e.Msg
	}
	return "argparse: " + e.option + " printed its text and asks for exit status 0"
}

// Report prints what err asks for and returns the exit status for
// os.Exit: an *Exit's Stdout and Stderr and its Code; for another error,
// its text on stderr and 1; for nil, nothing and 0.
//
//	res, err := p.Parse(os.Args[1:])
//	if err != nil {
//		os.Exit(argparse.Report(err, os.Stdout, os.Stderr))
//	}
func Report(err error, stdout, stderr io.Writer) int {
	if err == nil {
		return 0
	}
	var e *Exit
	if !errors.As(err, &e) {
		fmt.Fprintln(stderr, err)
		return 1
	}
	io.WriteString(stdout, e.Stdout)
	io.WriteString(stderr, e.Stderr)
	return e.Code
}
