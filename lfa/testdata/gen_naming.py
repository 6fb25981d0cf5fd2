#!/usr/bin/env python3
"""Generate lfa/testdata/naming.json: ts_salobj's own bucket names and keys.

The tests do not need this script; they read naming.json. It records how
the table was made, once, on 2026-12-05:

    python3 -m venv /tmp/lfa-venv            # Python 3.11.7
    /tmp/lfa-venv/bin/pip install astropy    # astropy 8.0.2, numpy 2.4.6,
                                             # pyerfa 2.0.1.5
    git -C /work/.mirror/lsst-ts+ts_salobj/repo show \
        v8.2.12:python/lsst/ts/salobj/async_s3_bucket.py > /tmp/async_s3_bucket.py
    # ts_salobj tag v8.2.12 = commit 7cad7eed8aeaf7eea307372c00ed56a841c53e6c,
    # blob 43b059ffa6f2f33daa7f0f2e202ff3aecb297a35
    /tmp/lfa-venv/bin/python lfa/testdata/gen_naming.py /tmp/async_s3_bucket.py \
        > lfa/testdata/naming.json

How salobj's code is loaded: ts_salobj 8 is not on PyPI (only 6.9.1), and
AsyncS3Bucket's module imports boto3 and moto, which make_bucket_name and
make_key do not use. So the script parses the file with ast, takes the two
static methods out of class AsyncS3Bucket unchanged (decorators dropped),
and execs them with the names they use: re, astropy (astropy.time) and
u (astropy.units). Nothing of salobj is committed.

Dates: the Go API takes the date as TAI Unix seconds (a float64, as
salobj's current_tai and the SDK's sal.TAI). Each row's date is written as
a TAI ISO string, turned into that float (Time.unix_tai), and salobj is
called with astropy.time.Time(tai, format="unix_tai", scale="tai"): the
exact reading of the float the Go test passes. mjd_path records whether
salobj gives the same key when the float goes through ts_utils'
astropy_time_from_tai_unix (an MJD float, good to about a microsecond);
it differs only within a microsecond of a half millisecond.
"""

import ast
import json
import math
import re
import sys
import typing

import astropy
import astropy.time
import astropy.units as u

SALOBJ_TAG = "v8.2.12"


def load(path):
    src = open(path).read()
    tree = ast.parse(src)
    cls = next(
        n
        for n in tree.body
        if isinstance(n, ast.ClassDef) and n.name == "AsyncS3Bucket"
    )
    fns = []
    for n in cls.body:
        if isinstance(n, ast.FunctionDef) and n.name in (
            "make_bucket_name",
            "make_key",
        ):
            n.decorator_list = []
            fns.append(n)
    assert len(fns) == 2, fns
    ns = {"re": re, "astropy": astropy, "u": u, "typing": typing}
    exec(compile(ast.Module(body=fns, type_ignores=[]), path, "exec"), ns)
    return ns["make_bucket_name"], ns["make_key"]


make_bucket_name, make_key = load(sys.argv[1])

MJD_MINUS_UNIX_SECONDS = 40587 * 86400  # as ts_utils


def mjd_path(tai):
    return astropy.time.Time(
        (MJD_MINUS_UNIX_SECONDS + tai) / 86400, scale="tai", format="mjd"
    )


def bucket_row(note, instance, category=None):
    row = {"note": note, "instance": instance}
    kwargs = {"s3instance": instance}
    if category is not None:
        row["category"] = category
        kwargs["s3category"] = category
    try:
        row["bucket"] = make_bucket_name(**kwargs)
    except ValueError as e:
        row["error"] = "ValueError: " + str(e)
    return row


def key_row(note, salname, salindexname, generator, date, go_refuses=None, **kw):
    """date: a TAI ISO string, or a float (TAI Unix seconds)."""
    if isinstance(date, str):
        tai = float(astropy.time.Time(date, scale="tai").unix_tai)
    else:
        tai = float(date)
    row = {
        "note": note,
        "salname": salname,
        "salindexname": salindexname,
        "generator": generator,
        # JSON has no NaN or Infinity: those are written as strings.
        "tai": tai if math.isfinite(tai) else repr(tai),
    }
    if isinstance(date, str):
        row["tai_iso"] = date
    for k in ("other", "stem", "suffix"):
        if k in kw:
            row[k] = kw[k]
    try:
        t = astropy.time.Time(tai, format="unix_tai", scale="tai")
        row["key"] = make_key(salname, salindexname, generator, t, **kw)
        row["mjd_path"] = (
            make_key(salname, salindexname, generator, mjd_path(tai), **kw)
            == row["key"]
        )
    except ValueError as e:
        row["error"] = "ValueError: " + " ".join(str(e).split())
    if go_refuses:
        row["go_refuses"] = go_refuses
    return row


