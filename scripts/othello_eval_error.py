#!/usr/bin/env python3
"""The 8x8 evaluation against exact values, on positions that do not depend on the weights.

Every move of every position of a set with every move valued exactly (FFO-style `MOVE:+v;`
answers, as `tests/data/othello-midgame.obf`: 175 positions, 1746 moves) is played, and
tabula's static evaluation of the position after it (`eval`, the side to move's view, in
hundredths of a disc) is compared with minus the move's exact value. Prints, in discs: the
mean error (the evaluation's bias from the mover's side: positive where the mover's moves are
valued above their exact margin), its standard deviation, the mean absolute error, and the
mean loss of the move a one-ply search of the evaluation would play (the move whose
position after it evaluates best).

A sample drawn by walking games with the evaluation itself (as `calibrate_probcut_sigma` does)
changes with the weights; this set does not, so two weight files compare on the same
positions. Then the same error by the move's loss (best value - its value): positions after
poor moves are those a search meets and self-play games rarely show.

  python3 scripts/othello_eval_error.py --tabula target/release/tabula \\
      --set tests/data/othello-midgame.obf [--option EvalFile=other.bin]
"""
import argparse
import math
import re

from othello_midgame import Ugi, obf_to_fen, read_valued


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tabula", default="target/release/tabula")
    ap.add_argument("--set", default="tests/data/othello-midgame.obf")
    ap.add_argument("--option", action="append", default=[],
                    help="NAME=VALUE, sent as `setoption` before the first position")
    args = ap.parse_args()
    ugi = Ugi(args.tabula)
    for opt in args.option:
        name, value = opt.split("=", 1)
        ugi.send(f"setoption name {name} value {value}")
    errors, loss, positions, by_loss = [], 0, 0, []
    for squares, side, values in read_valued(args.set):
        if not values:
            continue
        fen = obf_to_fen(squares, side)
        pick = None
        for move, value in values.items():
            ugi.send(f"position fen {fen} moves {move}")
            ugi.send("eval")
            last = ugi.until("Final evaluation")[-1]
            found = re.search(r", (-?\d+) \(side to move\)", last)
            if not found:
                raise RuntimeError(f"no evaluation in {last!r}")
            mine = -int(found[1]) / 100
            errors.append(mine - value)
            by_loss.append((max(values.values()) - value, mine - value))
            if pick is None or mine > pick[0]:
                pick = (mine, value)
        loss += max(values.values()) - pick[1]
        positions += 1
    ugi.close()
    n = len(errors)
    if n == 0:
        raise SystemExit(f"{args.set}: no position with valued moves")
    mean = sum(errors) / n
    sd = math.sqrt(sum((e - mean) ** 2 for e in errors) / n)
    absolute = sum(abs(e) for e in errors) / n
    print(f"{n} moves of {positions} positions: mean error {mean:+.2f} discs, sd {sd:.2f}, "
          f"mean |error| {absolute:.2f}; one-ply loss {loss / positions:.2f} discs")
    for lo, hi in [(0, 0), (1, 4), (5, 10), (11, 20), (21, 128)]:
        e = [err for lost, err in by_loss if lo <= lost <= hi]
        if e:
            m = sum(e) / len(e)
            sd = math.sqrt(sum((x - m) ** 2 for x in e) / len(e))
            print(f"  moves losing {lo}-{hi} discs: {len(e)}, mean error {m:+.2f}, sd {sd:.2f}")


if __name__ == "__main__":
    main()
