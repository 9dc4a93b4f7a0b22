#!/usr/bin/env python3
"""A small UGI match runner (until `tabula match` lands): two UGI engines play a game of any
kind; a third process, tabula itself in UGI mode, referees: every move is checked by sending
it in a `position` command (an error line means illegal), and game ends come from its
`query gameover` / `query result`. Clocks are kept here: a flag fall, an illegal move or a
crash loses.

    scripts/ugi_match.py --game othello --engine "target/release/tabula --game othello" \
        --engine "/path/to/nothello -m ugi" --games 20 --tc 1+0.01
"""
import argparse, math, shlex, subprocess, sys, threading, queue, time

class Engine:
    def __init__(self, cmd):
        self.p = subprocess.Popen(shlex.split(cmd), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  stderr=subprocess.DEVNULL, text=True, bufsize=1)
        self.q = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()
    def _read(self):
        for line in self.p.stdout:
            self.q.put(line.rstrip("\n"))
        self.q.put(None)
    def send(self, line):
        self.p.stdin.write(line + "\n"); self.p.stdin.flush()
    def expect(self, prefix, timeout):
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError(prefix)
            try:
                line = self.q.get(timeout=left)
            except queue.Empty:
                raise TimeoutError(prefix)
            if line is None:
                raise EOFError(prefix)
            if line.startswith(prefix):
                return line
    def until(self, prefix, timeout):
        """All lines up to and including the first starting with `prefix`."""
        out = []
        deadline = time.monotonic() + timeout
        while True:
            try:
                line = self.q.get(timeout=max(0.0, deadline - time.monotonic()))
            except queue.Empty:
                raise TimeoutError(prefix)
            if line is None:
                raise EOFError(prefix)
            out.append(line)
            if line.startswith(prefix):
                return out

    def drain(self):
        out = []
        while True:
            try:
                line = self.q.get(timeout=0.05)
            except queue.Empty:
                return out
            if line is None:
                return out
            out.append(line)
    def quit(self):
        try:
            self.send("quit"); self.p.wait(timeout=2)
        except Exception:
            self.p.kill()

def handshake(e):
    e.send("ugi"); e.expect("ugiok", 10); e.send("isready"); e.expect("readyok", 10)

def play(engines, referee, opening, base, inc):
    moves = list(opening)
    clocks = [base, base]
    for e in engines:
        e.send("uginewgame")
    while True:
        referee.send("position startpos moves " + " ".join(moves) if moves else "position startpos")
        referee.send("query gameover")
        if referee.expect("response", 5) == "response true":
            referee.send("query result")
            return referee.expect("response", 5).split()[1], "rules"
        referee.send("query p1turn")
        side = 0 if referee.expect("response", 5) == "response true" else 1
        e = engines[side]
        pos = "position startpos moves " + " ".join(moves) if moves else "position startpos"
        e.send(pos)
        e.send(f"go p1time {int(clocks[0]*1000)} p2time {int(clocks[1]*1000)} p1inc {int(inc*1000)} p2inc {int(inc*1000)}")
        t = time.monotonic()
        try:
            line = e.expect("bestmove", clocks[side] + 1.0)
        except (TimeoutError, EOFError) as ex:
            return ("p2win" if side == 0 else "p1win"), f"{type(ex).__name__}"
        clocks[side] -= time.monotonic() - t
        if clocks[side] < 0:
            return ("p2win" if side == 0 else "p1win"), "time"
        clocks[side] += inc
        mv = line.split()[1].lower()
        referee.send((pos + " " + mv) if moves else f"position startpos moves {mv}")
        referee.send("isready")
        reply = referee.until("readyok", 5)
        if any("error" in r for r in reply):
            return ("p2win" if side == 0 else "p1win"), f"illegal {mv}"
        moves.append(mv)

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--game", required=True)
    ap.add_argument("--engine", action="append", required=True)
    ap.add_argument("--games", type=int, default=20)
    ap.add_argument("--tc", default="1+0.01")
    ap.add_argument("--referee", default="./target/release/tabula")
    ap.add_argument("--openings", default=None, help="file: one opening per line, moves separated by spaces")
    a = ap.parse_args()
    base, inc = (float(x) for x in a.tc.split("+"))
    openings = [[]]
    if a.openings:
        openings = [l.split() for l in open(a.openings) if l.strip()]
    eng = [Engine(c) for c in a.engine]
    ref = Engine(f"{a.referee} --game {a.game}")
    for e in eng + [ref]:
        handshake(e)
    score = {0: 0.0, 1: 0.0}
    wdl = [0, 0, 0]
    reasons = {}
    for g in range(a.games):
        flip = g % 2 == 1
        order = [eng[1], eng[0]] if flip else [eng[0], eng[1]]
        res, why = play(order, ref, openings[(g // 2) % len(openings)], base, inc)
        first = 1 if flip else 0
        if res == "draw":
            score[0] += 0.5; score[1] += 0.5; wdl[1] += 1
        else:
            winner = first if res == "p1win" else 1 - first
            score[winner] += 1
            wdl[0 if winner == 0 else 2] += 1
            if why != "rules":
                reasons[f"engine {2 - winner} {why}"] = reasons.get(f"engine {2 - winner} {why}", 0) + 1
        print(f"game {g+1}: {res} ({why}); engine 1 {score[0]} - engine 2 {score[1]}", flush=True)
    n = a.games
    p = score[0] / n
    elo = -400 * math.log10(1 / p - 1) if 0 < p < 1 else float("inf") if p == 1 else float("-inf")
    print(f"engine 1 ({a.engine[0]}): +{wdl[0]} ={wdl[1]} -{wdl[2]}, {100*p:.1f}%, Elo {elo:+.0f}")
    print(f"non-rule endings: {reasons or 'none'}")
    for e in eng + [ref]:
        e.quit()

if __name__ == "__main__":
    main()
