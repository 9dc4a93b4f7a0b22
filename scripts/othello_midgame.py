#!/usr/bin/env python3
"""The Othello midgame benchmark: how many discs the move tabula plays loses against the
exact best move, on positions with 22-26 empty squares from varied games (or the move of
another UGI engine, with --engine and --go).

  generate: self-play games from random openings (tabula over UGI plays them: random first
            plies, then `go nodes N`), one position per game at a random number of empties
            in [lo, hi]; every legal move of it valued exactly by `tabula solve --game othello`
            (the exact solver is the oracle). Lines are FFO-style .obf: 64 squares X/O/-,
            the side to move, then `MOVE:+v;` for every move, best first (v: the final disc
            margin for the mover with perfect play after it).
  openings: COUNT distinct positions after PLIES random legal moves from the start (no pass
            among them), one FEN a line, for `tabula match --openings`.
  measure:  tabula (or --engine) plays each position at each time per move (`--go`, by default
            UGI `go movetime`); the loss of its move is best - value(move). Prints a table by
            empties: positions, mean loss, best-move rate, mean seconds a move (wall clock,
            the whole exchange).

No rules live here: legal moves come from tabula's `go perft 1`, positions from its `d`.

  python3 scripts/othello_midgame.py generate --tabula target/release/tabula \
      --out tests/data/othello-midgame.obf --count 100 --seed 1
  python3 scripts/othello_midgame.py openings --tabula target/release/tabula \
      --count 120 --plies 8 --seed 8 > scripts/othello-8ply.txt
  python3 scripts/othello_midgame.py measure --tabula target/release/tabula \
      --set tests/data/othello-midgame.obf --movetime 100,300,1000
  python3 scripts/othello_midgame.py measure --set tests/data/othello-midgame.obf \
      --engine "egaroucid-web-ugi --level 14 --nobook" --go go --movetime 0
"""
import argparse
import random
import shlex
import subprocess
import time
import sys


class Ugi:
    def __init__(self, exe, extra=(), command=None):
        argv = command if command else [exe, "--game", "othello", *extra]
        self.p = subprocess.Popen(argv, stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE, text=True, bufsize=1)
        self.send("ugi")
        self.until("ugiok")

    def send(self, line):
        self.p.stdin.write(line + "\n")
        self.p.stdin.flush()

    def until(self, prefix):
        lines = []
        while True:
            line = self.p.stdout.readline()
            if not line:
                raise RuntimeError("tabula exited")
            line = line.rstrip("\n")
            lines.append(line)
            if line.startswith(prefix):
                return lines

    def moves(self, position):
        self.send(position)
        self.send("go perft 1")
        lines = self.until("Nodes searched")
        return [l.split(":")[0] for l in lines if l.endswith(": 1")]

    def fen(self, position):
        self.send(position)
        self.send("d")
        for l in self.until("Key:"):
            if l.startswith("Fen: "):
                return l[5:]
        raise RuntimeError("no Fen line")

    def best(self, position, go):
        return self.best_and_info(position, go)[0]

    def best_and_info(self, position, go):
        """The move played and the last `info` line before it."""
        self.send(position)
        self.send(go)
        lines = self.until("bestmove")
        pv = [l for l in lines if l.startswith("info") and " pv " in l]
        notes = [l for l in lines if l.startswith("info string")]
        return lines[-1].split()[1], " || ".join(x[-1] for x in (pv, notes) if x)

    def close(self):
        self.send("quit")
        self.p.wait()


def fen_to_obf(fen):
    rows, side = fen.split()
    squares = ""
    for row in rows.split("/"):
        for ch in row:
            squares += "-" * int(ch) if ch.isdigit() else {"x": "X", "o": "O"}[ch]
    return squares, {"x": "X", "o": "O"}[side]


def solve(exe, obf_lines):
    """Exact scores (for the side to move) of .obf positions, in order."""
    out = subprocess.run([exe, "solve", "--game", "othello", "--threads", "1"],
                         input="".join(l + "\n" for l in obf_lines), capture_output=True,
                         text=True, check=True).stdout
    scores = []
    for line in out.splitlines():
        if "score" in line:
            scores.append(int(line.split("score ")[1].split(",")[0]))
    if len(scores) != len(obf_lines):
        raise RuntimeError(f"solve answered {len(scores)} of {len(obf_lines)}:\n{out}")
    return scores


def generate(args):
    rng = random.Random(args.seed)
    ugi = Ugi(args.tabula)
    ugi.send("setoption name OwnBook value false")
    out = open(args.out, "a")
    done = 0
    while done < args.count:
        moves = []
        target = rng.randint(args.lo, args.hi)
        dead = False
        for ply in range(60 - target):
            pos = "position startpos" + (" moves " + " ".join(moves) if moves else "")
            legal = ugi.moves(pos)
            if not legal:
                dead = True
                break
            if ply < args.random_plies:
                moves.append(rng.choice(legal))
            else:
                moves.append(ugi.best(pos, f"go nodes {args.nodes}"))
        if dead:
            continue
        pos = "position startpos moves " + " ".join(moves)
        legal = [m for m in ugi.moves(pos) if m != "0000"]
        if len(legal) < 2:
            continue  # a forced move (or a pass) measures nothing
        squares, side = fen_to_obf(ugi.fen(pos))
        children = [fen_to_obf(ugi.fen(pos + " " + m)) for m in legal]
        scores = solve(args.tabula, [f"{s} {t}" for s, t in children])
        values = sorted(((-v, m.upper()) for v, m in zip(scores, legal)), reverse=True)
        out.write(f"{squares} {side}; " + " ".join(f"{m}:{v:+d};" for v, m in values) + "\n")
        out.flush()
        done += 1
        print(f"{done}/{args.count}: {squares.count('-')} empties, best {values[0][1]} "
              f"{values[0][0]:+d}", file=sys.stderr)
    ugi.close()


