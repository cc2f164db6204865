# SPDX-License-Identifier: GPL-2.0
"""The runner of the harness's Python unit tests (ab_stats_test.py,
ab_report_test.py): every test function in turn, one PASS or FAIL line
each; a failing test names itself and the others still run; and the
two assertions they share.  Importing it puts scripts/bench on sys.path
(the modules under test); registry() gives a test file its list and the
decorator that fills it."""

import os
import sys

BENCH = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "bench")
if BENCH not in sys.path:
    sys.path.insert(0, BENCH)


def registry():
    """A new list of tests and the decorator that appends a function to it."""
    tests = []

    def test(fn):
        tests.append(fn)
        return fn
    return tests, test


def close(a, b, tol):
    if a is None or abs(a - b) > tol:
        raise AssertionError("%r, expected %r (+-%g)" % (a, b, tol))


def same(a, b):
    if a != b:
        raise AssertionError("%r, expected %r" % (a, b))


def run_tests(tests):
    """Run TESTS; 1 when one failed, else 0."""
    bad = 0
    for fn in tests:
        name = fn.__name__.replace("_", " ")
        try:
            fn()
            print("PASS %s" % name)
        except Exception as e:      # noqa: BLE001 (any failure is a FAIL line)
            bad += 1
            print("FAIL %s: %s: %s" % (name, type(e).__name__, e))
    return 1 if bad else 0
