#!/usr/bin/env python3
"""Random 7x6 Connect Four positions near the start, in the published test sets' notation
(1-based column digits from the empty board), for timing the solver on positions of our own.

usage: connect4_random_set.py COUNT MIN_STONES MAX_STONES SEED > positions.txt

Each position is reached by uniformly random legal moves; positions where the game is over or
the side to move can win at once are drawn again (the published sets leave those out too), as
are repeats. Label them with an independent solver, e.g. Pascal Pons's (github
PascalPons/connect4, `c4solver` without its book), which prints `moves score` per line:

    connect4_random_set.py 200 8 12 1 | c4solver > tests/data/connect4/random_8_12.txt
"""
import random
import sys

W, H = 7, 6


def four(board, col, row, who):
    for dc, dr in ((1, 0), (0, 1), (1, 1), (1, -1)):
        n = 1
        for sign in (1, -1):
            c, r = col + sign * dc, row + sign * dr
            while 0 <= c < W and 0 <= r < H and board[c][r] == who:
                n += 1
                c, r = c + sign * dc, r + sign * dr
        if n >= 4:
            return True
    return False


def position(rng, stones):
    board = [[0] * H for _ in range(W)]
    heights = [0] * W
    moves = []
    for i in range(stones):
        who = 1 + i % 2
        col = rng.choice([c for c in range(W) if heights[c] < H])
        board[col][heights[col]] = who
        heights[col] += 1
        moves.append(col)
        if four(board, col, heights[col] - 1, who):
            return None
    who = 1 + stones % 2
    for c in range(W):
        if heights[c] < H and four(board, c, heights[c], who):
            return None
    return "".join(str(c + 1) for c in moves)


def main():
    count, lo, hi, seed = (int(a) for a in sys.argv[1:5])
    rng = random.Random(seed)
    seen = set()
    while len(seen) < count:
        p = position(rng, rng.randint(lo, hi))
        if p is not None and p not in seen:
            seen.add(p)
            print(p)


if __name__ == "__main__":
    main()
