#!/usr/bin/env python3
"""Plays tabula against another chess engine through python-chess, which validates every
move and PV it receives. Clocks are kept here; a flag fall, an illegal move or a crash loses.

    scripts/pychess_match.py --opponent /usr/games/fairymax --proto xboard --games 20 --tc 1+0.01

Prints W/D/L from tabula's side, the score, an Elo estimate with a 95% interval, and the
count of illegal moves, time losses and crashes (which must all be zero)."""

import argparse, math, random, sys, time
import chess, chess.engine

# A fixed opening set (short, balanced lines); each is played with both colours.
OPENINGS = [
    "e2e4 e7e5 g1f3 b8c6", "d2d4 d7d5 c2c4 e7e6", "e2e4 c7c5 g1f3 d7d6", "d2d4 g8f6 c2c4 g7g6",
    "e2e4 e7e6 d2d4 d7d5", "c2c4 e7e5 b1c3 g8f6", "e2e4 c7c6 d2d4 d7d5", "g1f3 d7d5 g2g3 g8f6",
    "d2d4 g8f6 c2c4 e7e6", "e2e4 d7d6 d2d4 g8f6", "e2e4 e7e5 f1c4 g8f6", "d2d4 d7d5 g1f3 g8f6",
    "c2c4 c7c5 g1f3 b8c6", "e2e4 g7g6 d2d4 f8g7", "d2d4 f7f5 g2g3 g8f6", "e2e4 e7e5 g1f3 g8f6",
]

def open_engine(cmd, proto):
    if proto == "uci":
        return chess.engine.SimpleEngine.popen_uci(cmd, timeout=30)
    return chess.engine.SimpleEngine.popen_xboard(cmd, timeout=30)

def play_game(engines, names, opening, base, inc, log):
    board = chess.Board()
    for u in opening.split():
        board.push_uci(u)
    clocks = [base, base]
    for e in engines:
        try:
            e.configure({}) if False else None
        except Exception:
            pass
    while not board.is_game_over(claim_draw=True):
        side = 0 if board.turn == chess.WHITE else 1
        eng = engines[side]
        limit = chess.engine.Limit(white_clock=clocks[0], black_clock=clocks[1],
                                   white_inc=inc, black_inc=inc)
        t = time.monotonic()
        try:
            res = eng.play(board, limit, info=chess.engine.INFO_ALL, game=id(board))
        except chess.engine.EngineError as e:
            log(f"{names[side]} error: {e}")
            return (1 - side, "illegal/error")
        except chess.engine.EngineTerminatedError:
            return (1 - side, "crash")
        used = time.monotonic() - t
        clocks[side] -= used
        if clocks[side] < 0:
            return (1 - side, "time")
        clocks[side] += inc
        if res.move is None or res.move not in board.legal_moves:
            return (1 - side, "illegal")
        pv = res.info.get("pv") if res.info else None
        if pv:
            b = board.copy()
            for m in pv:
                if m not in b.legal_moves:
                    return (1 - side, "illegal pv")
                b.push(m)
        board.push(res.move)
        if board.ply() > 600:
            return (None, "ply limit")
    out = board.outcome(claim_draw=True)
    if out.winner is None:
        return (None, out.termination.name.lower())
    return (0 if out.winner == chess.WHITE else 1, out.termination.name.lower())

def elo(score, n):
    if n == 0 or score <= 0 or score >= n:
        return float("nan"), float("nan")
    p = score / n
    e = -400 * math.log10(1 / p - 1)
    return e, p

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tabula", default="./target/release/tabula")
    ap.add_argument("--opponent", required=True)
    ap.add_argument("--proto", default="uci", choices=["uci", "xboard"])
    ap.add_argument("--games", type=int, default=20)
    ap.add_argument("--tc", default="1+0.01")
    ap.add_argument("--option", action="append", default=[], help="tabula option NAME=VALUE")
    args = ap.parse_args()
    base, inc = (float(x) for x in args.tc.split("+"))
    tab = open_engine([args.tabula], "uci")
    for o in args.option:
        k, v = o.split("=", 1)
        tab.configure({k: v})
    opp = open_engine([args.opponent], args.proto)
    w = d = l = 0
    problems = {"illegal": 0, "time": 0, "crash": 0, "illegal pv": 0, "illegal/error": 0}
    tab_problems = 0
    results = []
    for g in range(args.games):
        opening = OPENINGS[(g // 2) % len(OPENINGS)]
        tab_white = g % 2 == 0
        engines = [tab, opp] if tab_white else [opp, tab]
        names = ["tabula", "opponent"] if tab_white else ["opponent", "tabula"]
        winner, why = play_game(engines, names, opening, base, inc, lambda s: print(s, file=sys.stderr))
        tab_side = 0 if tab_white else 1
        if winner is None:
            d += 1; r = "1/2"
        elif winner == tab_side:
            w += 1; r = "1"
        else:
            l += 1; r = "0"
            if why in problems:
                tab_problems += 1
        if why in problems:
            problems[why] += 1
        results.append(r)
        print(f"game {g+1}: tabula {'white' if tab_white else 'black'} {r} ({why})  +{w} ={d} -{l}", flush=True)
    n = w + d + l
    score = w + d / 2
    e, p = elo(score, n)
    # 95% interval from the per-game variance of the score.
    if n > 1:
        mean = score / n
        var = (w * (1 - mean) ** 2 + d * (0.5 - mean) ** 2 + l * mean ** 2) / n
        se = math.sqrt(var / n)
        lo, hi = max(1e-6, mean - 1.96 * se), min(1 - 1e-6, mean + 1.96 * se)
        elo_lo, elo_hi = -400 * math.log10(1 / lo - 1), -400 * math.log10(1 / hi - 1)
    else:
        elo_lo = elo_hi = float("nan")
    print(f"tabula vs {args.opponent}: +{w} ={d} -{l}  score {score}/{n} ({100*score/max(n,1):.1f}%)  "
          f"Elo {e:+.0f} [{elo_lo:+.0f}, {elo_hi:+.0f}]")
    print(f"problems: {problems}; charged to tabula: {tab_problems}")
    tab.quit(); opp.quit()
    sys.exit(1 if tab_problems else 0)

if __name__ == "__main__":
    main()
