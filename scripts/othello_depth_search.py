#!/usr/bin/env python3
"""Searches every position of a file (one FEN a line) to a fixed depth with an Othello engine
over UGI, one after another, and prints the total nodes of the last `info depth` lines; exits
after the last `bestmove` (EOF would stop a search). The whole command is what to time, side
by side with another build (protocol/benchmarks.md, "The big boards' search made faster"):

    farm-bench -n 5 --vs "python3 scripts/othello_depth_search.py OLD 16 12 fens16.txt" \\
        -- python3 scripts/othello_depth_search.py target/release/tabula 16 12 fens16.txt

Usage: othello_depth_search.py BINARY SIZE DEPTH FENS [hand]   (hand: EvalFile=<none>)
"""
import subprocess
import sys

if len(sys.argv) < 5:
    sys.exit(__doc__)
binary, size, depth, fens = sys.argv[1:5]
p = subprocess.Popen([binary, "--game", "othello", "--size", size],
                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1)


def send(line):
    p.stdin.write(line + "\n")
    p.stdin.flush()


send("ugi")
if len(sys.argv) > 5 and sys.argv[5] == "hand":
    send("setoption name EvalFile value <none>")
nodes = 0
for fen in open(fens).read().splitlines():
    if not fen.strip():
        continue
    send("position fen " + fen.strip())
    send(f"go depth {depth}")
    last = ""
    while True:
        line = p.stdout.readline()
        if not line:
            sys.exit("the engine ended before its bestmove")
        if line.startswith("info depth"):
            last = line
        if line.startswith("bestmove"):
            break
    words = last.split()
    nodes += int(words[words.index("nodes") + 1])
send("quit")
p.wait()
print(nodes)