def openings(args):
    rng = random.Random(args.seed)
    ugi = Ugi(args.tabula)
    seen = set()
    print(f"# {args.count} Othello openings: positions after {args.plies} random legal moves "
          f"from the start,\n# scripts/othello_midgame.py openings --count {args.count} "
          f"--plies {args.plies} --seed {args.seed}")
    while len(seen) < args.count:
        moves = []
        for _ in range(args.plies):
            pos = "position startpos" + (" moves " + " ".join(moves) if moves else "")
            legal = [m for m in ugi.moves(pos) if m != "0000"]
            if not legal:
                break
            moves.append(rng.choice(legal))
        if len(moves) < args.plies:
            continue
        fen = ugi.fen("position startpos moves " + " ".join(moves))
        if fen not in seen:
            seen.add(fen)
            print(fen, flush=True)
    ugi.close()


def obf_to_fen(squares, side):
    rows = []
    for r in range(8):
        row, run = "", 0
        for ch in squares[r * 8:r * 8 + 8]:
            if ch == "-":
                run += 1
                continue
            if run:
                row += str(run)
                run = 0
            row += {"X": "x", "O": "o"}[ch]
        rows.append(row + (str(run) if run else ""))
    return "/".join(rows) + " " + side.lower()


def read_valued(path):
    """The positions of a set with every move valued: (squares, side, {move: exact value})."""
    positions = []
    for line in open(path):
        head, *rest = line.strip().split(";")
        if not head:
            continue
        squares, side = head.split()
        values = {}
        for item in rest:
            if ":" in item:
                m, v = item.strip().split(":")
                values[m.lower()] = int(v)
        positions.append((squares, side, values))
    return positions


def measure(args):
    positions = read_valued(args.set)
    ugi = Ugi(args.tabula, command=shlex.split(args.engine) if args.engine else None)
    for opt in args.option:
        name, value = opt.split("=", 1)
        ugi.send(f"setoption name {name} value {value}")
    print(f"{len(positions)} positions from {args.set}")
    print("| search | empties | positions | mean loss (discs) | best move | seconds a move |")
    print("|---|---|---|---|---|---|")
    for ms in [int(t) for t in args.movetime.split(",")]:
        by_empties = {}
        seconds = {}
        label = args.go.format(ms=ms)
        for squares, side, values in positions:
            ugi.send("uginewgame")
            began = time.monotonic()
            mv, info = ugi.best_and_info(f"position fen {obf_to_fen(squares, side)}", label)
            took = time.monotonic() - began
            best = max(values.values())
            loss = best - values.get(mv, -999)
            e = squares.count("-")
            if args.detail:
                print(f"detail {ms} ms | {e} | {squares} {side} | {mv} | loss {loss} | {info}",
                      file=sys.stderr)
            by_empties.setdefault(e, []).append(loss)
            seconds.setdefault(e, []).append(took)
        every = [l for ls in by_empties.values() for l in ls]
        every_s = [t for ts in seconds.values() for t in ts]
        for e in sorted(by_empties) + ["all"]:
            ls = every if e == "all" else by_empties[e]
            ts = every_s if e == "all" else seconds[e]
            print(f"| {label} | {e} | {len(ls)} | {sum(ls) / len(ls):.2f} | "
                  f"{sum(1 for l in ls if l == 0)}/{len(ls)} | {sum(ts) / len(ts):.2f} |")
        sys.stdout.flush()
    ugi.close()


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    g = sub.add_parser("generate")
    g.add_argument("--tabula", required=True)
    g.add_argument("--out", required=True)
    g.add_argument("--count", type=int, default=100)
    g.add_argument("--seed", type=int, default=1)
    g.add_argument("--lo", type=int, default=22)
    g.add_argument("--hi", type=int, default=26)
    g.add_argument("--random-plies", type=int, default=10)
    g.add_argument("--nodes", type=int, default=20000)
    o = sub.add_parser("openings")
    o.add_argument("--tabula", default="target/release/tabula")
    o.add_argument("--count", type=int, default=120)
    o.add_argument("--plies", type=int, default=8)
    o.add_argument("--seed", type=int, default=8)
    m = sub.add_parser("measure")
    m.add_argument("--tabula", default="target/release/tabula")
    m.add_argument("--set", required=True)
    m.add_argument("--movetime", default="100,300,1000")
    m.add_argument("--engine", help="another UGI engine's command line instead of tabula's "
                   "(e.g. Egaroucid for Web: '.../egaroucid-web-ugi --level 14 --nobook')")
    m.add_argument("--go", default="go movetime {ms}",
                   help="the go command, {ms} the time per move (Egaroucid for Web: 'go')")
    m.add_argument("--option", action="append", default=[], help="NAME=VALUE for setoption")
    m.add_argument("--detail", action="store_true",
                   help="one line a position on stderr: empties, move, loss, the last info line")
    args = ap.parse_args()
    {"generate": generate, "openings": openings, "measure": measure}[args.cmd](args)


if __name__ == "__main__":
    main()
