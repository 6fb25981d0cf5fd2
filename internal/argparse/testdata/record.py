"""Record what CPython's argparse prints for the command lines in CASES.

The Go tests never run this: it writes recorded_test.go, which holds the
outputs as Go literals. Regenerate with the interpreter the tests claim
to match (3.11), with COLUMNS unset and stdout not a terminal, which is
how a CSC or a script started by the ScriptQueue runs:

    env -u COLUMNS python3 testdata/record.py | gofmt > recorded_test.go

A case may set COLUMNS (its third item) to record another width.

The parsers are built the way ts_salobj 8.2 builds them (BaseCsc and
ConfigurableCsc make_from_cmd_line, BaseScript make_from_cmd_line); the
Go side builds the same ones in parsers_test.go under the same names.
"""

import argparse
import contextlib
import enum
import io
import os
import sys

VERSION = "8.2.12"


class SalIndex(enum.IntEnum):
    ONE = 1
    TWO = 2


def csc_parser(name, index=True, state=False, modes=None, version=VERSION,
               configurable=False, simulation_help=None):
    """A parser as BaseCsc.make_from_cmd_line (+ ConfigurableCsc) makes it."""
    parser = argparse.ArgumentParser(f"Run {name}")
    if index is True:
        parser.add_argument("index", type=int, help="SAL index.")
    elif isinstance(index, type) and issubclass(index, enum.IntEnum):
        choices = [int(item.value) for item in index]
        names = ", ".join(f"{item.value}: {item.name.lower()}" for item in index)
        parser.add_argument("index", type=int, help=f"SAL index, one of: {names}",
                            choices=choices)
    parser.add_argument("--loglevel", type=int,
                        help="log level: error=40, warning=30, info=20, debug=10")
    if state:
        parser.add_argument("--state",
                            choices=["offline", "standby", "disabled", "enabled"],
                            dest="initial_state", help="initial state")
    if modes is not None and len(modes) > 1:
        default = 0 if 0 in modes else modes[0]
        if default == 0 and len(modes) == 2:
            nonzero = (set(modes) - {0}).pop()
            parser.add_argument("--simulate",
                                help=simulation_help or "Run in simulation mode?",
                                default=0, action="store_const", const=nonzero)
        else:
            parser.add_argument("--simulate", type=int,
                                help=simulation_help or "Simulation mode",
                                default=default, choices=modes)
    if version is not None:
        parser.add_argument("--version", action="version", version=version)
    if configurable:
        parser.add_argument(
            "--configdir",
            help="directory containing configuration files "
            "(only specify if you are sure the default will not suffice)")
        if state:
            parser.add_argument(
                "--override",
                help="override to apply if --state is disabled or enabled (ignored otherwise)",
                default="")
    return parser


def script_parser(name="TestScript"):
    """A parser as BaseScript.make_from_cmd_line makes it."""
    parser = argparse.ArgumentParser(f"Run {name} from the command line")
    parser.add_argument(
        "index", type=int,
        help="Script SAL Component index; must be unique among running Scripts")
    parser.add_argument(
        "--schema", action="store_true",
        help="Print the configuration schema to stdout and quit "
        "without running the script. "
        "The index argument is ignored, though it is still required.")
    return parser


def custom_parser():
    """A CSC author's own additions: required, metavar, aliases, no help."""
    parser = argparse.ArgumentParser(
        "Run MyCsc",
        description="Run the MyCsc CSC: a controller that talks to the "
        "hardware over TCP/IP, with a simulator for tests and a well-known "
        "default host.")
    parser.add_argument("index", type=int, help="SAL index.")
    parser.add_argument("--host", default="localhost", metavar="ADDR",
                        help="address of the low-level controller")
    parser.add_argument("--port", type=int, required=True, help="TCP port")
    parser.add_argument("-v", "--verbose", action="store_true", help="say more")
    parser.add_argument("-q", action="store_true", help="say less")
    parser.add_argument("--mode", choices=["fast", "slow"], metavar="MODE",
                        default="fast", help="how to move")
    parser.add_argument("--no-help-option", type=int)
    parser.add_argument("--a-very-long-option-name", help="long names put the "
                        "help on the next line, and a long help wraps at the "
                        "help width")
    parser.add_argument("--version", action="version", version="%(prog)s 1.2.3")
    return parser


