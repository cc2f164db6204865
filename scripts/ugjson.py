#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The JSON helpers of scripts/lib.sh (ug_jget, ug_jcheck, ug_jmerge):

  ugjson.py get FILE PATH...        the values at PATHs (dot-separated keys,
                                    list indexes as numbers), space separated
  ugjson.py check FILE EXPR...      each Python expression over the object
                                    (keys as names: seq.loss == 0); one
                                    "# check failed: ..." line per false one
  ugjson.py merge KEY=FILE...       one object {KEY: <FILE's object>, ...}

FILE - is stdin.  Exit 0, or 1 when a PATH is absent, a check is false or a
file holds no JSON."""
import argparse
import json
import re
import sys

# what a check expression may call
BUILTINS = {"abs": abs, "len": len, "min": min, "max": max, "sum": sum}
NAME = re.compile(r"[A-Za-z_][A-Za-z_0-9]*(?:\.[A-Za-z_][A-Za-z_0-9]*)*")


class O(dict):
    """a JSON object whose keys read as attributes (seq.loss)"""

    def __getattr__(self, k):
        return self[k]


def load(path, hook=None):
    if path == "-":
        return json.load(sys.stdin, object_hook=hook)
    with open(path) as f:
        return json.load(f, object_hook=hook)


def show(v):
    """a value as the shell wants it: objects, lists, booleans and null as
    JSON, strings and numbers as they are"""
    return json.dumps(v) if isinstance(v, (dict, list, bool)) or v is None else str(v)


def lookup(v, path):
    for k in path.split("."):
        v = v[int(k)] if isinstance(v, list) else v[k]
    return v


def cmd_get(a):
    d = load(a.file)
    try:
        print(" ".join(show(lookup(d, p)) for p in a.path))
    except (KeyError, IndexError, ValueError, TypeError) as e:
        print("ugjson.py get: %s: no %r" % (a.file, e.args[0] if e.args else e),
              file=sys.stderr)
        return 1
    return 0


def values(d, expr):
    """name=value for every dotted name of EXPR that the object has"""
    out = []
    for name in sorted(set(NAME.findall(expr))):
        v = d
        try:
            for k in name.split("."):
                v = v[k]
        except (KeyError, TypeError):
            continue
        out.append("%s=%s" % (name, json.dumps(v)))
    return out


def check_one(d, expr):
    """'' when EXPR holds over D, else the line saying why not"""
    try:
        ok = eval(expr, {"__builtins__": BUILTINS}, d)
    except Exception as x:
        ok, why = False, repr(x)
    else:
        why = ""
    if ok:
        return ""
    return "# check failed: %s (%s)%s" % (expr, " ".join(values(d, expr)),
                                          " " + why if why else "")


def cmd_check(a):
    try:
        d = load(a.file, O)
    except (OSError, ValueError) as e:
        print("# check failed: %s: no JSON summary (%s)" % (a.file, e))
        return 1
    rc = 0
    for e in a.expr:
        line = check_one(d, e)
        if line:
            print(line)
            rc = 1
    return rc


def cmd_merge(a):
    out = {}
    for kf in a.pair:
        key, sep, path = kf.partition("=")
        if not sep or not key:
            print("ugjson.py merge: '%s': allowed KEY=FILE" % kf, file=sys.stderr)
            return 1
        try:
            out[key] = load(path)
        except (OSError, ValueError) as e:
            print("ugjson.py merge: %s: %s" % (path, e), file=sys.stderr)
            return 1
    print(json.dumps(out))
    return 0


def main():
    ap = argparse.ArgumentParser(prog="ugjson.py", description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    g = sub.add_parser("get", help="print values")
    g.add_argument("file")
    g.add_argument("path", nargs="+")
    g.set_defaults(fn=cmd_get)
    c = sub.add_parser("check", help="check expressions")
    c.add_argument("file")
    c.add_argument("expr", nargs="*")
    c.set_defaults(fn=cmd_check)
    m = sub.add_parser("merge", help="merge files under keys")
    m.add_argument("pair", nargs="+", metavar="KEY=FILE")
    m.set_defaults(fn=cmd_merge)
    a = ap.parse_args()
    return a.fn(a)


if __name__ == "__main__":
    sys.exit(main())
