#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
#
# Turn what the xfstests guest left (./check's output, and the names of
# tests its watchdog killed) into TAP, judged against the expected failures:
# one line per test of the run's list, in its order; a listed failure is a
# TODO with the list's reason when it is an output mismatch whose .out.bad
# is the golden .out with the line the list names added once (else it
# failed some other way, and fails the run); a listed test that passed is
# reported.  The
# last line is the count, as scripts/summary.sh reads it.  Exits 1 on a
# failure not listed, a listed test that passed, a test that did not run or
# was killed for running too long, a test with no result, or no pass.
#
#	xfstests-judge.py <expected-failures> <run's list> <guest's results dir>

import os
import re
import sys


def read_expected(path):
    """<test> <stock-fails|...> <line of .out.bad> <reason>, tab-separated."""
    expected = {}
    with open(path) as f:
        for line in f:
            if line.startswith('#') or not line.strip():
                continue
            fields = line.rstrip('\n').split('\t')
            if len(fields) != 4 or not all(fields):
                sys.exit(f'{path}: "{line.strip()}": want four fields, tab-separated')
            test, stock, bad_line, reason = fields
            if stock not in ('stock-fails', 'stock-passes', 'stock-not-run'):
                sys.exit(f'{path}: {test}: "{stock}": stock-fails, stock-passes or stock-not-run')
            expected[test] = (bad_line, reason)
    return expected


def listed_failure_missing(results, test, message, bad_line):
    """Why a failed listed test did not fail the listed way, or None if it did.

    The listed way is an output mismatch (not a non-zero exit status or a
    dmesg finding, which a TODO would hide) in which the test's .out.bad is
    its golden output (as ./check chose it, copied out by the guest) with
    the listed line added once, and nothing else changed.
    """
    if not message.startswith('- output mismatch'):
        return 'not an output mismatch'
    try:
        with open(os.path.join(results, test + '.out.bad'), errors='replace') as f:
            bad = f.read().splitlines()
        with open(os.path.join(results, test + '.out'), errors='replace') as f:
            golden = f.read().splitlines()
    except OSError as e:
        return f'no output to compare: {e}'
    if not any(line == bad_line and bad[:k] + bad[k + 1:] == golden
               for k, line in enumerate(bad)):
        return f'{test}.out.bad is not its golden .out with "{bad_line}" added once'
    return None


def read_report(results, wanted):
    """{test: (status, seconds or None, message)} from ./check's output.

    ./check prints one entry a test: its name at the start of a line, then
    "<n>s" for a pass, "[not run] <reason>", or what failed ("- output
    mismatch ...", "[failed, exit status <n>]", "_check_dmesg: ...") and
    the indented lines of a diff.  The guest writes check.out to the host as
    the run goes, so a guest that died or timed out still leaves the
    results of the tests before.  No xunit report (-R): under TCG it cost
    ./check about 4 s a test.
    """
    cases = {}
    try:
        with open(os.path.join(results, 'check.out'), errors='replace') as f:
            lines = f.read().splitlines()
    except OSError as e:
        print(f'# no output of ./check: {e}')
        return cases
    names = set(wanted)
    for line in lines:
        m = re.match(r'([\w-]+/[0-9]+)(?![0-9])(.*)', line)
        if not m or m.group(1) not in names:
            continue
        test = m.group(1)
        # Without -R, the time of the test's last pass, when ./check has
        # one, comes first: "<n>s ... ".
        rest = re.sub(r'^[0-9]+s \.\.\.\s*', '', m.group(2).strip())
        if test in cases:
            # ./check runs each test of its list once.
            cases[test] = ('fail', None, f'reported twice by ./check: {rest}')
        elif re.fullmatch(r'[0-9]+s', rest):
            cases[test] = ('pass', rest[:-1], '')
        elif rest.startswith('[not run]'):
            cases[test] = ('notrun', None, rest[len('[not run]'):].strip())
        elif rest:
            cases[test] = ('fail', None, rest)
        # else: its name and nothing after: the run stopped during it.

    # ./check's own tally, when it got to the end, has the last word: a
    # test in its "Failures:" failed whatever its line said.
    try:
        with open(os.path.join(results, 'check.log')) as f:
            tally = [line.split()[1:] for line in f if line.startswith('Failures:')]
    except OSError:
        tally = []
    for test in tally[-1] if tally else []:
        if test in cases and cases[test][0] == 'pass':
            cases[test] = ('fail', cases[test][1], 'listed in Failures: by ./check')
    return cases


def main():
    expected = read_expected(sys.argv[1])
    with open(sys.argv[2]) as f:
        wanted = [line.strip() for line in f if line.strip()]
    results = sys.argv[3]
    cases = read_report(results, wanted)
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
        # ./check times only the tests that pass.
        took = f' [{secs} s]' if secs else ''
        if test in timed_out:
            # Never an expected failure: a hang is not the failure listed.
            print(f'not ok {n} - {test}{took}')
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
        line = f'{verdict} {n} - {test}{took}'
        why_not = None
        if test in expected and status != 'pass':
            why_not = listed_failure_missing(results, test, message, expected[test][0])
        if test in expected and not why_not:
            print(f'{line} # TODO expected failure: {expected[test][1]}')
            if status == 'pass':
                print(f'# unexpected pass: {test} is listed in expected-failures')
                bad += 1
            else:
                counts['expected'] += 1
                print(f'# {message}')
            continue
        if why_not:
            # Failed, but not the way listed: another defect.
            print(line)
            print(f'# {message}')
            print(f'# not the listed failure: {why_not}')
            counts['failed'] += 1
            bad += 1
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
    # What scripts/summary.sh counts: everything judged bad is a failure
    # (a test that does not run among them), expected failures skipped.
    print(f"# {counts['passed']} passed (tests), {bad} failed, "
          f"{counts['expected']} skipped")
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
