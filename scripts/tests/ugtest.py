# SPDX-License-Identifier: GPL-2.0
"""The runner of the harness's Python unit tests (ab_stats_test.py,
ab_report_test.py): every test function in turn, one PASS or FAIL line
each; a failing test names itself and the others still run; and the
two assertions they share."""


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
