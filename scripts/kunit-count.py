#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Count the cases in a kunit.py --json result.

kunit-count.py RESULT.json NAME   prints "NAME: P passed, F failed, S skipped"
kunit-count.py --check RESULT.json  exits 1 if any case failed or none passed
"""

import json
import sys


def count(group, totals):
    for case in group.get("test_cases", []):
        status = case["status"]
        key = {"PASS": "passed", "SKIP": "skipped"}.get(status, "failed")
        totals[key] += 1
    for sub in group.get("sub_groups", []):
        count(sub, totals)
    return totals


def main(argv):
    check = argv[1:2] == ["--check"]
    args = argv[2:] if check else argv[1:]
    with open(args[0]) as f:
        totals = count(json.load(f), {"passed": 0, "failed": 0, "skipped": 0})
    if check:
        return 1 if totals["failed"] or not totals["passed"] else 0
    print("%s: %d passed, %d failed, %d skipped" %
          (args[1], totals["passed"], totals["failed"], totals["skipped"]))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
