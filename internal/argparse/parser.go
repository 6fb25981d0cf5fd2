package argparse

import (
	"fmt"
	"os"
	"strings"
)

// kind is what an argument does with the command line: argparse's action
// and type together.
type kind int

const (
	kindString  kind = iota // action "store", no type
	kindInt                 // action "store", type=int
	kindFlag                // action "store_true"
	kindConst               // action "store_const"
	kindHelp                // action "help"
	kindVersion             // action "version"
)

// takesValue reports whether the argument consumes one command-line
// string (argparse nargs=None) rather than none (nargs=0).
func (k kind) takesValue() bool { return k == kindString || k == kindInt }

// arg is one argument of a parser: argparse's Action.
type arg struct {
	kind     kind
	options  []string // option strings, first one as given; empty for a positional
	dest     string   // "" for -h and --version, which store nothing
	metavar  string
	hasMeta  bool
	help     string
	choices  []any // int or string values; nil when not restricted
	def      any   // default: nil (None), int, string or bool
	cnst     any   // the value of a Const or Flag
	required bool
	version  string

	destSet bool // Dest was given
}

func (a *arg) positional() bool { return len(a.options) == 0 }

// Option sets a property of an argument while it is added.
type Option interface{ apply(*arg) }

type optionFunc func(*arg)

func (f optionFunc) apply(a *arg) { f(a) }

// Help sets the help text shown beside the argument in the -h output. The
// text is used literally (argparse's %(default)s-style expansion is not
// done), and its whitespace is collapsed as argparse does (but not wrapped).
func Help(text string) Option { return optionFunc(func(a *arg) { a.help = text }) }

// Metavar sets the name shown for the argument's value in the usage and
// help (argparse metavar), overriding the default: the destination in upper
// case for an option, the destination for a positional, or {a,b,c} when
// the argument has choices.
func Metavar(name string) Option {
	return optionFunc(func(a *arg) { a.metavar, a.hasMeta = name, true })
}

// Dest sets the name under which the value is stored in the Result,
// overriding the default: the first long option string without its dashes,
// with "-" turned into "_" (--state stores "state"). Positionals store under
// their name and do not take Dest.
func Dest(name string) Option {
	return optionFunc(func(a *arg) { a.dest, a.destSet = name, true })
}

// Default sets the value stored when the argument is not given, overriding
// the default of None (nil) — or of false for a Flag. It must be an int for
// Int, a string for String, a bool for Flag; a Const takes any value. As in
// argparse, a default is not checked against the choices.
func Default(v any) Option { return optionFunc(func(a *arg) { a.def = v }) }

// Required makes an option mandatory (argparse required=True); positionals
// always are.
func Required() Option { return optionFunc(func(a *arg) { a.required = true }) }

// Aliases adds further option strings after the name, as the later
// arguments of argparse's add_argument("-v", "--verbose"): the usage shows
// only the first, the help shows all, and each may be abbreviated.
func Aliases(names ...string) Option {
	return optionFunc(func(a *arg) { a.options = append(a.options, names...) })
}

// Choices restricts the value to the given ones (argparse choices): ints for
// an Int argument, strings for a String. The usage shows them as {a,b,c}
// unless a Metavar is set, and any other value fails with argparse's
// "invalid choice" error.
func Choices[T int | string](values ...T) Option {
	return optionFunc(func(a *arg) {
		a.choices = make([]any, 0, len(values))
		for _, v := range values {
			a.choices = append(a.choices, v)
		}
	})
}

// Parser is a command line as argparse.ArgumentParser describes one. Add
// arguments with Int, String, Flag, Const and Version, then call Parse.
// Adding an argument panics on a programming error (a conflicting or
// malformed option string, an option that does not fit the argument), as
// argparse's add_argument raises.
//
// A Parser is not safe for concurrent modification; Parse, Usage and Help
// may run concurrently once all arguments are added.
type Parser struct {
	prog        string
	description string
	columns     int

	args     []*arg          // in the order added, -h first (argparse _actions)
	byOption map[string]*arg // option string -> argument
	optOrder []string        // option strings in the order added
}

// New returns a parser whose usage and errors name the program prog (salobj
// passes "Run TestCsc"), with an optional description printed under the
// usage by -h ("" for none), and argparse's -h/--help.
func New(prog, description string) *Parser {
	p := &Parser{prog: prog, description: description, byOption: map[string]*arg{}}
	p.add("-h", &arg{kind: kindHelp, help: "show this help message and exit"}, []Option{Aliases("--help")})
	return p
}

// SetColumns fixes the terminal width the usage is wrapped to; argparse
// wraps at this width less 2. Without it the width is read, each time a
// text is formatted, from the COLUMNS variable, or is 80 when that is unset
// or not a positive number: what Python uses when its output is not a
// terminal (a CSC under a process manager, a script run by the
// ScriptQueue). Unlike Python, the size of a terminal is never asked.
func (p *Parser) SetColumns(n int) { p.columns = n }

// width is argparse HelpFormatter's width.
func (p *Parser) width() int {
	cols := p.columns
	if cols <= 0 {
		if v, err := pyInt(os.Getenv("COLUMNS")); err == nil {
			cols = v
		}
	}
	if cols <= 0 {
		cols = 80
	}
	return cols - 2
}

