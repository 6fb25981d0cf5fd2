package argparse

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/lsst-sal/salgo/internal/pyrepr"
)

// optTuple is what an option-like command-line string was read as:
// argparse's (action, option_string, explicit_arg). a is nil for an option
// the parser does not know.
type optTuple struct {
	a        *arg
	option   string
	explicit string
	hasExpl  bool
}

// state is one run of Parse (argparse _parse_known_args).
type state struct {
	p           *Parser
	args        []string
	pattern     []byte // 'O' option, 'A' argument, '-' the first "--"
	options     map[int]optTuple
	values      map[string]any
	seen        map[*arg]bool
	positionals []*arg
	extras      []string
	exit        *Exit
}

// Parse reads args (the command line without the program name, os.Args[1:])
// as argparse's parse_args reads it.
//
// When the command line asks the program to stop instead of run, the error
// is an *Exit: -h or --version (Code 0, the text in Stdout) or a usage error
// (Code 2, the usage and "<prog>: error: <detail>" in Stderr). Report prints
// it and returns the exit code. Parse never calls os.Exit and never writes.
//
// The steps, their order and so which error wins are argparse's: options
// and positionals may be mixed in any order; "--name value", "--name=value"
// and unambiguous prefixes of long options work; "--" ends the options; an
// option's action (printing the help, the version) runs where it stands, so
// an error in an earlier argument is reported instead; missing required
// arguments are reported before unrecognized ones.
func (p *Parser) Parse(args []string) (*Result, error) {
	s := &state{
		p:       p,
		args:    append([]string(nil), args...),
		options: map[int]optTuple{},
		values:  map[string]any{},
		seen:    map[*arg]bool{},
	}
	for _, a := range p.args {
		if a.dest != "" {
			if _, ok := s.values[a.dest]; !ok {
				s.values[a.dest] = a.def
			}
		}
		if a.positional() {
			s.positionals = append(s.positionals, a)
		}
	}

	// Classify every string; after the first "--" all are arguments.
	for i := 0; i < len(s.args); i++ {
		if s.args[i] == "--" {
			s.pattern = append(s.pattern, '-')
			for range s.args[i+1:] {
				s.pattern = append(s.pattern, 'A')
			}
			break
		}
		t, isOpt, err := p.parseOptional(s.args[i])
		if err != nil {
			return nil, err
		}
		if isOpt {
			s.options[i] = t
			s.pattern = append(s.pattern, 'O')
		} else {
			s.pattern = append(s.pattern, 'A')
		}
	}

	if err := s.consume(); err != nil {
		return nil, err
	}
	if s.exit != nil {
		return nil, s.exit
	}

	var missing []string
	for _, a := range p.args {
		if !s.seen[a] && a.required {
			missing = append(missing, a.name())
		}
	}
	if len(missing) > 0 {
		return nil, p.usageError("the following arguments are required: " + strings.Join(missing, ", "))
	}
	if len(s.extras) > 0 {
		return nil, p.usageError("unrecognized arguments: " + strings.Join(s.extras, " "))
	}
	return &Result{values: s.values}, nil
}

// consume takes options and positionals alternately, as argparse does:
// positionals before each option, then the option, then what is left.
func (s *state) consume() error {
	maxOpt := -1
	for i := range s.options {
		maxOpt = max(maxOpt, i)
	}
	start := 0
	for start <= maxOpt && s.exit == nil {
		next := len(s.args)
		for i := range s.options {
			if i >= start && i < next {
				next = i
			}
		}
		if start != next {
			end, err := s.consumePositionals(start)
			if err != nil {
				return err
			}
			if end > start {
				start = end
				continue
			}
		}
		if _, ok := s.options[start]; !ok {
			s.extras = append(s.extras, s.args[start:next]...)
			start = next
		}
		var err error
		if start, err = s.consumeOptional(start); err != nil {
			return err
		}
	}
	if s.exit != nil {
		return nil
	}
	end, err := s.consumePositionals(start)
	if err != nil {
		return err
	}
	s.extras = append(s.extras, s.args[end:]...)
	return nil
}

