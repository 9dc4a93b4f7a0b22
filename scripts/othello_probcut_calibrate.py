#!/usr/bin/env python3
"""Calibrates the midgame search's probable cuts for Othello (`Othello::eval_error_sigma`):
on positions from self-play games from random openings, every depth 1..MAX of tabula's
heuristic search (UGI `go depth N`, a fresh table each, the solver off as under any depth
limit), and the standard deviation of (deep - shallow) for each pair the search uses, by
empties. Run it with a build whose search has no probable cuts (or they change what they
measure).

  python3 scripts/othello_probcut_calibrate.py --tabula target/release/tabula --games 40
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
    args = ap.parse_args()
    rng = random.Random(args.seed)
    ugi = Ugi(args.tabula)
    ugi.send("setoption name OwnBook value false")
    diffs = {}  # (empties band, depth) -> [deep - shallow]
    for g in range(args.games):
        moves = []
        for ply in range(60):
            pos = "position startpos" + (" moves " + " ".join(moves) if moves else "")
            legal = ugi.moves(pos)
            if not legal:
                break
            empties = 60 - len(moves)
            if ply >= 10 and ply % args.every == g % args.every and 14 <= empties <= 50:
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
                band = empties // 10 * 10
                for d in range(3, args.max_depth + 1):
                    s = shallow_of(d)
                    if d in scores and s in scores:
                        diffs.setdefault((band, d), []).append(scores[d] - scores[s])
            if ply < 10:
                moves.append(rng.choice(legal))
            else:
                moves.append(ugi.best(pos, "go nodes 3000"))
        print(f"game {g + 1}/{args.games}", file=sys.stderr)
    ugi.close()
    print("| empties | depth | shallow | n | mean (cp) | sd (cp) |")
    print("|---|---|---|---|---|---|")
    for (band, d), xs in sorted(diffs.items()):
        if len(xs) >= 5:
            print(f"| {band}-{band + 9} | {d} | {shallow_of(d)} | {len(xs)} | "
                  f"{statistics.mean(xs):.0f} | {statistics.pstdev(xs):.0f} |")


if __name__ == "__main__":
    main()
