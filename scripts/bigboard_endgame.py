#!/usr/bin/env python3
"""How many empty squares tabula's exact Othello solver finishes in 1 s and in 10 s on each
board size (issue 48, part 2's baseline). Positions: self-play games of tabula on each size
(UGI, `go nodes 300` a move, the first four plies random from --seed), the position at every
number of empties from --low up; each solved with `tabula solve --game othello --fen FEN
--threads 1` (one thread), a wall-clock limit of 10 s, until a position takes longer. For each
size the table gives, per game, the most empties solved within 1 s and within 10 s, and the
median. With --obf DIR it solves nothing and writes the positions instead, one .obf file a size
(DIR/bigboard-N.obf, --low to --high empties), for `tabula solve --size N FILE` to time as a
set. Standard library only."""
import argparse, random, subprocess, statistics, time


def fens_of_game(tabula, size, seed, low, high):
    rng = random.Random(seed)
    p = subprocess.Popen([tabula, "--game", "othello", "--size", str(size)], stdin=subprocess.PIPE,
                         stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, bufsize=1)

    def ask(cmd, until):
        p.stdin.write(cmd + "\n")
        out = []
        while True:
            line = p.stdout.readline()
            if not line:
                raise RuntimeError("tabula ended")
            out.append(line.rstrip("\n"))
            if line.startswith(until):
                return out

    ask("ugi", "ugiok")
    moves, fens = [], {}
    while True:
        pos = "position startpos" + (" moves " + " ".join(moves) if moves else "")
        p.stdin.write(pos + "\n")
        board = ask("d", "Key:")
        fen = next(l.split(":", 1)[1].strip() for l in board if l.startswith("Fen:"))
        empties = sum(int(ch) if ch.isdigit() else 0 for ch in _digits(fen.split()[0]))
        if low <= empties <= high:
            fens.setdefault(empties, fen)
        if empties < low:
            break
        out = ask("go nodes 300", "bestmove")
        mv = out[-1].split()[1]
        if mv in ("(none)", ""):
            break
        if len(moves) < 4:
            # The first four plies random (seeded): games that differ.
            legal = _legal(ask, pos)
            if legal:
                mv = rng.choice(legal)
        moves.append(mv)
    p.stdin.write("quit\n")
    p.wait(timeout=10)
    return fens


def _digits(rows):
    # Runs of empty cells are numbers of one or two digits.
    out, num = [], ""
    for ch in rows:
        if ch.isdigit():
            num += ch
        else:
            if num:
                out.append(num)
                num = ""
    if num:
        out.append(num)
    return out


def _legal(ask, pos):
    out = ask("go perft 1", "Nodes searched")
    return [l.split(":")[0].strip() for l in out if ":" in l and not l.startswith("Nodes")]


def obf_of_fen(fen):
    """A FEN of tabula's (rows of x/o and digit runs, side x/o) as an .obf line."""
    rows, side = fen.split()[:2]
    cells = ""
    for row in rows.split("/"):
        num = ""
        for ch in row:
            if ch.isdigit():
                num += ch
                continue
            cells += "-" * int(num or 0) + ("X" if ch == "x" else "O")
            num = ""
        cells += "-" * int(num or 0)
    return f"{cells} {side.upper()}"


def solve_time(tabula, size, fen, limit):
    t = time.monotonic()
    try:
        subprocess.run([tabula, "solve", "--game", "othello", "--size", str(size), "--fen", fen,
                        "--threads", "1"], capture_output=True, timeout=limit, check=True)
    except subprocess.TimeoutExpired:
        return None
    return time.monotonic() - t


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--tabula", default="target/release/tabula")
    ap.add_argument("--sizes", default="10,12,14,16")
    ap.add_argument("--games", type=int, default=2)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--low", type=int, default=10)
    ap.add_argument("--high", type=int, default=40)
    ap.add_argument("--limit", type=float, default=10.0)
    ap.add_argument("--obf", help="write the positions to DIR/bigboard-N.obf instead of solving")
    a = ap.parse_args()
    for size in [int(s) for s in a.sizes.split(",")]:
        if a.obf:
            with open(f"{a.obf}/bigboard-{size}.obf", "w") as f:
                for g in range(a.games):
                    fens = fens_of_game(a.tabula, size, a.seed * 1000 + size * 10 + g, a.low, a.high)
                    for e in sorted(fens):
                        f.write(obf_of_fen(fens[e]) + "\n")
            continue
        in1, in10 = [], []
        for g in range(a.games):
            fens = fens_of_game(a.tabula, size, a.seed * 1000 + size * 10 + g, a.low, a.high)
            best1 = best10 = 0
            times = []
            for e in sorted(fens):
                t = solve_time(a.tabula, size, fens[e], a.limit)
                times.append((e, t))
                if t is None:
                    break
                if t <= 1.0:
                    best1 = e
                best10 = e
            in1.append(best1)
            in10.append(best10)
            shown = " ".join(f"{e}:{'>' + str(int(a.limit)) if t is None else f'{t:.2f}'}" for e, t in times)
            print(f"{size}x{size} game {g + 1}: empties:seconds {shown}", flush=True)
        print(f"{size}x{size}: within 1 s {in1} (median {statistics.median(in1)}), "
              f"within {a.limit:g} s {in10} (median {statistics.median(in10)})", flush=True)


if __name__ == "__main__":
    main()
