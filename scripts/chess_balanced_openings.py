#!/usr/bin/env python3
"""Balanced chess openings for a strength match: the recipe of protocol/learning.md's matches
against Ethereal 12 (scripts/chess-openings-77005.epd and after), as one command.

    python3 scripts/chess_balanced_openings.py --seed 77011 --out scripts/chess-openings-77011.epd

draws `tabula "genfens 400 seed S book None" quit` (random openings, 8-9 plies), scores each with
a depth-12 search of the tuned linear evaluation (`EvalFile=<hce>`, not the network a match
measures) and keeps the first 100, in genfens order, whose score is within +-60 centipawns.
The output depends only on the seed and the build's genfens and search (one thread, Hash 16).
"""
import argparse
import subprocess
import sys


def genfens(tabula, count, seed):
    out = subprocess.run([tabula, f"genfens {count} seed {seed} book None", "quit"],
                         capture_output=True, text=True, check=True).stdout
    prefix = "info string genfens "
    return [line[len(prefix):].strip() for line in out.splitlines() if line.startswith(prefix)]


def scores(tabula, fens, depth):
    """The depth-`depth` score (centipawns, side to move) of each FEN; None for a mate score."""
    p = subprocess.Popen([tabula], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)

    def send(line):
        p.stdin.write(line + "\n")
        p.stdin.flush()

    def until(prefix):
        seen = []
        for line in p.stdout:
            seen.append(line.strip())
            if line.startswith(prefix):
                return seen
        sys.exit(f"{tabula}: ended before '{prefix}'")

    send("uci")
    until("uciok")
    send("setoption name Threads value 1")
    send("setoption name Hash value 16")
    send("setoption name EvalFile value <hce>")
    for fen in fens:
        send("ucinewgame")
        send(f"position fen {fen}")
        send(f"go depth {depth}")
        score = None
        for line in until("bestmove"):
            words = line.split()
            if "score" in words:
                i = words.index("score")
                score = int(words[i + 2]) if words[i + 1] == "cp" else None
        yield fen, score
    send("quit")
    p.wait()


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tabula", default="target/release/tabula")
    ap.add_argument("--seed", type=int, required=True)
    ap.add_argument("--draw", type=int, default=400, help="openings drawn by genfens")
    ap.add_argument("--keep", type=int, default=100, help="openings kept")
    ap.add_argument("--depth", type=int, default=12)
    ap.add_argument("--within", type=int, default=60, help="largest |score| kept, centipawns")
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    kept = []
    for fen, score in scores(a.tabula, genfens(a.tabula, a.draw, a.seed), a.depth):
        if score is not None and abs(score) <= a.within:
            kept.append(fen)
            if len(kept) == a.keep:
                break
    if len(kept) < a.keep:
        sys.exit(f"only {len(kept)} of {a.draw} openings within +-{a.within} cp; draw more")
    with open(a.out, "w") as f:
        f.write("".join(fen + "\n" for fen in kept))
    print(f"{a.out}: {len(kept)} openings")


if __name__ == "__main__":
    main()