def long_prog_parser():
    """A prog longer than 3/4 of the width goes on a line of its own."""
    parser = argparse.ArgumentParser(
        "Run AVeryLongClassNameForAScriptThatNobodyWouldType from the command line")
    parser.add_argument("index", type=int, help="SAL index.")
    parser.add_argument("--loglevel", type=int, help="log level")
    parser.add_argument("--state", choices=["offline", "standby", "disabled", "enabled"],
                        dest="initial_state", help="initial state")
    return parser


def bare_parser():
    return argparse.ArgumentParser("Run Bare")


def wrap_parser():
    """Help texts that exercise textwrap: hyphens, long words, Unicode."""
    parser = argparse.ArgumentParser(
        "Run Caf\u00e9",
        description="%(prog)s does things;\tits description\n\nhas   odd  "
        "whitespace and a self-contained, well-known goof-ball -- use the -b option! "
        "Then an-extraordinarily-long-hyphenated-identifier-that-cannot-fit-on-one-line-at-all "
        "and Supercalifragilisticexpialidociousandthensomemorelettersuntilitoverflowsawholeline.")
    parser.add_argument("name", metavar="NAME", help="a name; r\u00e9gl\u00e9 \u2013 "
                        "\u00fcn\u00efc\u00f6d\u00e9 text counts characters, not bytes, "
                        "so \u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9 wraps here")
    parser.add_argument("count", type=int, help="x-ray -- 2--3 a--b --c -d e- -f- "
                        "nine-to-five well--known multi-part-word-chain ab-c a-bc "
                        "abc-d-e 3-d x-y-z ok")
    parser.add_argument("--blank", help="   ")
    parser.add_argument("--nbsp", help="\u00a0")
    parser.add_argument("--id", type=int, choices=[10, 20, 30], metavar="N",
                        help="an int with choices and a metavar")
    parser.add_argument("--long", "-l", action="store_true",
                        help="long name first, short alias second")
    parser.add_argument("--kind", choices=["a", "b"], help="")
    parser.add_argument("--x", help="Averyveryveryveryveryveryveryveryveryveryverylongwordwithnohyphens "
                        "and a-very-very-very-very-very-very-very-very-long-hyphenated-word-indeed "
                        "---------------------------------------------------------------leading")
    parser.add_argument("--version", action="version", version="  version\n 1.0   (build 7)  ")
    return parser


def short_parser():
    """Short options: values attached, clusters, negative numbers."""
    parser = argparse.ArgumentParser("Run Short")
    parser.add_argument("src", choices=["a", "b"], help="a string positional with choices")
    parser.add_argument("-n", type=int, help="a number")
    parser.add_argument("-v", action="store_true")
    parser.add_argument("-x", action="store_true")
    parser.add_argument("-s", "--size", default="m")
    parser.add_argument("--version", action="version", version="")
    return parser


def odd_parser():
    """Metavars with spaces and brackets, which the usage wrapping splits."""
    parser = argparse.ArgumentParser("Run Odd")
    parser.add_argument("--file", metavar="<file name>", required=True, help="a required option")
    parser.add_argument("--paren", metavar="( x )", help="spaces inside parentheses go")
    parser.add_argument("--list", metavar="[a] [b]")
    parser.add_argument("where", metavar="[where]", help="a positional in brackets")
    return parser


PARSERS = {
    # TestCsc: index=True, enable_cmdline_state, valid_simulation_modes=[0], configurable.
    "testcsc": lambda: csc_parser("TestCsc", state=True, modes=[0], configurable=True),
    # An IntEnum index (usage {1,2}).
    "enumindex": lambda: csc_parser("Hexapod", index=SalIndex, state=True, modes=[0, 1],
                                    configurable=True),
    # --simulate variants of salobj-csc.md section 3.3 (no index: index=5 given to amain).
    "sim01": lambda: csc_parser("ATDome", index=None, modes=[0, 1]),
    "sim10": lambda: csc_parser("ATDome", index=None, modes=[1, 0]),
    "sim03": lambda: csc_parser("ATDome", index=None, modes=[0, 3]),
    "sim012": lambda: csc_parser("ATDome", index=None, modes=[0, 1, 2]),
    "sim014": lambda: csc_parser("ATDome", index=None, modes=[0, 1, 4]),
    "sim12": lambda: csc_parser("ATDome", index=None, modes=[1, 2]),
    "sim0": lambda: csc_parser("ATDome", index=None, modes=[0]),
    "simhelp": lambda: csc_parser("ATDome", index=None, modes=[0, 1],
                                  simulation_help="Simulate the dome: "
                                  "1 for a fake dome that moves instantly, "
                                  "which is what the unit tests use"),
    # --state and --simulate both: prefixes of either are ambiguous.
    "statesim": lambda: csc_parser("MTMount", state=True, modes=[0, 1, 2], configurable=True),
    "noversion": lambda: csc_parser("Plain", version=None),
    "script": script_parser,
    "custom": custom_parser,
    "longprog": long_prog_parser,
    "bare": bare_parser,
    "wrap": wrap_parser,
    "short": short_parser,
    "odd": odd_parser,
}

