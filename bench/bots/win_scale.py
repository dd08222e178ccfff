#!/usr/bin/env python3
"""The win probability of `carc analyse` and `carc engine`: fits the scale s
of P(win) = logistic(heuristic margin / s), s = a + b * t (t the share of
tiles left), by log loss on the positions of a `carc train --dump` file;
games 0..399 fit, 400.. are held out. Python's stdlib only.

    carc train --games 500 --test-games 1 --dump cal.csv
    python3 bench/bots/win_scale.py cal.csv
"""
import csv
import math
import sys


def load(path):
    rows = csv.reader(open(path))
    head = next(rows)
    im, it = head.index("eval_margin"), head.index("tiles_left_t")
    fit, held = [], []
    for r in rows:
        if r[0] != "train":
            continue
        y = float(r[-1])
        d = (float(r[im]), float(r[it]), 1.0 if y > 0 else 0.5 if y == 0 else 0.0)
        (fit if int(r[1]) < 400 else held).append(d)
    return fit, held


def logloss(a, b, data):
    total = 0.0
    for m, t, o in data:
        p = 1 / (1 + math.exp(-m / (a + b * t)))
        p = min(max(p, 1e-9), 1 - 1e-9)
        total -= o * math.log(p) + (1 - o) * math.log(1 - p)
    return total / len(data)


def main():
    fit, held = load(sys.argv[1])
    grid = [(a, b) for a in (2, 3, 4, 5, 6, 8) for b in (0, 2, 4, 6, 8, 10, 12, 14, 16)]
    a, b = min(grid, key=lambda ab: logloss(ab[0], ab[1], fit))
    print("positions: %d to fit, %d held out" % (len(fit), len(held)))
    print("best s = %g + %g t; held-out log loss %.4f (s = 20: %.4f, s = 8: %.4f)"
          % (a, b, logloss(a, b, held), logloss(20, 0, held), logloss(8, 0, held)))
    bins = [[0, 0.0] for _ in range(10)]
    for m, t, o in held:
        k = min(int(10 / (1 + math.exp(-m / (a + b * t)))), 9)
        bins[k][0] += 1
        bins[k][1] += o
    print("held out, predicted -> observed win share (positions):")
    for k, (n, w) in enumerate(bins):
        if n:
            print("  %.1f-%.1f -> %.2f (%d)" % (k / 10, (k + 1) / 10, w / n, n))


if __name__ == "__main__":
    main()
