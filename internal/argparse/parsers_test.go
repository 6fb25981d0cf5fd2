package argparse_test

import (
	"github.com/lsst-sal/salgo/internal/argparse"
)

// The parsers of testdata/record.py, built in Go under the same names: the
// way ts_salobj 8.2's make_from_cmd_line builds them for a CSC
// (BaseCsc, ConfigurableCsc) and for a SAL script (BaseScript).

const salobjVersion = "8.2.12"

type cscLine struct {
	name           string
	index          any   // true, []enumItem, or nil for no positional
	state          bool  // enable_cmdline_state
	modes          []int // valid_simulation_modes
	noVersion      bool
	configurable   bool
	simulationHelp string
}

type enumItem struct {
	value int
	name  string
}

// cscParser is BaseCsc.make_from_cmd_line's parser (salobj-csc.md §3.1, §3.3).
func cscParser(c cscLine) *argparse.Parser {
	p := argparse.New("Run "+c.name, "")
	switch idx := c.index.(type) {
	case bool:
		p.Int("index", argparse.Help("SAL index."))
	case []enumItem:
		values := make([]int, len(idx))
		help := "SAL index, one of: "
		for i, it := range idx {
			values[i] = it.value
			if i > 0 {
				help += ", "
			}
			help += itoa(it.value) + ": " + it.name
		}
		p.Int("index", argparse.Choices(values...), argparse.Help(help))
	}
	p.Int("--loglevel", argparse.Help("log level: error=40, warning=30, info=20, debug=10"))
	if c.state {
		p.String("--state", argparse.Choices("offline", "standby", "disabled", "enabled"),
			argparse.Dest("initial_state"), argparse.Help("initial state"))
	}
	if len(c.modes) > 1 {
		def := c.modes[0]
		for _, m := range c.modes {
			if m == 0 {
				def = 0
			}
		}
		if def == 0 && len(c.modes) == 2 {
			nonzero := c.modes[0] + c.modes[1]
			help := "Run in simulation mode?"
			if c.simulationHelp != "" {
				help = c.simulationHelp
			}
			p.Const("--simulate", nonzero, argparse.Default(0), argparse.Help(help))
		} else {
			help := "Simulation mode"
			if c.simulationHelp != "" {
				help = c.simulationHelp
			}
			p.Int("--simulate", argparse.Choices(c.modes...), argparse.Default(def), argparse.Help(help))
		}
	}
	if !c.noVersion {
		p.Version("--version", salobjVersion)
	}
	if c.configurable {
		p.String("--configdir", argparse.Help("directory containing configuration files "+
			"(only specify if you are sure the default will not suffice)"))
		if c.state {
			p.String("--override", argparse.Default(""),
				argparse.Help("override to apply if --state is disabled or enabled (ignored otherwise)"))
		}
	}
	return p
}

// scriptParser is BaseScript.make_from_cmd_line's parser (salobj-csc.md §7.8).
func scriptParser(name string) *argparse.Parser {
	p := argparse.New("Run "+name+" from the command line", "")
	p.Int("index", argparse.Help("Script SAL Component index; must be unique among running Scripts"))
	p.Flag("--schema", argparse.Help("Print the configuration schema to stdout and quit "+
		"without running the script. The index argument is ignored, though it is still required."))
	return p
}

func customParser() *argparse.Parser {
	p := argparse.New("Run MyCsc", "Run the MyCsc CSC: a controller that talks to the "+
		"hardware over TCP/IP, with a simulator for tests and a well-known default host.")
	p.Int("index", argparse.Help("SAL index."))
	p.String("--host", argparse.Default("localhost"), argparse.Metavar("ADDR"),
		argparse.Help("address of the low-level controller"))
	p.Int("--port", argparse.Required(), argparse.Help("TCP port"))
	p.Flag("-v", argparse.Aliases("--verbose"), argparse.Help("say more"))
	p.Flag("-q", argparse.Help("say less"))
	p.String("--mode", argparse.Choices("fast", "slow"), argparse.Metavar("MODE"),
		argparse.Default("fast"), argparse.Help("how to move"))
	p.Int("--no-help-option")
	p.String("--a-very-long-option-name", argparse.Help("long names put the help on the "+
		"next line, and a long help wraps at the help width"))
	p.Version("--version", "%(prog)s 1.2.3")
	return p
}

func longProgParser() *argparse.Parser {
	p := argparse.New("Run AVeryLongClassNameForAScriptThatNobodyWouldType from the command line", "")
	p.Int("index", argparse.Help("SAL index."))
	p.Int("--loglevel", argparse.Help("log level"))
	p.String("--state", argparse.Choices("offline", "standby", "disabled", "enabled"),
		argparse.Dest("initial_state"), argparse.Help("initial state"))
	return p
}

