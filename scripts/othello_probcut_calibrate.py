#!/usr/bin/env python3
"""Calibrates the midgame search's probable cuts for Othello (`Othello::eval_error_sigma`):
on positions from self-play games from random openings, every depth 1..MAX of tabula's
heuristic search (UGI `go depth N`, a fresh table each, the solver off as under any depth
limit), and the standard deviation of (deep - shallow) for each pair the search uses, by
empties. Run it with a build whose search has no probable cuts (or they change what they
measure). `--size N` calibrates a big board (10 to 16): its positions sampled by the same
share of the game, its bands a tenth of the board's squares wide (`--size 16`: 25 empties).

  python3 scripts/othello_probcut_calibrate.py --tabula target/release/tabula --games 40
  python3 scripts/othello_probcut_calibrate.py --tabula target/release/tabula --size 16 \
      --games 30 --every 10 --max-depth 10
"""
import argparse
import random
import statistics
import sys

sys.path.insert(0, __file__.rsplit("/", 1)[0])
from othello_midgame import Ugi  # noqa: E402


def shallow_of(depth):
    """The search's shallow depth for a node of `depth` (src/search/node.rs, `probcut`)."""
    return ((depth >> 2) << 1) | (depth & 1)


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--tabula", required=True)
    ap.add_argument("--games", type=int, default=40)
    ap.add_argument("--seed", type=int, default=11)
    ap.add_argument("--max-depth", type=int, default=12)
    ap.add_argument("--every", type=int, default=6, help="plies between sampled positions")
    ap.add_argument("--size", type=int, default=8, help="the board's side")
    args = ap.parse_args()
    rng = random.Random(args.seed)
    n = args.size
    cells = n * n - 4
    # 8x8's choices (10 random plies, positions from 50 down to 14 empties, bands of 10
    # empties) scaled to the board.
    random_plies = 10 * cells // 60
    top, bottom, band_width = 50 * cells // 60, 14 * cells // 60, max(10, n * n // 10)
    ugi = Ugi(args.tabula, ["--size", str(n)])
    ugi.send("setoption name OwnBook value false")
    diffs = {}  # (empties band, depth) -> [deep - shallow]
    for g in range(args.games):
        moves = []
        for ply in range(cells):
            pos = "position startpos" + (" moves " + " ".join(moves) if moves else "")
            legal = ugi.moves(pos)
            if not legal:
                break
            empties = cells - len(moves)
            if (ply >= random_plies and ply % args.every == g % args.every
                    and bottom <= empties <= top):
                scores = {}
                for d in range(1, args.max_depth + 1):
                    ugi.send("uginewgame")
                    ugi.send(pos)
                    ugi.send(f"go depth {d}")
                    lines = ugi.until("bestmove")
                    cp = [l for l in lines if " score cp " in l and " pv " in l
                          and "bound" not in l]
                    if cp:
                        scores[d] = int(cp[-1].split(" score cp ")[1].split()[0])
                band = empties // band_width * band_width
                for d in range(3, args.max_depth + 1):
                    s = shallow_of(d)
                    if d in scores and s in scores:
                        diffs.setdefault((band, d), []).append(scores[d] - scores[s])
            if ply < random_plies:
                moves.append(rng.choice(legal))
            else:
                moves.append(ugi.best(pos, "go nodes 3000"))
        print(f"game {g + 1}/{args.games}", file=sys.stderr)
    ugi.close()
    print("| empties | depth | shallow | n | mean (cp) | sd (cp) |")
    print("|---|---|---|---|---|---|")
    for (band, d), xs in sorted(diffs.items()):
        if len(xs) >= 5:
            print(f"| {band}-{band + band_width - 1} | {d} | {shallow_of(d)} | {len(xs)} | "
                  f"{statistics.mean(xs):.0f} | {statistics.pstdev(xs):.0f} |")


if __name__ == "__main__":
    main()