// Int adds an argument whose value is a Python int (argparse type=int).
// A name starting with "-" is an option (--loglevel LOGLEVEL); any other
// name is a required positional (index).
func (p *Parser) Int(name string, opts ...Option) {
	p.add(name, &arg{kind: kindInt}, opts)
}

// String adds an argument whose value is the string as given (argparse's
// default type). Named as for Int.
func (p *Parser) String(name string, opts ...Option) {
	p.add(name, &arg{kind: kindString}, opts)
}

// Flag adds an option that takes no value and stores true when given,
// false otherwise (argparse action="store_true"), e.g. --schema.
func (p *Parser) Flag(name string, opts ...Option) {
	p.add(name, &arg{kind: kindFlag, def: false, cnst: true}, opts)
}

// Const adds an option that takes no value and stores value when given
// (argparse action="store_const"), e.g. salobj's --simulate when the only
// modes are 0 and one other: p.Const("--simulate", 1, argparse.Default(0)).
func (p *Parser) Const(name string, value any, opts ...Option) {
	p.add(name, &arg{kind: kindConst, cnst: value}, opts)
}

// Version adds an option that prints version and a newline to stdout and
// ends the program with status 0 (argparse action="version"), with the help
// text "show program's version number and exit". "%(prog)s" in version is
// replaced by the program name and runs of whitespace become one space, as
// argparse does (argparse also wraps a version longer than the width).
func (p *Parser) Version(name, version string, opts ...Option) {
	p.add(name, &arg{kind: kindVersion, version: version,
		help: "show program's version number and exit"}, opts)
}

// add checks and records an argument, panicking where argparse's
// add_argument raises (and where a Go option does not fit the argument).
func (p *Parser) add(name string, a *arg, opts []Option) {
	if name == "" {
		panicf("an argument needs a name")
	}
	positional := name[0] != '-'
	if !positional {
		a.options = []string{name}
	}
	for _, o := range opts {
		o.apply(a)
	}
	if positional {
		p.checkPositional(name, a)
	} else {
		p.checkOption(a)
	}
	p.checkValues(a)
	p.args = append(p.args, a)
	for _, s := range a.options {
		p.byOption[s] = a
		p.optOrder = append(p.optOrder, s)
	}
}

func (p *Parser) checkPositional(name string, a *arg) {
	switch {
	case len(a.options) > 0:
		panicf("positional %s: Aliases are for options", name)
	case a.destSet:
		panicf("dest supplied twice for positional argument %s", name)
	case a.required:
		panicf("positional %s: 'required' is an invalid argument for positionals", name)
	case !a.kind.takesValue():
		panicf("positional %s: only Int and String arguments may be positional", name)
	}
	a.dest = name
	a.required = true
}

func (p *Parser) checkOption(a *arg) {
	var long string
	for _, s := range a.options {
		if len(s) < 2 || s[0] != '-' {
			panicf("invalid option string %s: must start with a character '-'", pyString(s))
		}
		if negativeNumber(s) {
			panicf("option string %s looks like a negative number, which this parser does not support", s)
		}
		if long == "" && len(s) > 1 && s[1] == '-' {
			long = s
		}
		if _, dup := p.byOption[s]; dup {
			panicf("argument %s: conflicting option string: %s", strings.Join(a.options, "/"), s)
		}
	}
	for i, s := range a.options {
		for _, t := range a.options[:i] {
			if s == t {
				panicf("argument %s: conflicting option string: %s", strings.Join(a.options, "/"), s)
			}
		}
	}
	if a.kind == kindHelp || a.kind == kindVersion {
		if a.destSet || a.def != nil || a.required {
			panicf("argument %s: a help or version option takes only Help and Aliases", a.options[0])
		}
		return
	}
	if !a.destSet {
		d := long
		if d == "" {
			d = a.options[0]
		}
		d = strings.TrimLeft(d, "-")
		if d == "" {
			panicf("dest= is required for options like %s", pyString(a.options[0]))
		}
		a.dest = strings.ReplaceAll(d, "-", "_")
	}
	if a.dest == "" {
		panicf("argument %s: empty Dest", a.options[0])
	}
}

// checkValues checks that the Go types of the default and choices fit the
// argument.
func (p *Parser) checkValues(a *arg) {
	name := a.dest
	if !a.positional() {
		name = a.options[0]
	}
	if !a.kind.takesValue() {
		if a.choices != nil {
			panicf("argument %s: Choices need an Int or String argument", name)
		}
		if a.hasMeta {
			panicf("argument %s: Metavar needs an Int or String argument", name)
		}
	}
	for _, c := range a.choices {
		if !fits(a.kind, c) {
			panicf("argument %s: choice %#v does not fit the argument", name, c)
		}
	}
	if a.def != nil && a.kind != kindConst && !fits(a.kind, a.def) {
		panicf("argument %s: default %#v does not fit the argument", name, a.def)
	}
}

func fits(k kind, v any) bool {
	switch v.(type) {
	case int:
		return k == kindInt
	case string:
		return k == kindString
	case bool:
		return k == kindFlag
	}
	return false
}

func panicf(format string, args ...any) {
	panic(fmt.Sprintf("argparse: "+format, args...))
}
