"""Record str() of the error PyYAML's yaml.safe_load raises for bad YAML.

The Go tests never run this: it writes pyerrors.json, a list of
{"input", "error"} (error: str() of the exception, what ts_salobj's
BaseScript puts after "config(<text>) failed: " in a CONFIGURE_FAILED
reason). Regenerate with the PyYAML the tests claim to match (6.0.3):

    python3 testdata/record_pyerrors.py > testdata/pyerrors.json
"""

import json
import sys

import yaml

CASES = [
    # A flow collection not closed, or closed by the other bracket.
    "a: [1, 2",
    "a: {b: 1",
    "a: [1, 2\n",
    "wait_time: [1,\n  2",
    "a: [1, 2}",
    "a: [1, {b: 2]",
    "x: [1, 'a, ]', 2",
    # A bracket too many after the document.
    "[1, 2]]",
    "{a: 1}}",
    # A mapping value where none is allowed.
    "a: b: c",
    "a: 1\n b: 2",
    "a: 1\n  b: 2\n c: 3",
    "fail_run: true\nwait_time: 1 unit: s",
    # A quoted scalar not closed.
    "a: 'unterminated",
    'a: "unterminated',
    "a: 'x\n",
    'a: "x\n  y',
    # An undefined alias.
    "a: *x",
    "a: 1\nb: [*missing_anchor]",
    # A character that cannot start a token.
    "a:\n\tb: 1",
    # ("a:\tb" too, but the Go side reads it: no error to map.)
    "a: @b",
    "a: `b",
    "a: [b, @c]",
    # A block sequence and a block mapping mixed.
    "- a\nb: 1",
    "a: 1\n- b",
    # Two documents; two %YAML directives.
    "a: 1\n---\nb: 2",
    "# c\n\na: 1\n--- \nb",
    "--- a\n--- b",
    "%YAML 1.1\n%YAML 1.1\n--- a",
    # A long line: the snippet is cut around the mark.
    "key: [" + ", ".join(f"item{i}" for i in range(20)) + "}",
    # Not mapped by the Go side: it keeps its own text.
    "a: &x 1\n&y",
    'key: value\n"other": [',
]

out = []
for case in CASES:
    try:
        yaml.safe_load(case)
    except yaml.YAMLError as e:
        out.append({"input": case, "error": str(e)})
    else:
        sys.exit(f"no error for {case!r}")
json.dump(out, sys.stdout, indent=1, ensure_ascii=False)
print()