buckets = [
    bucket_row("default category", "Summit"),
    bucket_row("default category, lower-cased", "TUCSON"),
    bucket_row("salobj's test", "5TEST"),
    bucket_row("salobj's test", "5TEST", "Other3"),
    bucket_row("explicit LFA", "NCSA", "LFA"),
    bucket_row("dots inside", "base.summit", "l.f.a"),
    bucket_row("digits only", "123", "4"),
    bucket_row("one character", "a", "B"),
    bucket_row("mixed case", "TuCsOn", "LfA"),
    bucket_row("length 63 exactly", "a" * 50),
    bucket_row("length 64", "a" * 51),
    bucket_row("too long, category", "x", "c" * 60),
    bucket_row("empty instance", ""),
    bucket_row("empty category", "Summit", ""),
    bucket_row("leading dot", ".foo"),
    bucket_row("trailing dot", "foo."),
    bucket_row("only a dot", "."),
    bucket_row("hash", "#foo"),
    bucket_row("hash inside", "fo#o"),
    bucket_row("at", "@foo"),
    bucket_row("at inside", "f@oo"),
    bucket_row("underscore", "_foo"),
    bucket_row("underscore inside", "fo_o"),
    bucket_row("hyphen inside", "fo-o"),
    bucket_row("space inside", "fo o"),
    bucket_row("trailing newline", "foo\n"),
    bucket_row("leading newline", "\nfoo"),
    bucket_row("trailing space", "foo "),
    bucket_row("slash", "a/b"),
    bucket_row("bad category after good instance", "Summit", "L_FA"),
    bucket_row("both bad: instance named first", "a b", "c d"),
    bucket_row("non-ASCII letter", "caf\u00e9"),
    bucket_row("fullwidth digit", "\uff11"),
    bucket_row("Kelvin sign matches [a-z] ignoring case, lowers to k", "\u212a"),
    bucket_row("long s matches [a-z] ignoring case, stays", "a\u017f"),
    bucket_row("dotless i matches, stays", "\u0131b"),
    bucket_row("dotted capital I lowers to two code points", "\u0130x"),
    bucket_row("dotted capital I: length counts code points", "\u0130" * 25),
    bucket_row("dotted capital I: 26 of them, too long", "\u0130" * 26),
]

