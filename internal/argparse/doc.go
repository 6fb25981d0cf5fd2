// Package argparse reads a command line the way CPython 3.11's argparse
// reads it, for the programs whose command line ts_salobj defines: a CSC
// started by amain (make_from_cmd_line: "Run TestCsc", index, --loglevel,
// --state, --simulate, --version, --configdir, --override and the CSC's own
// additions) and a SAL script started by the ScriptQueue ("Run <Script>
// from the command line", index, --schema). Operators, process managers and
// the ScriptQueue see the same behaviour and the same texts from a Go
// program as from a Python one.
//
// Build a Parser with New and add arguments with Int, String, Flag, Const
// and Version, giving Help, Metavar, Dest, Default, Required, Choices and
// Aliases as options. A name that starts with "-" is an option, any other a
// required positional. Parse returns the values in a Result, or an *Exit
// telling what to print and the exit status; Report prints it:
//
//	p := argparse.New("Run TestCsc", "")
//	p.Int("index", argparse.Help("SAL index."))
//	p.String("--state", argparse.Choices("offline", "standby", "disabled", "enabled"),
//		argparse.Dest("initial_state"), argparse.Help("initial state"))
//	res, err := p.Parse(os.Args[1:])
//	if err != nil {
//		os.Exit(argparse.Report(err, os.Stdout, os.Stderr))
//	}
//
// # What is argparse's
//
// Parsing follows _parse_known_args step by step: options and positionals
// in any order, "--name value" and "--name=value", unambiguous prefixes of
// long options ("--sim", "--conf") and the "ambiguous option" error, short
// options with attached values and in clusters ("-n5", "-vx"), "--" ending
// the options, negative numbers as values, single-dash long options
// ("-loglevel") left unrecognized, help and version printed where they stand
// on the line, Python's int() for Int values ("٣", " 7 ", "1_000"). Usage
// errors carry argparse's texts, "<prog>: error: " after the usage on
// stderr, with exit status 2; -h and --version print to stdout with status 0.
//
// The usage is laid out by a port of argparse's HelpFormatter, since it
// heads every error: wrapped with positionals on their own line at a width
// of COLUMNS less 2, or 78 when COLUMNS is unset, as Python has it when its
// output is not a terminal; SetColumns fixes it.
//
// # What is best effort
//
// The help that -h prints and the version are for a person at a terminal:
// the usage as above, then argparse's "positional arguments:" and
// "options:" sections with the help texts from column 24 at most or under
// the argument, but no text is wrapped (argparse wraps with textwrap). A
// help whose lines fit the width is argparse's byte for byte.
//
// # What is not
//
// Only what salobj's command lines use is there: one value per argument
// (nargs None) or none (flags, store_const, help, version); no nargs "?",
// "*" or "+", append, count, subcommands, argument groups, mutually
// exclusive groups, fromfile prefixes, or a prefix character other than
// "-". Help texts are taken literally, without argparse's %(default)s
// expansion (the version and description do replace %(prog)s). An Int that
// does not fit a Go int is an invalid int value, where Python would accept
// it. The width of a terminal is never asked: Python's usage in an
// interactive terminal follows the terminal's width, this one follows
// COLUMNS. Option strings that look like negative numbers are refused when
// added (argparse would change how it reads "-1").
package argparse
