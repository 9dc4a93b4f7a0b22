#!/usr/bin/env python3
"""Drives live engines over UCI while their Syzygy tables change on disk under them (issue 89).

A working copy of a table directory is given to one or more engines (`setoption name
SyzygyPath`); then, step after step, chosen by a seeded random generator, the script
- creates a table file that was missing, cuts one in place (the same inode, `truncate`),
  replaces one by a cut or damaged copy (`rename`, a new inode), swaps two, removes one,
  writes garbage under a table's name, makes the directory unreadable for a while;
- sends `SyzygyPath` again (the same value, with a trailing `/`, or another directory);
- sets up a random position of a material the tables cover and searches it (`go nodes`,
  `go depth`, `go movetime`, sometimes `stop` at once), and asks `isready`.

It asserts what a GUI relies on: every engine stays alive, every `go` gets exactly one
`bestmove` that is legal (python-chess), `readyok` comes within a second, and nothing
reaches stderr but the engine's own log lines. It stops by itself (--steps, --seconds) and
prints one summary line; exit 1 on the first failure, with the seed and the step, so that
`--seed S --steps N` replays it.

    python3 scripts/syzygy_stress.py --engine target/release/tabula \\
        --tables tests/data/syzygy --seconds 600 --seed 1
"""

import argparse
import os
import random
import select
import shutil
import subprocess
import sys
import tempfile
import time

import chess

READY_LIMIT = 1.0
BESTMOVE_LIMIT = 20.0
TRACE = None
LEASE_LIMIT = 5.0


class Engine:
    def __init__(self, path, name, env=None):
        self.name = name
        self.proc = subprocess.Popen(
            [path],
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            bufsize=0,
        )
        self.buf = b""
        self.err = b""
        self.let_go = 0  # tables let go while a writer waited on their lease
        self.send("uci")
        self.wait_for("uciok", 10)

    def send(self, line):
        if TRACE:
            print(f"{time.monotonic():.3f} {self.name} < {line}", file=TRACE, flush=True)
        self.proc.stdin.write((line + "\n").encode())

    def readline(self, deadline):
        while b"\n" not in self.buf:
            left = deadline - time.monotonic()
            if left <= 0:
                return None
            ready, _, _ = select.select([self.proc.stdout, self.proc.stderr], [], [], left)
            for f in ready:
                chunk = os.read(f.fileno(), 65536)
                if f is self.proc.stderr:
                    self.err += chunk
                    continue
                if not chunk:
                    return None
                self.buf += chunk
        line, self.buf = self.buf.split(b"\n", 1)
        line = line.decode(errors="replace")
        if TRACE:
            print(f"{time.monotonic():.3f} {self.name} > {line}", file=TRACE, flush=True)
        return line

    def wait_for(self, word, limit):
        """Lines up to the first starting with `word`; None past `limit` seconds or at EOF."""
        deadline = time.monotonic() + limit
        lines = []
        while True:
            line = self.readline(deadline)
            if line is None:
                return None
            lines.append(line)
            if "no longer used" in line:
                self.let_go += 1
            if line.split(" ", 1)[0] == word:
                return lines

    def alive(self):
        return self.proc.poll() is None


def materials(tables):
    """The materials (`KRvKP`) with both files present in the source directory."""
    names = set(os.listdir(tables))
    out = []
    for n in sorted(names):
        if n.endswith(".rtbw") and n[:-5] + ".rtbz" in names:
            out.append(n[:-5])
    return out


def random_position(rng, material):
    """A legal position of this material (either colour may hold either side), no castling."""
    white, black = material.split("v")
    if rng.random() < 0.5:
        white, black = black, white
    for _ in range(1000):
        board = chess.Board(None)
        squares = list(chess.SQUARES)
        rng.shuffle(squares)
        ok = True
        for colour, pieces in ((chess.WHITE, white), (chess.BLACK, black)):
            for p in pieces:
                sq = squares.pop()
                kind = chess.Piece.from_symbol(p if colour == chess.WHITE else p.lower())
                if kind.piece_type == chess.PAWN and chess.square_rank(sq) in (0, 7):
                    ok = False
                board.set_piece_at(sq, kind)
        if not ok:
            continue
        board.turn = rng.random() < 0.5
        if board.is_valid() and any(board.legal_moves):
            return board
    return None


