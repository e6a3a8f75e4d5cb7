#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
#
# Summarise the runs of scripts/e2e-bench.sh: for each metric, the median
# and the range (min-max) of each kernel's runs, and ours/stock of the
# medians.  Reads <results>/bench-{stock,ours}-<i>.txt, whose lines are
# "bench: <metric> <value> <unit>".
#
#	bench-summary.py <results directory> <runs>

import statistics
import sys


def read_run(path):
    figures = {}
    with open(path) as f:
        for line in f:
            _, metric, value, unit = line.split()
            figures[metric] = (float(value), unit)
    return figures


def fmt(value):
    return f'{value:.0f}' if value >= 100 else f'{value:.1f}'


def main():
    results, runs = sys.argv[1], int(sys.argv[2])
    kernels = ('stock', 'ours')
    runs_of = {k: [read_run(f'{results}/bench-{k}-{i}.txt')
                   for i in range(1, runs + 1)] for k in kernels}

    metrics = list(runs_of['stock'][0])
    print(f'{runs} runs per kernel, interleaved; median [min-max]')
    print(f'{"metric":<9} {"stock 6.1":>24} {"ours":>24} {"ours/stock":>10}  unit')
    for metric in metrics:
        cells, medians = [], {}
        for k in kernels:
            values = [run[metric][0] for run in runs_of[k]]
            medians[k] = statistics.median(values)
            cells.append(f'{fmt(medians[k])} [{fmt(min(values))}-{fmt(max(values))}]')
        unit = runs_of['stock'][0][metric][1]
        ratio = medians['ours'] / medians['stock'] if medians['stock'] else 0
        print(f'{metric:<9} {cells[0]:>24} {cells[1]:>24} {ratio:>10.2f}  {unit}')


if __name__ == '__main__':
    main()