CASES = [
    ("testcsc", []),
    ("testcsc", ["5"]),
    ("testcsc", ["0"]),
    ("testcsc", ["-5"]),
    ("testcsc", [" 7 "]),
    ("testcsc", ["1_000"]),
    ("testcsc", ["+3"]),
    ("testcsc", ["\u0663"]),
    ("testcsc", ["1__0"]),
    ("testcsc", ["0x10"]),
    ("testcsc", ["x"]),
    ("testcsc", [""]),
    ("testcsc", ["5", "--state", "enabled"]),
    ("testcsc", ["--state", "enabled", "5"]),
    ("testcsc", ["--state=enabled", "5"]),
    ("testcsc", ["5", "--sta", "disabled"]),
    ("testcsc", ["5", "--s=standby"]),
    ("testcsc", ["5", "--state", "fault"]),
    ("testcsc", ["5", "--state", "Enabled"]),
    ("testcsc", ["5", "--state"]),
    ("testcsc", ["5", "--state", "--loglevel", "10"]),
    ("testcsc", ["5", "--state", "enabled", "--state", "disabled"]),
    ("testcsc", ["5", "--loglevel", "10"]),
    ("testcsc", ["--loglevel=10", "5"]),
    ("testcsc", ["--loglevel", "10"]),
    ("testcsc", ["5", "--loglevel"]),
    ("testcsc", ["5", "--loglevel", "x"]),
    ("testcsc", ["5", "--loglevel", "-10"]),
    ("testcsc", ["5", "--log", "20"]),
    ("testcsc", ["5", "-loglevel", "10"]),
    ("testcsc", ["-state", "enabled", "5"]),
    ("testcsc", ["5", "6"]),
    ("testcsc", ["5", "6", "7"]),
    ("testcsc", ["5", "--bogus"]),
    ("testcsc", ["5", "--bogus=1", "-x"]),
    ("testcsc", ["--bogus"]),
    ("testcsc", ["5", "-"]),
    ("testcsc", ["5", "--override", "a.yaml:HEAD"]),
    ("testcsc", ["5", "--override="]),
    ("testcsc", ["5", "--override", ""]),
    ("testcsc", ["5", "--over", "b.yaml"]),
    ("testcsc", ["5", "--override", "-x y"]),
    ("testcsc", ["5", "--override", "-x"]),
    ("testcsc", ["5", "--override=--"]),
    ("testcsc", ["5", "--override", "--"]),
    ("testcsc", ["5", "--configdir", "/tmp/a", "--conf=/tmp/b"]),
    ("testcsc", ["--configdir", "/x"]),
    ("testcsc", ["5", "--c", "/x"]),
    ("testcsc", ["-h"]),
    ("testcsc", ["--help"]),
    ("testcsc", ["--he"]),
    ("testcsc", ["--h"]),
    ("testcsc", ["5", "-h", "--bogus"]),
    ("testcsc", ["x", "-h"]),
    ("testcsc", ["-hx"]),
    ("testcsc", ["--help=yes"]),
    ("testcsc", ["--version"]),
    ("testcsc", ["--vers"]),
    ("testcsc", ["5", "--version", "--state", "fault"]),
    ("testcsc", ["x", "--version"]),
    ("testcsc", ["--version=1"]),
    ("testcsc", ["--", "5"]),
    ("testcsc", ["5", "--"]),
    ("testcsc", ["--", "-5"]),
    ("testcsc", ["5", "--", "--state", "enabled"]),
    ("testcsc", ["--", "--", "5"]),
    ("testcsc", ["--", "--state", "enabled"]),
    ("testcsc", ["--state", "enabled", "--", "5"]),
    ("testcsc", ["--state", "--", "enabled", "5"]),
    ("testcsc", ["--=x", "5"]),
    ("testcsc", ["---state", "enabled", "5"]),
    ("testcsc", ["5", "--state", "enabled", "--bogus", "--loglevel"]),
    ("enumindex", []),
    ("enumindex", ["1"]),
    ("enumindex", ["2", "--simulate"]),
    ("enumindex", ["3"]),
    ("enumindex", ["0"]),
    ("enumindex", ["one"]),
    ("enumindex", ["-h"]),
    ("enumindex", ["1", "--s"]),
    ("sim01", []),
    ("sim01", ["--simulate"]),
    ("sim01", ["--sim"]),
    ("sim01", ["--simulate", "1"]),
    ("sim01", ["--simulate=1"]),
    ("sim01", ["-h"]),
    ("sim10", ["--simulate"]),
    ("sim10", ["-h"]),
    ("sim03", ["--simulate"]),
    ("sim03", []),
    ("sim012", []),
    ("sim012", ["--simulate", "2"]),
    ("sim012", ["--simulate=1"]),
    ("sim012", ["--sim", "1"]),
    ("sim012", ["--simulate", "3"]),
    ("sim012", ["--simulate", "x"]),
    ("sim012", ["--simulate"]),
    ("sim012", ["-h"]),
    ("sim014", ["--simulate", "4"]),
    ("sim014", ["--simulate", "2"]),
    ("sim014", ["-h"]),
    ("sim12", []),
    ("sim12", ["--simulate", "2"]),
    ("sim12", ["--simulate", "0"]),
    ("sim12", ["-h"]),
    ("sim0", ["--simulate"]),
    ("sim0", ["-h"]),
    ("simhelp", ["-h"]),
    ("statesim", ["5", "--s", "1"]),
    ("statesim", ["5", "--s=1"]),
    ("statesim", ["5", "--st", "enabled", "--si", "2"]),
    ("statesim", ["5", "--s"]),
    ("statesim", ["--s", "--bogus"]),
    ("statesim", ["-h"]),
    ("noversion", ["5"]),
    ("noversion", ["--version"]),
    ("noversion", ["-h"]),
    ("script", []),
    ("script", ["100001"]),
    ("script", ["0", "--schema"]),
    ("script", ["--schema", "0"]),
    ("script", ["--schema"]),
    ("script", ["--sch", "0"]),
    ("script", ["--schema=1", "0"]),
    ("script", ["0", "--schema", "extra"]),
    ("script", ["x", "--schema"]),
    ("script", ["-h"]),
    ("script", ["1", "--version"]),
    ("custom", ["5", "--port", "80"]),
    ("custom", ["5"]),
    ("custom", []),
    ("custom", ["5", "--port", "80", "-v", "-q", "--mode", "slow", "--host", "h"]),
    ("custom", ["5", "--port", "80", "-vq"]),
    ("custom", ["5", "--port", "80", "-qv"]),
    ("custom", ["5", "--port", "80", "-vx"]),
    ("custom", ["5", "--port", "80", "-v=1"]),
    ("custom", ["5", "--port", "80", "--verb"]),
    ("custom", ["5", "--port", "80", "--mode", "medium"]),
    ("custom", ["5", "--port", "80", "--no", "3", "--a-very", "x"]),
    ("custom", ["5", "--port", "80", "--m", "slow"]),
    ("custom", ["5", "--port", "80", "--", "6"]),
    ("custom", ["-h"]),
    ("custom", ["--version"]),
    ("longprog", []),
    ("longprog", ["-h"]),
    ("bare", []),
    ("bare", ["-h"]),
    ("bare", ["x"]),
    ("bare", ["--x"]),
    ("wrap", ["-h"]),
    ("wrap", ["--version"]),
    ("wrap", ["n", "1", "--id", "20", "-l", "--kind", "b"]),
    ("wrap", ["n", "1", "--id", "25"]),
    ("wrap", ["n", "1", "--k", "c"]),
    ("wrap", ["n"]),
    ("wrap", ["n", "1", "--id", "\u0662\u0660"]),
    ("wrap", ["n", "1", "--i", "--blank"]),
    ("short", ["a"]),
    ("short", ["c"]),
    ("short", ["-h"]),
    ("short", ["--version"]),
    ("short", ["a", "-n5"]),
    ("short", ["a", "-n=5"]),
    ("short", ["a", "-n", "-5"]),
    ("short", ["a", "-n", "-5.5"]),
    ("short", ["a", "-vxn5"]),
    ("short", ["a", "-vn", "7"]),
    ("short", ["a", "-vn"]),
    ("short", ["a", "-vy"]),
    ("short", ["a", "-xh"]),
    ("short", ["a", "-ssmall"]),
    ("short", ["a", "-s=large", "--si", "xl"]),
    ("short", ["-n", "1", "b", "-v"]),
    ("short", ["-1"]),
    ("short", ["a", "-1"]),
    ("short", ["a", "-n", "-1x"]),
    ("short", ["a", "-n", "- 1"]),
    ("short", ["a", "-n", "1", "b"]),
    ("short", ["--", "-v"]),
    ("short", ["-v", "--", "b"]),
    ("short", ["a", "-vv", "-xx"]),
    ("short", ["a", "-n"]),
    ("short", ["a", "-"]),
    ("short", ["a", "-\u00e9"]),
    ("short", ["a", "--\u00e9"]),
    ("wrap", []),
    ("odd", []),
    ("odd", ["-h"]),
    ("odd", ["-h"], 30),
    ("odd", ["w", "--file", "f"]),
    ("odd", ["--file"], 20),
    ("testcsc", ["-h"], 40),
    ("testcsc", ["-h"], 60),
    ("testcsc", ["-h"], 200),
    ("testcsc", ["-h"], 25),
    ("testcsc", ["-h"], 10),
    ("testcsc", ["x"], 40),
    ("script", ["-h"], 100),
    ("custom", ["-h"], 50),
    ("longprog", ["-h"], 90),
    ("longprog", ["x"], 70),
    ("wrap", ["-h"], 44),
    ("wrap", ["--version"], 12),
]


