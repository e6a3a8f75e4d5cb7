#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
#
# Turn what the xfstests guest left (fstests' xunit report, and the names of
# tests its watchdog killed) into TAP, judged against the expected failures:
# one line per test of the run's list, in its order; a listed failure is a
# TODO with the list's reason; a listed test that passed is reported.  The
# last line is the count, as scripts/summary.sh reads it.  Exits 1 on a
# failure not listed, a listed test that passed, a test that did not run or
# was killed for running too long, a test with no result, or no pass.
#
#	xfstests-judge.py <expected-failures> <run's list> <guest's results dir>

import os
import sys
import xml.etree.ElementTree as ET


def read_expected(path):
    """<test> <stock-fails|stock-passes|stock-not-run> <reason>, '#' comments."""
    expected = {}
    with open(path) as f:
        for line in f:
            line = line.split('#', 1)[0].strip()
            if not line:
                continue
            test, stock, reason = line.split(None, 2)
            if stock not in ('stock-fails', 'stock-passes', 'stock-not-run'):
                sys.exit(f'{path}: {test}: "{stock}": stock-fails, stock-passes or stock-not-run')
            expected[test] = reason
    return expected


def read_report(results):
    """{test: (status, seconds, message)} from fstests' result.xml."""
    cases = {}
    try:
        root = ET.parse(os.path.join(results, 'result.xml')).getroot()
    except (OSError, ET.ParseError) as e:
        print(f'# no xunit report: {e}')
        return cases
    for case in root.iter('testcase'):
        status, message = 'pass', ''
        for child in case:
            if child.tag == 'skipped':
                status, message = 'notrun', child.get('message', '')
            elif child.tag == 'failure':
                status, message = 'fail', child.get('message', '')
        cases[case.get('name')] = (status, case.get('time', '?'), message)
    return cases


def main():
    expected = read_expected(sys.argv[1])
    with open(sys.argv[2]) as f:
        wanted = [line.strip() for line in f if line.strip()]
    results = sys.argv[3]
    cases = read_report(results)
    try:
        with open(os.path.join(results, 'timed-out')) as f:
            timed_out = set(f.read().split())
    except OSError:
        timed_out = set()

    counts = {'passed': 0, 'failed': 0, 'expected': 0, 'notrun': 0}
    bad = 0
    for n, test in enumerate(wanted, 1):
        if test not in cases:
            print(f'not ok {n} - {test}: no result')
            bad += 1
            continue
        status, secs, message = cases[test]
        if test in timed_out:
            # Never an expected failure: a hang is not the failure listed.
            print(f'not ok {n} - {test} [{secs} s]')
            print('# killed by the watchdog: it ran too long')
            counts['failed'] += 1
            bad += 1
            continue
        if status == 'notrun':
            # Every test of the list runs on AFS (docs/xfstests.md): one
            # that does not is a regression (a _require_ probe failed) or
            # a missing tool, not a skip.
            print(f'not ok {n} - {test} # not run: {message.strip()}')
            counts['notrun'] += 1
            bad += 1
            continue
        verdict = 'ok' if status == 'pass' else 'not ok'
        line = f'{verdict} {n} - {test} [{secs} s]'
        if test in expected:
            print(f'{line} # TODO expected failure: {expected[test]}')
            if status == 'pass':
                print(f'# unexpected pass: {test} is listed in expected-failures')
                bad += 1
            else:
                counts['expected'] += 1
                print(f'# {message}')
            continue
        print(line)
        if status == 'pass':
            counts['passed'] += 1
        else:
            print(f'# {message}')
            counts['failed'] += 1
            bad += 1

    if counts['passed'] == 0:
        print('# no test passed')
        bad += 1
    print(f'1..{len(wanted)}')
    print(f"# {counts['passed']} passed, {counts['failed']} failed, "
          f"{counts['expected']} expected failures, {counts['notrun']} not run")
    # What scripts/summary.sh counts: everything judged bad is a failure;
    # expected failures and tests that do not run on AFS are skipped.
    print(f"# {counts['passed']} passed (tests), {bad} failed, "
          f"{counts['expected'] + counts['notrun']} skipped")
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
