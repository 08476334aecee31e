#!/usr/bin/python3
"""The job's threads, by stage and by operator, side by side for several profiles written by
jfr_profile.py (OUT_PREFIX.md each): samples and their share of all the process's samples.

    compare_profiles.py before after > compare.md
"""
import sys, re, collections
def load(prefix):
    rows = {}
    total = int(open(prefix + '.md').readline().split(':')[1])
    sec = None
    for line in open(prefix + '.md'):
        if line.startswith("The job's threads by stage"): sec = 'cross'
        elif line.startswith('Sampled'): sec = None
        elif sec == 'cross' and line.startswith('| job:'):
            c = [x.strip() for x in line.strip().strip('|').split('|')]
            rows[(c[0], c[1])] = int(c[2])
    return total, rows
runs = sys.argv[1:]
data = {r: load(r) for r in runs}
stages = collections.Counter(); threads = collections.Counter()
for r in runs:
    for (t, s), n in data[r][1].items(): stages[s] += n; threads[t] += n
print('| job threads, by stage | ' + ' | '.join(f'{r} samples (% of all)' for r in runs) + ' |')
print('| --- |' + ' ---: |' * len(runs))
for s, _ in stages.most_common():
    cells = []
    for r in runs:
        tot, rows = data[r]; n = sum(v for (t, st), v in rows.items() if st == s)
        cells.append(f'{n} ({100*n/tot:.1f})')
    print(f'| {s} | ' + ' | '.join(cells) + ' |')
cells = []
for r in runs:
    tot, rows = data[r]; n = sum(rows.values()); cells.append(f'{n} ({100*n/tot:.1f})')
print('| **all job threads** | ' + ' | '.join(cells) + ' |')
print()
print('| job threads, by operator | ' + ' | '.join(runs) + ' |')
print('| --- |' + ' ---: |' * len(runs))
for t, _ in threads.most_common():
    cells = []
    for r in runs:
        tot, rows = data[r]; n = sum(v for (th, st), v in rows.items() if th == t)
        cells.append(f'{n} ({100*n/tot:.1f})')
    print(f'| {t[5:]} | ' + ' | '.join(cells) + ' |')
print()
print('total samples: ' + ', '.join(f'{r} {data[r][0]}' for r in runs))