def namespace_text(ns):
    return "\n".join(f"{k}={v!r}" for k, v in sorted(vars(ns).items()))


def run(name, args, columns):
    if columns:
        os.environ["COLUMNS"] = str(columns)
    else:
        os.environ.pop("COLUMNS", None)
    parser = PARSERS[name]()
    out, err = io.StringIO(), io.StringIO()
    code = 0
    ns_text = ""
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            ns = parser.parse_args(args)
            ns_text = namespace_text(ns)
        except SystemExit as e:
            code = e.code
    return code, out.getvalue(), err.getvalue(), ns_text


def go_string(s):
    if "`" not in s and all(c.isprintable() or c == "\n" for c in s):
        return "`" + s + "`"
    return go_quote(s)


def go_quote(s):
    out = []
    for c in s:
        if c == '"':
            out.append('\\"')
        elif c == "\\":
            out.append("\\\\")
        elif c == "\n":
            out.append("\\n")
        elif c.isprintable() and ord(c) < 128:
            out.append(c)
        else:
            out.append("\\u%04x" % ord(c) if ord(c) < 0x10000 else "\\U%08x" % ord(c))
    return '"' + "".join(out) + '"'


def main():
    assert "COLUMNS" not in os.environ, "run with COLUMNS unset"
    assert not sys.__stdout__.isatty(), "run with stdout redirected"
    v = sys.version_info
    print("// Code generated by testdata/record.py; DO NOT EDIT.")
    print(f"// What CPython {v.major}.{v.minor}.{v.micro} argparse printed, "
          "with COLUMNS unset and stdout not a terminal.")
    print()
    print("package argparse_test")
    print()
    print(f'const recordedPython = "{v.major}.{v.minor}.{v.micro}"')
    print()
    print("var recorded = []recordedCase{")
    for name, args, *rest in CASES:
        columns = rest[0] if rest else 0
        code, out, err, ns = run(name, args, columns)
        print("\t{")
        print(f"\t\tparser: {go_quote(name)},")
        if columns:
            print(f"\t\tcolumns: {columns},")
        print("\t\targs:   []string{" + ", ".join(go_quote(a) for a in args) + "},")
        print(f"\t\tcode:   {code},")
        if out:
            print(f"\t\tstdout: {go_string(out)},")
        if err:
            print(f"\t\tstderr: {go_string(err)},")
        if ns:
            print(f"\t\tvalues: {go_string(ns)},")
        print("\t},")
    print("}")


main()
