#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Count the results of a kunit.py --json run by kind.

A result is one of three kinds, told apart by the shape of the suite that
gave it, so that a new suite is counted right with nothing to declare:

  rows        the parameters of a parameterised case (KUNIT_CASE_PARAM): the
              rows of a table, labelled by the case's name without "afs_"
              and "_table" (afs_addr_list_parse_table: "addr_list_parse
              rows")
  cases       every other case
  benchmarks  the cases of a suite whose name ends in "_bench": they measure
              and print figures, assert only that they could run, and are
              never counted as passed; one that fails to run counts as failed

kunit-count.py RESULT.json NAME
    "NAME: P passed (R addr_list_parse rows, ..., C cases), F failed,
    S skipped" (one line), where P is the rows and cases that passed
kunit-count.py --check RESULT.json
    exits 1 if anything failed or no row or case passed
kunit-count.py --bench RESULT.json KTAP NAME
    one line per benchmark suite that ran: its figures, the lines its cases
    logged (kunit_info()), from the KTAP the kernel printed
kunit-count.py --failslab RESULT.json KTAP NAME LEAST
    the failslab run (kunit/failslab.h): the allocation failures each suite
    reached, summed from its cases' "failslab: N allocation failures"
    lines, and the results by status; exits 1 if a case crashed (kunit.py's
    "ERROR") or timed out, a suite logged no such line, a suite that
    allocates reached no failure, no failure was injected at all, or fewer
    than LEAST results came
"""

import json
import re
import sys

BENCH_SUFFIX = "_bench"


def row_label(case_name):
    label = case_name
    if label.startswith("afs_"):
        label = label[len("afs_"):]
    if label.endswith("_table"):
        label = label[:-len("_table")]
    return label + " rows"


def walk(group, depth, suite, out):
    """depth 0: the run, 1: a suite, 2: a parameterised case."""
    for case in group.get("test_cases", []):
        status = {"PASS": "passed", "SKIP": "skipped"}.get(case["status"],
                                                           "failed")
        if suite.endswith(BENCH_SUFFIX):
            kind = "benchmarks"
        elif depth >= 2:
            kind = row_label(group["name"])
        else:
            kind = "cases"
        out.append((suite, kind, status, case["name"]))
    for sub in group.get("sub_groups", []):
        walk(sub, depth + 1, sub["name"] if depth == 0 else suite, out)
    return out


def results(path):
    with open(path) as f:
        return walk(json.load(f), 0, "", [])


def summary(res, name):
    passed = {}
    failed = skipped = 0
    for _, kind, status, _ in res:
        if status == "failed":
            failed += 1
        elif status == "skipped":
            skipped += 1
        elif kind != "benchmarks":
            passed[kind] = passed.get(kind, 0) + 1
    # Rows first, in the order their tables ran, then the cases.
    kinds = [k for k in passed if k != "cases"] + \
        (["cases"] if "cases" in passed else [])
    detail = ", ".join("%d %s" % (passed[k], k) for k in kinds)
    line = "%s: %d passed" % (name, sum(passed.values()))
    if detail:
        line += " (%s)" % detail
    return line + ", %d failed, %d skipped" % (failed, skipped)


def check(res):
    ok = [r for r in res if r[1] != "benchmarks" and r[2] == "passed"]
    bad = [r for r in res if r[2] == "failed"]
    return 1 if bad or not ok else 0


# A line a case logged: "# <case>: <text>", at any indentation.
LOG_LINE = re.compile(r"^\s*# (\w+): (.*)$")


def bench(res, ktap, name):
    cases = {}
    for suite, kind, status, case in res:
        if kind == "benchmarks" and status == "passed":
            cases.setdefault(suite, set()).add(case)
    figures = {s: [] for s in cases}
    with open(ktap, errors="replace") as f:
        for line in f:
            m = LOG_LINE.match(line)
            if not m:
                continue
            for suite in cases:
                if m.group(1) in cases[suite]:
                    figures[suite].append(m.group(2).strip())
    for s in cases:
        print("%s benchmark %s: %s" % (name, s,
                                      "; ".join(figures[s]) or "no figures"))
    return 0


FAILSLAB_LINE = re.compile(r"failslab: (\d+) allocation failures")
# Suites whose cases allocate nothing from the slab (tables of pure
# functions; folios come from the page allocator): they may reach no
# failure.  Benchmarks may not either.  Every other suite must.
FAILSLAB_PURE = {"afs_cb_decode", "afs_vl_rotate", "afs_write_region"}
TIMED_OUT = re.compile(r"# \S+: (try timed out|test case timed out)")


def names_by_suite(group, suite, out):
    """Every case and row name under each suite, to tell whose a line is."""
    for sub in group.get("sub_groups", []):
        s = suite or sub["name"]
        out.setdefault(s, set()).add(sub["name"])
        names_by_suite(sub, s, out)
    for case in group.get("test_cases", []):
        out.setdefault(suite, set()).add(case["name"])
    return out


def failslab(path, ktap, name, least):
    with open(path) as f:
        run = json.load(f)
    names = names_by_suite(run, "", {})
    res = walk(run, 0, "", [])
    injected = {s: None for s in names if s}
    timeouts = 0
    with open(ktap, errors="replace") as f:
        for line in f:
            # A case that timed out leaves failslab armed in its thread.
            timeouts += bool(TIMED_OUT.search(line))
            m = LOG_LINE.match(line)
            n = m and FAILSLAB_LINE.match(m.group(2).strip())
            if not n:
                continue
            for s in injected:
                if m.group(1) in names[s]:
                    injected[s] = (injected[s] or 0) + int(n.group(1))
    counts = {"passed": 0, "failed": 0, "skipped": 0}
    for r in res:
        counts[r[2]] += 1
    errors = count_errors(run)
    total = sum(n or 0 for n in injected.values())
    print("%s: %d results of at least %d (%d passed, %d failed, %d skipped, "
          "%d crashed); allocation failures injected: %d: %s" %
          (name, len(res), least, counts["passed"], counts["failed"],
           counts["skipped"], errors, total,
           ", ".join("%s %s" % (s, "none logged" if n is None else n)
                     for s, n in sorted(injected.items()))))
    short = [s for s, n in injected.items() if not n and
             s not in FAILSLAB_PURE and not s.endswith("_bench")]
    if short:
        print("%s: no allocation failure reached in: %s" %
              (name, ", ".join(sorted(short))))
    if timeouts:
        print("%s: %d case(s) timed out" % (name, timeouts))
    bad = errors or total == 0 or None in injected.values() or short or \
        timeouts or len(res) < least
    return 1 if bad else 0


def count_errors(group):
    n = sum(1 for c in group.get("test_cases", []) if c["status"] == "ERROR")
    return n + sum(count_errors(g) for g in group.get("sub_groups", []))


def main(argv):
    if argv[1:2] == ["--failslab"]:
        return failslab(argv[2], argv[3], argv[4], int(argv[5]))
    if argv[1:2] == ["--check"]:
        return check(results(argv[2]))
    if argv[1:2] == ["--bench"]:
        return bench(results(argv[2]), argv[3], argv[4])
    print(summary(results(argv[1]), argv[2]))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