// consumePositionals gives as many of the remaining positionals as
// possible one argument each, from the strings at start up to the next
// option (argparse matches "-*A-*" per positional, so a "--" is taken
// along and dropped later).
func (s *state) consumePositionals(start int) (int, error) {
	var counts []int
	i := start
	for range s.positionals {
		j := i
		for j < len(s.pattern) && s.pattern[j] == '-' {
			j++
		}
		if j == len(s.pattern) || s.pattern[j] != 'A' {
			break
		}
		j++
		for j < len(s.pattern) && s.pattern[j] == '-' {
			j++
		}
		counts = append(counts, j-i)
		i = j
	}
	for k, n := range counts {
		if err := s.take(s.positionals[k], s.args[start:start+n], ""); err != nil {
			return 0, err
		}
		start += n
		if s.exit != nil {
			break
		}
	}
	s.positionals = s.positionals[len(counts):]
	return start, nil
}

// consumeOptional takes the option at index start with its value, if it
// has one, and returns the index after them.
func (s *state) consumeOptional(start int) (int, error) {
	t := s.options[start]
	a, option, explicit, hasExpl := t.a, t.option, t.explicit, t.hasExpl
	type todo struct {
		a      *arg
		args   []string
		option string
	}
	var actions []todo
	var stop int
	for {
		if a == nil {
			s.extras = append(s.extras, s.args[start])
			return start + 1, nil
		}
		if hasExpl {
			count := 0
			if a.kind.takesValue() {
				count = 1
			}
			switch {
			case count == 0 && option[1] != '-' && explicit != "":
				// -xyz is -x -y -z when -x takes no value.
				actions = append(actions, todo{a, nil, option})
				_, n := utf8.DecodeRuneInString(explicit)
				option = "-" + explicit[:n]
				rest := explicit[n:]
				next, ok := s.p.byOption[option]
				if !ok {
					return 0, s.p.argErr(a, "ignored explicit argument "+pyrepr.String(explicit))
				}
				a, explicit, hasExpl = next, rest, rest != ""
				continue
			case count == 1:
				stop = start + 1
				actions = append(actions, todo{a, []string{explicit}, option})
			default:
				return 0, s.p.argErr(a, "ignored explicit argument "+pyrepr.String(explicit))
			}
			break
		}
		next := start + 1
		count := 0
		if a.kind.takesValue() {
			if next >= len(s.pattern) || s.pattern[next] != 'A' {
				return 0, s.p.argErr(a, "expected one argument")
			}
			count = 1
		}
		stop = next + count
		actions = append(actions, todo{a, s.args[next:stop], option})
		break
	}
	for _, t := range actions {
		if err := s.take(t.a, t.args, t.option); err != nil {
			return 0, err
		}
		if s.exit != nil {
			break
		}
	}
	return stop, nil
}

// take converts the strings of one argument and runs its action.
func (s *state) take(a *arg, strs []string, option string) error {
	s.seen[a] = true
	switch a.kind {
	case kindHelp:
		s.exit = &Exit{Code: 0, Stdout: s.p.Help(), option: option}
		return nil
	case kindVersion:
		s.exit = &Exit{Code: 0, Stdout: s.p.formatVersion(a.version), option: option}
		return nil
	case kindFlag, kindConst:
		s.values[a.dest] = a.cnst
		return nil
	}
	// Drop the first "--", as argparse's _get_values does.
	for i, v := range strs {
		if v == "--" {
			strs = append(append([]string(nil), strs[:i]...), strs[i+1:]...)
			break
		}
	}
	if len(strs) != 1 {
		// argparse stores an empty list here (--name=-- or a positional
		// given only as "--"); no choices are checked on it.
		s.values[a.dest] = []string{}
		return nil
	}
	var v any = strs[0]
	if a.kind == kindInt {
		n, err := pyInt(strs[0])
		if err != nil {
			return s.p.argErr(a, "invalid int value: "+pyrepr.String(strs[0]))
		}
		v = n
	}
	if a.choices != nil {
		ok := false
		reprs := make([]string, len(a.choices))
		for i, c := range a.choices {
			ok = ok || c == v
			reprs[i] = pyrepr.Repr(c)
		}
		if !ok {
			return s.p.argErr(a, "invalid choice: "+pyrepr.Repr(v)+" (choose from "+strings.Join(reprs, ", ")+")")
		}
	}
	s.values[a.dest] = v
	return nil
}

