#!/usr/bin/env python3
"""`tabula serve` with a game open in many pages at once (issue 87): N event streams on one
game (`GET /api/events`, read as EventSource reads them), while the engine analyses (its
`info` lines coalesced per stream) and a person's moves, take-backs to the start and settings
are posted; every answer's time is measured, and how long the streams take to show a move.
Loopback only, bounded in time (it stops itself after --seconds, and a hard alarm after
twice that). Standard library only.

    python3 scripts/serve_load.py --tabula target/release/tabula --streams 1000 --seconds 30

Exits 1 when an answer failed, a move or a setting took longer than --limit-ms at the 95th
percentile, or a stream fell behind for good.
"""

import argparse
import json
import os
import resource
import selectors
import signal
import socket
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from serve_abuse import Client, figures, log, show  # noqa: E402

# A line of chess in SAN, played from the start again and again (the tree keeps it: after the
# first time a move goes to its node).
LINE = "e4 e5 Nf3 Nc6 Bb5 a6 Ba4 Nf6 O-O Be7 Re1 b5 Bb3 d6 c3 O-O h3 Nb8 d4 Nbd7".split()


class Stream:
    """One page's event stream: the version it has seen last."""

    def __init__(self, addr, host, port, game):
        self.sock = socket.create_connection((host, port), timeout=10)
        self.sock.sendall(
            f"GET /api/events?id={game} HTTP/1.1\r\nHost: {addr}\r\nAccept: text/event-stream\r\n\r\n".encode()
        )
        self.sock.setblocking(False)
        self.buf = b""
        self.version = 0
        self.bytes = 0
        self.events = 0

    def feed(self, data):
        """Reads the events in `data`; the body's chunk-size lines are not events' lines."""
        self.bytes += len(data)
        self.buf += data
        while b"\n\n" in self.buf:
            block, self.buf = self.buf.split(b"\n\n", 1)
            for line in block.split(b"\n"):
                line = line.strip(b"\r")
                if line.startswith(b"id:"):
                    try:
                        self.version = max(self.version, int(line[3:].strip()))
                    except ValueError:
                        pass
                    self.events += 1


def percentile(xs, p):
    if not xs:
        return float("nan")
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(p / 100 * len(xs)))]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--tabula", default="target/release/tabula")
    ap.add_argument("--streams", type=int, default=1000)
    ap.add_argument("--seconds", type=float, default=30.0)
    ap.add_argument("--interval", type=float, default=0.2, help="seconds between actions")
    ap.add_argument("--limit-ms", type=float, default=50.0)
    args = ap.parse_args()
    signal.alarm(int(args.seconds * 2 + 60))

    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, max(soft, args.streams + 256)), hard))
    proc = subprocess.Popen(
        [args.tabula, "serve", "--host", "127.0.0.1", "--port", "0"],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
    )
    ok = True
    try:
        addr = proc.stdout.readline().split("http://")[1].split("/")[0]
        c = Client(addr)
        st, v, _ = c.post("/api/new", {"game": "chess", "human": "both", "exact": False})
        if st != 200:
            log(f"cannot open a game: {st} {v}")
            return 1
        game = v["id"]
        # The engine analyses whatever is on show: its info lines go to every stream.
        c.post("/api/settings", {"id": game, "analyse": True, "multipv": 3})
        show("before the streams", figures(proc.pid))
        sel = selectors.DefaultSelector()
        streams = []
        for _ in range(args.streams):
            s = Stream(addr, c.host, c.port, game)
            streams.append(s)
            sel.register(s.sock, selectors.EVENT_READ, s)
        log(f"{len(streams)} event streams open on game {game}")

        def drain(timeout):
            for key, _ in sel.select(timeout):
                try:
                    data = key.data.sock.recv(1 << 20)
                except BlockingIOError:
                    continue
                except OSError:
                    data = b""
                if data:
                    key.data.feed(data)
                else:
                    nonlocal ok
                    ok = False
                    log("a stream was closed by the server")
                    sel.unregister(key.data.sock)

        t_end = time.time() + 3
        while time.time() < t_end:
            drain(0.05)
        show(f"{len(streams)} streams connected", figures(proc.pid))
        times = {"move": [], "goto": [], "settings": []}
        seen = []  # seconds from a move's answer until every stream has its version
        failed = 0
        ply, multipv, actions = 0, 1, 0
        t_end = time.time() + args.seconds
        next_action = time.time()
        while time.time() < t_end:
            drain(max(0.0, min(0.05, next_action - time.time())))
            if time.time() < next_action:
                continue
            next_action = time.time() + args.interval
            actions += 1
            if actions % 5 == 0:
                multipv = multipv % 3 + 1
                kind, path, body = "settings", "/api/settings", {"id": game, "multipv": multipv}
            elif ply < len(LINE):
                kind, path, body = "move", "/api/move", {"id": game, "move": LINE[ply]}
                ply += 1
            else:
                kind, path, body = "goto", "/api/goto", {"id": game, "node": 0}
                ply = 0
            st, v, secs = c.post(path, body)
            if st != 200:
                failed += 1
                log(f"{kind} {body}: {st} {v}")
                continue
            times[kind].append(secs * 1000)
            if kind == "move":
                want, t0 = v["version"], time.time()
                while time.time() - t0 < 5 and any(s.version < want for s in streams):
                    drain(0.01)
                seen.append(time.time() - t0)
        f = figures(proc.pid)
        show("at the end", f)
        total = sum(s.bytes for s in streams)
        events = sum(s.events for s in streams)
        log(f"{events} events, {total / 1e6:.1f} MB read over {len(streams)} streams")
        for kind, xs in times.items():
            if xs:
                log(
                    f"{kind}: {len(xs)} answered, median {percentile(xs, 50):.1f} ms, "
                    f"95th {percentile(xs, 95):.1f} ms, worst {max(xs):.1f} ms"
                )
        if seen:
            log(
                f"a move reached all {len(streams)} streams in median {percentile(seen, 50) * 1000:.0f} ms, "
                f"95th {percentile(seen, 95) * 1000:.0f} ms, worst {max(seen) * 1000:.0f} ms"
            )
        p95 = percentile(times["move"] + times["settings"] + times["goto"], 95)
        behind = sum(1 for s in streams if s.version < streams[0].version - 1000)
        ok = ok and failed == 0 and p95 <= args.limit_ms and behind == 0 and f is not None
        log(f"{failed} failed; 95th percentile of every action {p95:.1f} ms (limit {args.limit_ms} ms)")
        for s in streams:
            s.sock.close()
    finally:
        proc.kill()
        proc.wait()
    log("PASS" if ok else "FAIL")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