D = "2024-03-05T"
keys = [
    key_row("salobj's test: boundary, 1 ms before", "Foo", "Blue", "testFiberSpecBlue", "2020-04-02T11:59:59.999"),
    key_row("salobj's test: rounds up to the boundary", "Foo", "Blue", "testFiberSpecBlue", "2020-04-02T11:59:59.9999"),
    key_row("boundary: 11:59:59.999 is the previous observing day", "ATSpectrograph", None, "ATSpec", D + "11:59:59.999"),
    key_row("boundary: 12:00:00.000 is this observing day", "ATSpectrograph", None, "ATSpec", D + "12:00:00.000"),
    key_row("boundary: midnight is the previous observing day", "ATSpectrograph", None, "ATSpec", D + "00:00:00.000"),
    key_row("boundary: 23:59:59.999", "ATSpectrograph", None, "ATSpec", D + "23:59:59.999"),
    key_row("rounding: 0.49 ms down", "A", None, "g", D + "11:59:59.999495"),
    key_row("rounding: 0.51 ms up, across the boundary", "A", None, "g", D + "11:59:59.999505"),
    key_row("rounding: exactly half a ms (binary .0625) goes up", "A", None, "g", D + "11:59:59.0625"),
    key_row("rounding: exactly half a ms (binary .1875) goes up", "A", None, "g", D + "11:59:59.1875"),
    key_row("rounding: the float below .0005 goes down", "A", None, "g", D + "11:59:59.0005"),
    key_row("rounding: the float above .9995 goes up, across the boundary", "A", None, "g", D + "11:59:59.9995"),
    key_row("year end: Dec 31 11:59:59.999 is Dec 30", "MTCamera", None, "mtcam", "2023-12-31T11:59:59.999"),
    key_row("year end: Dec 31 12:00 is Dec 31", "MTCamera", None, "mtcam", "2023-12-31T12:00:00.000"),
    key_row("year end: Jan 1 00:00 is Dec 31", "MTCamera", None, "mtcam", "2024-01-01T00:00:00.000"),
    key_row("year end: Jan 1 11:59:59.999 is Dec 31", "MTCamera", None, "mtcam", "2024-01-01T11:59:59.999"),
    key_row("year end: Jan 1 12:00 is Jan 1", "MTCamera", None, "mtcam", "2024-01-01T12:00:00.000"),
    key_row("year end: rounds into the new year", "MTCamera", None, "mtcam", "2024-01-01T11:59:59.9999"),
    key_row("leap day", "MTCamera", None, "mtcam", "2024-02-29T11:59:59.999"),
    key_row("leap day, next observing day", "MTCamera", None, "mtcam", "2024-03-01T11:00:00.000"),
    key_row("non-leap year: Mar 1 morning is Feb 28", "MTCamera", None, "mtcam", "2023-03-01T06:00:00.000"),
    key_row("Unix epoch", "A", None, "g", 0.0),
    key_row("before 1970", "A", None, "g", "1969-07-20T20:17:40.000"),
    key_row("year 1000, observing day 1000-01-01", "A", None, "g", "1000-01-01T12:00:00.000"),
    key_row("year 9999 end", "A", None, "g", "9999-12-31T23:59:59.999"),
    key_row("a salobj CSC today", "FiberSpectrograph", 3, "fiberSpecBroad", 1764931234.56789, suffix=".fits"),
    key_row("int index", "Foo", 5, "testFiberSpecBlue", "2020-04-02T11:59:59.9999"),
    key_row("int index 0 is not indexed", "Foo", 0, "gen", D + "20:00:00.000"),
    key_row("string index \"0\" is indexed", "Foo", "0", "gen", D + "20:00:00.000"),
    key_row("empty string index is not indexed", "Foo", "", "gen", D + "20:00:00.000"),
    key_row("negative int index", "Foo", -1, "gen", D + "20:00:00.000"),
    key_row("index name with characters kept as given", "Foo", "AT Blue/x", "gen", D + "20:00:00.000"),
    key_row("other given", "Foo", 5, "testFiberSpecBlue", "2020-04-02T11:59:59.9999", other="othertext"),
    key_row("other given as None: the default", "Foo", 5, "gen", D + "20:00:00.000", other=None),
    key_row("other empty", "Foo", 5, "gen", D + "20:00:00.000", other=""),
    key_row("other with slashes and spaces", "Foo", None, "gen", D + "20:00:00.000", other="seq 12/a"),
    key_row("suffix without a dot", "Foo", 5, "testFiberSpecBlue", "2020-04-02T11:59:59.9999", suffix="suffixtext"),
    key_row("suffix with a dot", "Foo", None, "gen", D + "20:00:00.000", suffix=".fits"),
    key_row("suffix empty", "Foo", None, "gen", D + "20:00:00.000", suffix=""),
    key_row("suffix with two dots", "Foo", None, "gen", D + "20:00:00.000", suffix=".fits.gz"),
    key_row("stem (salobj's test)", "Foo", 5, "testFiberSpecBlue", "2020-04-02T11:59:59.9999", stem="FF_O_20200402_000001", suffix=".fits"),
    key_row("stem with the default suffix", "Foo", None, "gen", D + "20:00:00.000", stem="x"),
    key_row("stem wins over other", "Foo", None, "gen", D + "20:00:00.000", stem="s", other="o"),
    key_row("stem empty", "Foo", None, "gen", D + "20:00:00.000", stem=""),
    key_row("upper case kept", "ATCAMERA", "MAIN", "GEN", D + "20:00:00.000"),
    key_row("characters kept as given: colon, slash, space, underscore", "A:B", None, "x/y z_w", D + "20:00:00.000"),
    key_row("non-ASCII kept", "Caf\u00e9", "\u0130", "g\u00e9n", D + "20:00:00.000"),
    key_row("empty salname and generator", "", None, "", D + "20:00:00.000"),
    key_row("control characters kept", "A\tB", None, "g\nh", D + "20:00:00.000"),
    key_row("NaN", "A", None, "g", float("nan")),
    key_row("+Inf", "A", None, "g", float("inf")),
    key_row("-Inf", "A", None, "g", float("-inf")),
    key_row("year 999: salobj makes a malformed key", "A", None, "g", "0999-06-01T00:00:00.000",
            go_refuses="year outside 1000..9999"),
    key_row("observing day in year 999: malformed", "A", None, "g", "1000-01-01T11:59:59.999",
            go_refuses="observing day outside 1000..9999"),
    key_row("rounds into year 10000: other is malformed", "A", None, "g", "9999-12-31T23:59:59.9999",
            go_refuses="year outside 1000..9999"),
    key_row("year 33658: malformed", "A", None, "g", 1e12, go_refuses="year outside 1000..9999"),
    key_row("year -1199: malformed", "A", None, "g", -1e11, go_refuses="year outside 1000..9999"),
]

json.dump(
    {
        "generated_by": "lfa/testdata/gen_naming.py (see its header)",
        "salobj": SALOBJ_TAG,
        "astropy": astropy.__version__,
        "bucket_names": buckets,
        "keys": keys,
    },
    sys.stdout,
    indent=1,
    ensure_ascii=False,
    allow_nan=False,
)
sys.stdout.write("\n")