// parseOptional says whether a command-line string is an option and, if
// so, which (argparse _parse_optional). An ambiguous prefix is an error.
func (p *Parser) parseOptional(str string) (optTuple, bool, error) {
	if str == "" || str[0] != '-' {
		return optTuple{}, false, nil
	}
	if a, ok := p.byOption[str]; ok {
		return optTuple{a: a, option: str}, true, nil
	}
	if len(str) == 1 {
		return optTuple{}, false, nil
	}
	if opt, val, ok := strings.Cut(str, "="); ok {
		if a, ok := p.byOption[opt]; ok {
			return optTuple{a: a, option: opt, explicit: val, hasExpl: true}, true, nil
		}
	}
	tuples := p.optionTuples(str)
	if len(tuples) > 1 {
		names := make([]string, len(tuples))
		for i, t := range tuples {
			names[i] = t.option
		}
		return optTuple{}, false, p.usageError("ambiguous option: " + str + " could match " + strings.Join(names, ", "))
	}
	if len(tuples) == 1 {
		return tuples[0], true, nil
	}
	if negativeNumber(str) {
		return optTuple{}, false, nil // no option looks like a negative number
	}
	if strings.Contains(str, " ") {
		return optTuple{}, false, nil
	}
	return optTuple{option: str}, true, nil
}

// optionTuples lists the options a string may abbreviate (argparse
// _get_option_tuples): a long option's prefix up to any "=", or a short
// option with its value attached (-xVALUE).
func (p *Parser) optionTuples(str string) []optTuple {
	var out []optTuple
	if str[1] == '-' {
		prefix, val, hasVal := strings.Cut(str, "=")
		for _, o := range p.optOrder {
			if strings.HasPrefix(o, prefix) {
				out = append(out, optTuple{a: p.byOption[o], option: o, explicit: val, hasExpl: hasVal})
			}
		}
		return out
	}
	_, n := utf8.DecodeRuneInString(str[1:])
	short, rest := str[:1+n], str[1+n:]
	for _, o := range p.optOrder {
		switch {
		case o == short:
			out = append(out, optTuple{a: p.byOption[o], option: o, explicit: rest, hasExpl: true})
		case strings.HasPrefix(o, str):
			out = append(out, optTuple{a: p.byOption[o], option: o})
		}
	}
	return out
}

// negativeNumber is argparse's _negative_number_matcher,
// ^-\d+$|^-\d*\.\d+$ (Unicode digits; $ also before a final newline).
func negativeNumber(s string) bool {
	if !strings.HasPrefix(s, "-") {
		return false
	}
	s = strings.TrimSuffix(s[1:], "\n")
	intPart, frac, hasDot := strings.Cut(s, ".")
	if !hasDot {
		return s != "" && allDigits(s)
	}
	return allDigits(intPart) && frac != "" && allDigits(frac)
}

func allDigits(s string) bool {
	for _, r := range s {
		if !unicode.IsDigit(r) {
			return false
		}
	}
	return true
}

// name is how errors name an argument (argparse _get_action_name).
func (a *arg) name() string {
	switch {
	case len(a.options) > 0:
		return strings.Join(a.options, "/")
	case a.hasMeta:
		return a.metavar
	}
	return a.dest
}

func (p *Parser) argErr(a *arg, msg string) *Exit {
	return p.usageError("argument " + a.name() + ": " + msg)
}

// usageError is argparse's error(): the usage and the message on stderr,
// exit status 2.
func (p *Parser) usageError(msg string) *Exit {
	return &Exit{Code: 2, Stderr: p.Usage() + p.prog + ": error: " + msg + "\n", Msg: msg, prog: p.prog}
}

func pyString(s string) string { return pyrepr.String(s) }