class Stress:
    def __init__(self, args):
        self.args = args
        self.rng = random.Random(args.seed)
        self.source = args.tables
        self.work = tempfile.mkdtemp(prefix="tabula-stress-")
        self.dir = os.path.join(self.work, "tables")
        self.other = os.path.join(self.work, "other")
        shutil.copytree(self.source, self.dir)
        shutil.copytree(self.source, self.other)
        self.names = sorted(n for n in os.listdir(self.source) if n.endswith((".rtbw", ".rtbz")))
        self.materials = materials(self.source)
        env = dict(os.environ)
        if args.check_ms is not None:
            env["TABULA_SYZYGY_CHECK_MS"] = str(args.check_ms)
        self.engines = [Engine(args.engine, f"engine{i}", env) for i in range(args.engines)]
        self.counts = {}
        self.step = 0

    def fail(self, what):
        print(f"FAIL seed {self.args.seed} step {self.step}: {what}", flush=True)
        for e in self.engines:
            # The engine's own log lines (`[time LEVEL target] ...`) are expected; the rest is not.
            other = [
                line
                for line in e.err.decode(errors="replace").splitlines()
                if not line.startswith("[")
            ]
            if other:
                print(f"{e.name} stderr:\n" + "\n".join(other[-40:]))
        sys.exit(1)

    def count(self, what):
        self.counts[what] = self.counts.get(what, 0) + 1

    # What happens to the files.
    def file_action(self, searching=False):
        rng = self.rng
        name = rng.choice(self.names)
        path = os.path.join(self.dir, name)
        good = os.path.join(self.source, name)
        action = rng.choice(
            ["create", "cut_in_place", "replace_cut", "replace_damaged", "swap", "remove",
             "garbage", "restore", "unreadable"]
        )
        started = time.monotonic()
        try:
            if action == "create" and not os.path.exists(path):
                shutil.copyfile(good, path)
            elif action == "cut_in_place" and os.path.isfile(path):
                size = os.path.getsize(path)
                os.truncate(path, rng.randrange(0, max(1, size)))
            elif action == "replace_cut":
                data = open(good, "rb").read()
                self.replace(path, data[: rng.randrange(0, len(data))])
            elif action == "replace_damaged":
                data = bytearray(open(good, "rb").read())
                for _ in range(rng.randrange(1, 16)):
                    data[rng.randrange(len(data))] = rng.randrange(256)
                self.replace(path, bytes(data))
            elif action == "swap":
                other = os.path.join(self.dir, rng.choice(self.names))
                if os.path.exists(path) and os.path.exists(other) and other != path:
                    tmp = path + ".swap"
                    os.rename(path, tmp)
                    os.rename(other, path)
                    os.rename(tmp, other)
            elif action == "remove" and os.path.exists(path):
                os.remove(path)
            elif action == "garbage":
                self.replace(path, rng.randbytes(rng.randrange(0, 4096)))
            elif action == "restore":
                self.replace(path, open(good, "rb").read())
            elif action == "unreadable":
                os.chmod(self.dir, 0)
                if searching:
                    time.sleep(0.01)
                else:
                    self.resend()
                os.chmod(self.dir, 0o755)
            self.count(action)
            if TRACE:
                print(f"{time.monotonic():.3f} files: {action} {name}", file=TRACE, flush=True)
        except OSError as e:
            os.chmod(self.dir, 0o755)
            self.count(f"{action} failed: {e.strerror}")
        # A writer waits on an engine's lease until the engine lets the table go: moments, not
        # the kernel's lease-break-time (45 s), after which it would cut the table regardless.
        waited = time.monotonic() - started
        if waited > LEASE_LIMIT and action != "unreadable":
            self.fail(f"{action} of {name} waited {waited:.1f} s (a lease not let go)")

    def replace(self, path, data):
        tmp = path + ".new"
        with open(tmp, "wb") as f:
            f.write(data)
        os.rename(tmp, path)

    # What the engines are told.
    def resend(self):
        value = self.rng.choice([self.dir, self.dir + "/", self.other, f"{self.dir}:{self.other}"])
        for e in self.engines:
            e.send(f"setoption name SyzygyPath value {value}")
        self.count("setoption")
        self.ready()

    def ready(self):
        for e in self.engines:
            start = time.monotonic()
            e.send("isready")
            lines = e.wait_for("readyok", 30)
            took = time.monotonic() - start
            if lines is None:
                self.fail(f"{e.name}: no readyok (alive: {e.alive()}, exit {e.proc.poll()})")
            if took > READY_LIMIT:
                self.fail(f"{e.name}: readyok after {took:.2f} s")

    def search(self):
        rng = self.rng
        board = None
        while board is None:
            board = random_position(rng, rng.choice(self.materials))
        go = rng.choice(["go nodes 20000", "go depth 8", "go movetime 50", "go infinite"])
        for e in self.engines:
            e.send(f"position fen {board.fen()}")
            e.send(go)
        if go == "go infinite" or rng.random() < 0.2:
            time.sleep(rng.random() * 0.05)
            if rng.random() < 0.5:
                self.file_action(searching=True)
            for e in self.engines:
                e.send("stop")
        for e in self.engines:
            lines = e.wait_for("bestmove", BESTMOVE_LIMIT)
            if lines is None:
                self.fail(f"{e.name}: no bestmove for {board.fen()} {go} (alive: {e.alive()}, exit {e.proc.poll()})")
            move = lines[-1].split()[1] if len(lines[-1].split()) > 1 else ""
            try:
                legal = chess.Move.from_uci(move) in board.legal_moves
            except ValueError:
                legal = False
            if not legal:
                self.fail(f"{e.name}: bestmove '{move}' is not legal in {board.fen()}")
        self.count("search")

    def run(self):
        self.resend()
        end = time.monotonic() + self.args.seconds
        while self.step < self.args.steps and time.monotonic() < end:
            self.step += 1
            roll = self.rng.random()
            if roll < 0.4:
                self.file_action()
            elif roll < 0.55:
                self.resend()
            else:
                self.search()
            for e in self.engines:
                if not e.alive():
                    self.fail(f"{e.name} died (exit {e.proc.poll()})")
        for e in self.engines:
            e.send("quit")
            e.proc.wait(timeout=10)
            if e.proc.returncode != 0:
                self.fail(f"{e.name}: exit {e.proc.returncode} at quit")
        leftovers = [n for n in os.listdir(tempfile.gettempdir()) if n.startswith("tabula-syzygy-")]
        shutil.rmtree(self.work, ignore_errors=True)
        self.counts["tables let go (lease)"] = sum(e.let_go for e in self.engines)
        summary = ", ".join(f"{k} {v}" for k, v in sorted(self.counts.items()))
        print(f"ok: seed {self.args.seed}, {self.step} steps, {len(self.engines)} engines: {summary}")
        if leftovers:
            print(f"note: private directories left in {tempfile.gettempdir()}: {len(leftovers)}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--engine", default="target/release/tabula")
    ap.add_argument("--tables", default="tests/data/syzygy")
    ap.add_argument("--engines", type=int, default=2, help="engines sharing the same path")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--steps", type=int, default=10**9)
    ap.add_argument("--seconds", type=float, default=60)
    ap.add_argument(
        "--check-ms",
        type=int,
        help="the engines' TABULA_SYZYGY_CHECK_MS (0: every table but the first checked in the background)",
    )
    ap.add_argument("--trace", help="write every line sent and read to this file")
    args = ap.parse_args()
    if args.trace:
        global TRACE
        TRACE = open(args.trace, "w")
    Stress(args).run()


if __name__ == "__main__":
    main()
