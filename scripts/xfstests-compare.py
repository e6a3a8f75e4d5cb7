#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
#
# The stock column: two xfstests TAP files (scripts/xfstests-judge.py's),
# stock's and ours, as one Markdown table, test by test in the list's
# order, with the seconds each took.  Exits 1 if a test that stock passes
# does not pass on ours, or if a test is in one file only.
#
#	xfstests-compare.py <stock's TAP> <ours' TAP>

import re
import sys

LINE = re.compile(r'^(ok|not ok) \d+ - (\S+?)(?::| \[(\d+) s\]|(?= )|$)(.*)')


def read_tap(path):
    """{test: (passed, seconds, why)}, in the file's order."""
    tests = {}
    with open(path) as f:
        for line in f:
            m = LINE.match(line.rstrip('\n'))
            if not m:
                continue
            verdict, test, secs, rest = m.groups()
            why = ''
            if verdict == 'not ok':
                why = 'expected failure' if '# TODO' in rest else 'fails'
                if 'not run' in rest or 'no result' in rest:
                    why = 'not run'
            tests[test] = (verdict == 'ok', secs or '-', why)
    return tests


def cell(result):
    passed, secs, why = result
    text = 'passes' if passed else why
    return text if secs == '-' else f'{text} ({secs} s)'


def main():
    if len(sys.argv) != 3:
        sys.exit('usage: xfstests-compare.py <stock TAP> <ours TAP>')
    stock, ours = read_tap(sys.argv[1]), read_tap(sys.argv[2])
    bad = 0
    print('| test | stock 6.1 | ours |')
    print('|---|---|---|')
    for test in list(ours) + [t for t in stock if t not in ours]:
        s, o = stock.get(test), ours.get(test)
        mark = ''
        if s is None or o is None:
            mark = ' **in one run only**'
            bad += 1
        elif s[0] and not o[0]:
            mark = ' **regression**'
            bad += 1
        print(f'| {test} | {cell(s) if s else "-"} | {cell(o) if o else "-"}{mark} |')
    both = [t for t in ours if t in stock]
    print()
    print(f'{len(both)} tests in both runs: stock passes '
          f'{sum(stock[t][0] for t in both)}, ours {sum(ours[t][0] for t in both)}; '
          f'{sum(stock[t][0] and not ours[t][0] for t in both)} that stock passes fail on ours, '
          f'{sum(ours[t][0] and not stock[t][0] for t in both)} that stock fails pass on ours')
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