func wrapParser() *argparse.Parser {
	p := argparse.New("Run Caf\u00e9", "%(prog)s does things;\tits description\n\nhas   odd  "+
		"whitespace and a self-contained, well-known goof-ball -- use the -b option! "+
		"Then an-extraordinarily-long-hyphenated-identifier-that-cannot-fit-on-one-line-at-all "+
		"and Supercalifragilisticexpialidociousandthensomemorelettersuntilitoverflowsawholeline.")
	p.String("name", argparse.Metavar("NAME"), argparse.Help("a name; r\u00e9gl\u00e9 \u2013 "+
		"\u00fcn\u00efc\u00f6d\u00e9 text counts characters, not bytes, "+
		"so \u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9 wraps here"))
	p.Int("count", argparse.Help("x-ray -- 2--3 a--b --c -d e- -f- "+
		"nine-to-five well--known multi-part-word-chain ab-c a-bc "+
		"abc-d-e 3-d x-y-z ok"))
	p.String("--blank", argparse.Help("   "))
	p.String("--nbsp", argparse.Help("\u00a0"))
	p.Int("--id", argparse.Choices(10, 20, 30), argparse.Metavar("N"),
		argparse.Help("an int with choices and a metavar"))
	p.Flag("--long", argparse.Aliases("-l"), argparse.Help("long name first, short alias second"))
	p.String("--kind", argparse.Choices("a", "b"), argparse.Help(""))
	p.String("--x", argparse.Help("Averyveryveryveryveryveryveryveryveryveryverylongwordwithnohyphens "+
		"and a-very-very-very-very-very-very-very-very-long-hyphenated-word-indeed "+
		"---------------------------------------------------------------leading"))
	p.Version("--version", "  version\n 1.0   (build 7)  ")
	return p
}

func shortParser() *argparse.Parser {
	p := argparse.New("Run Short", "")
	p.String("src", argparse.Choices("a", "b"), argparse.Help("a string positional with choices"))
	p.Int("-n", argparse.Help("a number"))
	p.Flag("-v")
	p.Flag("-x")
	p.String("-s", argparse.Aliases("--size"), argparse.Default("m"))
	p.Version("--version", "")
	return p
}

func oddParser() *argparse.Parser {
	p := argparse.New("Run Odd", "")
	p.String("--file", argparse.Metavar("<file name>"), argparse.Required(), argparse.Help("a required option"))
	p.String("--paren", argparse.Metavar("( x )"), argparse.Help("spaces inside parentheses go"))
	p.String("--list", argparse.Metavar("[a] [b]"))
	p.String("where", argparse.Metavar("[where]"), argparse.Help("a positional in brackets"))
	return p
}

var parsers = map[string]func() *argparse.Parser{
	"testcsc": func() *argparse.Parser {
		return cscParser(cscLine{name: "TestCsc", index: true, state: true, modes: []int{0}, configurable: true})
	},
	"enumindex": func() *argparse.Parser {
		return cscParser(cscLine{name: "Hexapod", index: []enumItem{{1, "one"}, {2, "two"}},
			state: true, modes: []int{0, 1}, configurable: true})
	},
	"sim01":  func() *argparse.Parser { return cscParser(cscLine{name: "ATDome", modes: []int{0, 1}}) },
	"sim10":  func() *argparse.Parser { return cscParser(cscLine{name: "ATDome", modes: []int{1, 0}}) },
	"sim03":  func() *argparse.Parser { return cscParser(cscLine{name: "ATDome", modes: []int{0, 3}}) },
	"sim012": func() *argparse.Parser { return cscParser(cscLine{name: "ATDome", modes: []int{0, 1, 2}}) },
	"sim014": func() *argparse.Parser { return cscParser(cscLine{name: "ATDome", modes: []int{0, 1, 4}}) },
	"sim12":  func() *argparse.Parser { return cscParser(cscLine{name: "ATDome", modes: []int{1, 2}}) },
	"sim0":   func() *argparse.Parser { return cscParser(cscLine{name: "ATDome", modes: []int{0}}) },
	"simhelp": func() *argparse.Parser {
		return cscParser(cscLine{name: "ATDome", modes: []int{0, 1}, simulationHelp: "Simulate the dome: " +
			"1 for a fake dome that moves instantly, which is what the unit tests use"})
	},
	"statesim": func() *argparse.Parser {
		return cscParser(cscLine{name: "MTMount", index: true, state: true, modes: []int{0, 1, 2}, configurable: true})
	},
	"noversion": func() *argparse.Parser {
		return cscParser(cscLine{name: "Plain", index: true, noVersion: true})
	},
	"script":   func() *argparse.Parser { return scriptParser("TestScript") },
	"custom":   customParser,
	"longprog": longProgParser,
	"bare":     func() *argparse.Parser { return argparse.New("Run Bare", "") },
	"wrap":     wrapParser,
	"short":    shortParser,
	"odd":      oddParser,
}

func itoa(n int) string {
	if n < 0 {
		return "-" + itoa(-n)
	}
	if n < 10 {
		return string(rune('0' + n))
	}
	return itoa(n/10) + string(rune('0'+n%10))
}
