#!/usr/bin/env python3
"""`tabula serve` under abuse (issues 46, 87): thousands of connections at once, malformed and
oversized requests, slow clients, event streams by the thousand (half never read), moves for
other games, and matches through the API for as long as asked;
the server's memory, threads, open files and engine children measured at the start, after
every phase and at the end. Standard library only.

    python3 scripts/serve_abuse.py --tabula target/release/tabula --conns 3000 --minutes 60

Starts `tabula serve --port 0` itself (niced engines are the server's own children), or
attaches to a running one with --pid PID --addr HOST:PORT. Exits 1 when the server died,
stopped answering `/`, kept an engine child of a closed game, or grew past --max-growth-mib.
"""

import argparse
import json
import os
import random
import resource
import socket
import subprocess
import sys
import time

T0 = time.time()


def log(msg):
    print(f"[{time.time() - T0:8.1f} s] {msg}", flush=True)


# ---------------------------------------------------------------- the server's figures


def children(pid):
    """The server's child processes: (live, zombies)."""
    live, zombies = [], []
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open(f"/proc/{d}/stat") as f:
                stat = f.read()
        except OSError:
            continue
        # pid (comm) state ppid ...: comm may hold spaces, so split after its ')'.
        rest = stat.rsplit(")", 1)[-1].split()
        if len(rest) > 1 and rest[1] == str(pid):
            (zombies if rest[0] == "Z" else live).append(int(d))
    return live, zombies


def figures(pid):
    status = {}
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                k, _, v = line.partition(":")
                status[k] = v.strip()
        fds = len(os.listdir(f"/proc/{pid}/fd"))
    except OSError:
        return None
    live, zombies = children(pid)
    return {
        "rss_kib": int(status.get("VmRSS", "0 kB").split()[0]),
        "threads": int(status.get("Threads", "0")),
        "fds": fds,
        "children": len(live),
        "zombies": len(zombies),
    }


def show(tag, f):
    if f is None:
        log(f"{tag}: THE SERVER IS GONE")
    else:
        log(
            f"{tag}: RSS {f['rss_kib'] / 1024:.1f} MiB, {f['threads']} threads, "
            f"{f['fds']} fds, {f['children']} children, {f['zombies']} zombies"
        )


# ---------------------------------------------------------------- HTTP, by hand


class Client:
    def __init__(self, addr):
        host, port = addr.rsplit(":", 1)
        self.host, self.port, self.addr = host, int(port), addr
        self.requests = 0
        self.unexpected = []

    def raw(self, data, timeout=30.0, read=True):
        """Sends bytes on a fresh connection; the status (0: closed without an answer)."""
        self.requests += 1
        s = socket.create_connection((self.host, self.port), timeout=timeout)
        try:
            try:
                s.sendall(data)
                s.shutdown(socket.SHUT_WR)  # all sent: a short body ends here
            except OSError:
                pass  # the server may close before reading it all (413, 400)
            if not read:
                return 0
            got = b""
            while b"\r\n" not in got:
                try:
                    chunk = s.recv(4096)
                except OSError:
                    break
                if not chunk:
                    break
                got += chunk
            parts = got.split(b" ", 2)
            return int(parts[1]) if len(parts) > 1 and parts[1].isdigit() else 0
        finally:
            s.close()

    def request(self, method, path, body=None, headers=None, timeout=60.0):
        """A well-formed request: (status, parsed JSON or text, seconds)."""
        self.requests += 1
        t = time.time()
        payload = b"" if body is None else json.dumps(body).encode()
        head = f"{method} {path} HTTP/1.1\r\nHost: {self.addr}\r\nConnection: close\r\n"
        head += f"Content-Length: {len(payload)}\r\n"
        if body is not None:
            head += "Content-Type: application/json\r\n"
        for k, v in (headers or {}).items():
            head += f"{k}: {v}\r\n"
        s = socket.create_connection((self.host, self.port), timeout=timeout)
        try:
            s.sendall(head.encode() + b"\r\n" + payload)
            got = b""
            while True:
                chunk = s.recv(65536)
                if not chunk:
                    break
                got += chunk
        finally:
            s.close()
        head, _, rest = got.partition(b"\r\n\r\n")
        parts = head.split(b" ", 2)
        status = int(parts[1]) if len(parts) > 1 and parts[1].isdigit() else 0
        if b"chunked" in head.lower():
            out, i = b"", 0
            while True:
                j = rest.find(b"\r\n", i)
                n = int(rest[i:j] or b"0", 16) if j >= 0 else 0
                if n == 0:
                    break
                out += rest[j + 2 : j + 2 + n]
                i = j + 2 + n + 2
            rest = out
        try:
            value = json.loads(rest)
        except ValueError:
            value = rest.decode(errors="replace")
        return status, value, time.time() - t

    def get(self, path):
        return self.request("GET", path)

    def post(self, path, body):
        return self.request("POST", path, body)

    def expect(self, what, status, allowed):
        if status not in allowed:
            self.unexpected.append(f"{what}: status {status}, expected {allowed}")
            log(f"UNEXPECTED {what}: status {status}, expected {allowed}")

    def page_ms(self):
        """Milliseconds `/` takes, or None when it does not answer 200."""
        try:
            status, _, secs = self.get("/")
        except OSError:
            return None
        return secs * 1000 if status == 200 else None


# ---------------------------------------------------------------- the phases


def many_connections(c, n):
    """n sockets opened at once and held; `/` timed while they are; then each sends a request."""
    socks, refused = [], 0
    for _ in range(n):
        try:
            s = socket.create_connection((c.host, c.port), timeout=10)
            socks.append(s)
        except OSError:
            refused += 1
    ms = c.page_ms()
    log(f"{len(socks)} connections held ({refused} refused); / answers in {ms} ms")
    if ms is None:
        c.unexpected.append(f"/ did not answer with {len(socks)} connections held")
    # Half send a whole request on their open connection, the others just close.
    answered = 0
    for i, s in enumerate(socks):
        if i % 2 == 0:
            try:
                s.sendall(f"GET /api/config HTTP/1.1\r\nHost: {c.addr}\r\nConnection: close\r\n\r\n".encode())
            except OSError:
                pass
    for i, s in enumerate(socks):
        if i % 2 == 0:
            try:
                s.settimeout(30)
                if s.recv(16).startswith(b"HTTP/1.1 200"):
                    answered += 1
            except OSError:
                pass
        s.close()
    c.requests += len(socks) // 2
    log(f"{answered} of {(len(socks) + 1) // 2} requests on held connections answered 200")
    return len(socks), ms


def malformed(c, big_mib):
    host = f"Host: {c.addr}\r\n".encode()
    j = b"Content-Type: application/json\r\n"
    big = b"x" * (big_mib << 20)
    cases = [
        ("garbage", b"\x00\xff\xfe\x01 garbage\r\n\r\n", {400, 0}),
        ("no path", b"GET\r\n\r\n", {400, 0}),
        ("HTTP/9.9", b"GET / HTTP/9.9\r\n" + host + b"\r\n", {400, 505, 0}),
        ("bad header", b"GET / HTTP/1.1\r\n" + host + b"no colon here\r\n\r\n", {400, 0}),
        # Bytes 0x80-0xFF are obs-text, allowed in a header's value (RFC 9110 5.5): the page.
        ("not ASCII header", b"GET / HTTP/1.1\r\n" + host + b"X: \xff\xfe\r\n\r\n", {200, 400, 0}),
        ("long URL", b"GET /" + b"a" * 100_000 + b" HTTP/1.1\r\n" + host + b"\r\n", {404, 414, 431, 0}),
        ("huge header", b"GET / HTTP/1.1\r\n" + host + b"X-Big: " + big + b"\r\n\r\n", {431, 400, 0}),
        ("20000 headers", b"GET / HTTP/1.1\r\n" + host + b"X-A: b\r\n" * 20_000 + b"\r\n", {431, 400, 0}),
        ("bad JSON", b"POST /api/new HTTP/1.1\r\n" + host + j + b"Content-Length: 9\r\n\r\n{not json", {400}),
        ("JSON array", b"POST /api/new HTTP/1.1\r\n" + host + j + b"Content-Length: 6\r\n\r\n[1, 2]", {400}),
        ("deep JSON", b"POST /api/new HTTP/1.1\r\n" + host + j + b"Content-Length: 60000\r\n\r\n" + b"[" * 60_000, {400}),
        ("no JSON type", b"POST /api/new HTTP/1.1\r\n" + host + b"Content-Length: 2\r\n\r\n{}", {400}),
        ("Content-Length abc", b"POST /api/new HTTP/1.1\r\n" + host + j + b"Content-Length: abc\r\n\r\n{}", {400, 411, 0}),
        ("Content-Length -5", b"POST /api/new HTTP/1.1\r\n" + host + j + b"Content-Length: -5\r\n\r\n{}", {400, 411, 0}),
        ("Content-Length 10^12, 2 bytes sent", b"POST /api/new HTTP/1.1\r\n" + host + j + b"Content-Length: 999999999999\r\n\r\n{}", {413}),
        ("Content-Length 100, 2 bytes sent, closed", b"POST /api/new HTTP/1.1\r\n" + host + j + b"Content-Length: 100\r\n\r\n{}", {400, 0}),
        (f"{big_mib} MiB body", b"POST /api/new HTTP/1.1\r\n" + host + j + f"Content-Length: {len(big)}\r\n\r\n".encode() + big, {413, 0}),
        (f"{big_mib} MiB chunked body", b"POST /api/new HTTP/1.1\r\n" + host + j + b"Transfer-Encoding: chunked\r\n\r\n" + f"{len(big):x}\r\n".encode() + big + b"\r\n0\r\n\r\n", {413, 0}),
        ("bad chunk size", b"POST /api/new HTTP/1.1\r\n" + host + j + b"Transfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n", {400, 0}),
        ("wrong Host", b"GET /api/config HTTP/1.1\r\nHost: evil.example\r\n\r\n", {403}),
        ("no Host", b"GET /api/config HTTP/1.0\r\n\r\n", {403}),
        ("DELETE", b"DELETE /api/new HTTP/1.1\r\n" + host + b"\r\n", {405}),
        ("dot-dot", b"GET /../../etc/passwd HTTP/1.1\r\n" + host + b"\r\n", {404}),
        ("bad query", b"GET /api/state?id=%zz%&since=-1 HTTP/1.1\r\n" + host + b"\r\n", {400, 404}),
        ("events of no game", b"GET /api/events?id=0123456789abcdef HTTP/1.1\r\n" + host + b"\r\n", {404}),
        ("events with no id", b"GET /api/events HTTP/1.1\r\n" + host + b"\r\n", {400}),
        ("events, bad query", b"GET /api/events?id=%zz%&x HTTP/1.1\r\n" + host + b"\r\n", {400, 404}),
        ("events posted", b"POST /api/events HTTP/1.1\r\n" + host + j + b"Content-Length: 2\r\n\r\n{}", {404, 405}),
    ]
    for what, data, allowed in cases:
        # The client's own Connection: close is added where the request has a Host line.
        try:
            status = c.raw(data.replace(b"HTTP/1.1\r\n", b"HTTP/1.1\r\nConnection: close\r\n", 1))
        except OSError as e:
            status = 0
            log(f"{what}: {e}")
        c.expect(what, status, allowed)
    log(f"{len(cases)} malformed kinds sent")
    return len(cases)


def slowloris(c, n, seconds):
    """n connections that send a header byte every second: `/` must stay fast meanwhile."""
    socks = []
    for _ in range(n):
        try:
            s = socket.create_connection((c.host, c.port), timeout=5)
            s.sendall(b"GET / HTTP/1.1\r\n")
            socks.append(s)
        except OSError:
            pass
    worst = 0.0
    for _ in range(seconds):
        for s in socks:
            try:
                s.sendall(b"X")
            except OSError:
                pass
        ms = c.page_ms()
        if ms is None:
            c.unexpected.append("/ did not answer during slowloris")
        worst = max(worst, ms or 0.0)
        time.sleep(1)
    for s in socks:
        s.close()
    log(f"slowloris: {len(socks)} connections for {seconds} s; / at worst {worst:.1f} ms")


def event_streams(c, n, seconds):
    """n event streams on one game while its match is played: half read, half never read (a
    page that stopped reading); `/` and a setting must stay quick; then all are dropped."""
    st, v, _ = c.post("/api/new", {"game": "connect4", "match": 50, "engine1": 0, "engine2": 0,
                                   "movetime": 10, "level": 0})
    c.expect("new match for the streams", st, {200})
    if st != 200 or not isinstance(v, dict):
        return
    game = v["id"]
    socks = []
    for _ in range(n):
        try:
            s = socket.create_connection((c.host, c.port), timeout=5)
            s.sendall(f"GET /api/events?id={game} HTTP/1.1\r\nHost: {c.addr}\r\n\r\n".encode())
            s.setblocking(False)
            socks.append(s)
        except OSError:
            pass
    c.requests += len(socks)
    worst, worst_post, got = 0.0, 0.0, 0
    for _ in range(seconds):
        until = time.time() + 1
        while time.time() < until:
            for s in socks[::2]:
                try:
                    got += len(s.recv(1 << 16))
                except OSError:
                    pass
            time.sleep(0.05)
        ms = c.page_ms()
        if ms is None:
            c.unexpected.append("/ did not answer with the event streams open")
        worst = max(worst, ms or 0.0)
        st, _, secs = c.post("/api/settings", {"id": game, "level": 0})
        c.expect("a setting with the streams open", st, {200})
        worst_post = max(worst_post, secs * 1000)
    for s in socks:
        s.close()
    c.expect("close the streams' game", c.post("/api/close", {"id": game})[0], {200})
    log(f"{len(socks)} event streams for {seconds} s ({got / 1e6:.1f} MB read by half); "
        f"/ at worst {worst:.1f} ms, a setting at worst {worst_post:.1f} ms")


def wrong_games(c):
    """Moves for other games, closed games and games that never were."""
    st, oth, _ = c.post("/api/new", {"game": "othello", "human": "both"})
    c.expect("new othello", st, {200})
    st, c4, _ = c.post("/api/new", {"game": "connect4", "human": "both"})
    c.expect("new connect4", st, {200})
    if not isinstance(oth, dict) or not isinstance(c4, dict):
        return
    o, k = oth.get("id", ""), c4.get("id", "")
    for what, body, allowed in [
        ("chess move in Othello", {"id": o, "move": "e2e4"}, {400}),
        ("Connect Four move in Othello", {"id": o, "move": "d"}, {400}),
        ("Othello move in Connect Four", {"id": k, "move": "f5"}, {400}),
        ("Domineering move in Connect Four", {"id": k, "move": "c3c4"}, {400}),
        ("a game that never was", {"id": "0123456789abcdef", "move": "d"}, {404}),
        ("an id of 10000 characters", {"id": "z" * 10_000, "move": "d"}, {404}),
        ("an id that is a number", {"id": 5, "move": "d"}, {400}),
        ("a move that is a list", {"id": k, "move": ["d"]}, {400}),
        ("a legal Othello move", {"id": o, "move": "f5"}, {200}),
        ("a branch that is no choice", {"id": k, "move": "d", "branch": "up"}, {400}),
    ]:
        st, _, _ = c.post("/api/move", body)
        c.expect(what, st, allowed)
    # The analysis board's requests: nodes that are not there, records that are not games.
    for what, path, body, allowed in [
        ("goto a node that is not there", "/api/goto", {"id": o, "node": 10**12}, {400}),
        ("goto a node that is a string", "/api/goto", {"id": o, "node": "x"}, {400}),
        ("remove the start", "/api/remove", {"id": o, "node": 0}, {400}),
        ("promote a node of nothing", "/api/promote", {"id": k, "node": 7}, {400}),
        ("review for a negative time", "/api/review", {"id": k, "on": True, "ms": -5}, {400}),
        ("multipv 99", "/api/settings", {"id": k, "multipv": 99}, {400}),
        ("a record of garbage", "/api/new", {"record": "\x00(((" + "z" * 5000}, {400}),
        ("a record with an illegal move", "/api/new", {"record": "1. e4 e5 2. Ke3 *"}, {400}),
        ("a record of 6000 moves", "/api/new", {"record": "[Game \"domineering\"]\n" + "a1b1 " * 6000}, {400}),
        ("a record that is a number", "/api/new", {"record": 7}, {400}),
        ("an export of nothing", "/api/export", {"id": "0123456789abcdef"}, {404}),
        ("go back to the start", "/api/goto", {"id": o, "node": 0}, {200}),
        ("an export", "/api/export", {"id": o}, {200}),
    ]:
        st, _, _ = c.post(path, body)
        c.expect(what, st, allowed)
    c.expect("close othello", c.post("/api/close", {"id": o})[0], {200})
    for what, path, body in [
        ("move in a closed game", "/api/move", {"id": o, "move": "d3"}),
        ("undo in a closed game", "/api/undo", {"id": o}),
        ("settings of a closed game", "/api/settings", {"id": o, "level": 3}),
        ("close twice", "/api/close", {"id": o}),
    ]:
        c.expect(what, c.post(path, body)[0], {404})
    c.expect("state of a closed game", c.get(f"/api/state?id={o}")[0], {404})
    c.expect("close connect4", c.post("/api/close", {"id": k})[0], {200})
    log("moves for other games, closed games and no games refused")


def too_many_games(c, max_games):
    ids = []
    for _ in range(max_games):
        st, v, _ = c.post("/api/new", {"game": "connect4", "human": "both"})
        if st == 200 and isinstance(v, dict):
            ids.append(v["id"])
    st, _, _ = c.post("/api/new", {"game": "connect4", "human": "both"})
    c.expect(f"game {max_games + 1}", st, {503})
    for i in ids:
        c.post("/api/close", {"id": i})
    log(f"{len(ids)} games open, the next refused 503, all closed")


MATCHES = [
    {"game": "domineering", "rows": 4, "cols": 5},
    {"game": "connect4"},
    {"game": "othello", "size": 8},
    {"game": "chess"},
]


def wait_children(pid, want, seconds=10.0):
    until = time.time() + seconds
    while True:
        live, zombies = children(pid)
        if (len(live) <= want and not zombies) or time.time() > until:
            return len(live), len(zombies)
        time.sleep(0.1)


def warm_up(c, pid):
    """One short match of every game and Connect Four's exact values: what the server keeps
    once used (the Connect Four solver's shared 64 MiB table, the allocator's arenas)."""
    for setup in MATCHES:
        body = dict(setup, match=1, engine1=0, engine2=0, movetime=10, level=0)
        st, v, _ = c.post("/api/new", body)
        c.expect("warm-up match", st, {200})
        if st == 200 and isinstance(v, dict):
            since, until = v.get("version", 0), time.time() + 120
            while time.time() < until:
                st, v, _ = c.get(f"/api/state?id={v['id']}&since={since}")
                if st != 200 or (v.get("match") or {}).get("finished"):
                    break
                since = v.get("version", since)
            c.post("/api/close", {"id": v.get("id", "")})
    st, v, _ = c.post("/api/new", {"game": "connect4", "human": "both", "exact": True})
    if st == 200 and isinstance(v, dict):
        since, until = v.get("version", 0), time.time() + 60
        while time.time() < until and v.get("exact", {}).get("state") not in ("done", "stopped"):
            st, v, _ = c.get(f"/api/state?id={v['id']}&since={since}")
            if st != 200:
                break
            since = v.get("version", since)
        c.post("/api/close", {"id": v.get("id", "")})
    wait_children(pid, 0)


def matches(c, pid, minutes, at_once, rng):
    """Matches through the API for `minutes`: each a short engine-against-engine series at the
    least time per move and level 0, watched by long polls; some closed half-way."""
    until = time.time() + minutes * 60
    played = games_done = closed_early = 0
    leaks = 0
    next_sample = time.time() + 300
    while time.time() < until:
        if time.time() > next_sample:
            show(f"{played} matches played", figures(pid))
            next_sample += 300
        ids = []
        for _ in range(at_once):
            setup = dict(rng.choice(MATCHES))
            setup.update({"match": 2, "engine1": 0, "engine2": 0, "movetime": 10, "level": 0})
            st, v, _ = c.post("/api/new", setup)
            c.expect(f"new match {setup['game']}", st, {200})
            if st == 200 and isinstance(v, dict):
                ids.append((v["id"], v.get("version", 0), rng.random() < 0.25))
        for i, (id_, since, early) in enumerate(ids):
            deadline = time.time() + (5 if early else 300)
            while time.time() < deadline:
                try:
                    st, v, _ = c.get(f"/api/state?id={id_}&since={since}")
                except OSError as e:
                    c.unexpected.append(f"state of a match: {e}")
                    continue
                if st != 200 or not isinstance(v, dict):
                    c.expect("state of a match", st, {200})
                    break
                since = v.get("version", since)
                m = v.get("match") or {}
                if m.get("finished"):
                    games_done += len(m.get("results", []))
                    break
            if early:
                closed_early += 1
            c.expect("close a match", c.post("/api/close", {"id": id_})[0], {200})
            played += 1
        live, zombies = wait_children(pid, 0)
        if live or zombies:
            leaks += 1
            c.unexpected.append(f"{live} children, {zombies} zombies left after closing every game")
            log(f"LEAK: {live} children and {zombies} zombies with no game open")
        if played % 40 < at_once:
            log(f"{played} matches ({games_done} games, {closed_early} closed half-way)")
    return played, games_done, closed_early, leaks


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--tabula", default="target/release/tabula")
    ap.add_argument("--pid", type=int, help="attach to this running server (with --addr)")
    ap.add_argument("--addr", help="HOST:PORT of the server given with --pid")
    ap.add_argument("--conns", type=int, default=3000, help="connections opened at once")
    ap.add_argument("--big-mib", type=int, default=50, help="size of the oversized bodies")
    ap.add_argument("--slowloris", type=int, default=300, help="slow connections")
    ap.add_argument("--slow-seconds", type=int, default=10)
    ap.add_argument("--streams", type=int, default=1000, help="event streams on one game")
    ap.add_argument("--minutes", type=float, default=60.0, help="of matches through the API")
    ap.add_argument("--at-once", type=int, default=4, help="matches played at once")
    ap.add_argument("--max-games", type=int, default=16, help="the server's --max-games")
    ap.add_argument("--rounds", type=int, default=6, help="abuse phases, each followed by its share of the matches")
    ap.add_argument("--max-growth-mib", type=float, default=8.0, help="after the first round")
    ap.add_argument("--seed", type=int, default=46)
    args = ap.parse_args()
    rng = random.Random(args.seed)

    # This client needs a descriptor per held connection.
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    want = min(hard, max(soft, args.conns + args.slowloris + args.streams + 256))
    resource.setrlimit(resource.RLIMIT_NOFILE, (want, hard))

    proc = None
    if args.pid:
        pid, addr = args.pid, args.addr
    else:
        proc = subprocess.Popen(
            [args.tabula, "serve", "--port", "0", "--max-games", str(args.max_games)],
            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
        )
        line = proc.stdout.readline()
        addr = line.split("http://")[1].split("/")[0]
        pid = proc.pid
    c = Client(addr)
    log(f"server pid {pid} at {addr}; this client may hold {want} descriptors")
    c.get("/api/config")
    show("idle", figures(pid))
    ok = True
    try:
        warm_up(c, pid)
        start = figures(pid)
        show("start (after the warm-up)", start)
        totals, steady = [0, 0, 0, 0], None
        for r in range(args.rounds):
            many_connections(c, args.conns)
            time.sleep(1)
            show(f"round {r + 1}: after {args.conns} connections", figures(pid))
            malformed(c, args.big_mib)
            show(f"round {r + 1}: after malformed requests", figures(pid))
            slowloris(c, args.slowloris, args.slow_seconds)
            show(f"round {r + 1}: after slowloris", figures(pid))
            event_streams(c, args.streams, args.slow_seconds)
            show(f"round {r + 1}: after the event streams", figures(pid))
            wrong_games(c)
            too_many_games(c, args.max_games)
            show(f"round {r + 1}: after other games' moves", figures(pid))
            m = matches(c, pid, args.minutes / args.rounds, args.at_once, rng)
            totals = [t + x for t, x in zip(totals, m)]
            after = figures(pid)
            show(f"round {r + 1}: after {m[0]} matches", after)
            if r == 0:
                # Growth is judged from here: every kind of work has been done once (the
                # first 3000 threads at once leave the allocator some 15 MiB larger).
                steady = after
        played, games, early, leaks = totals
        log(f"matches: {played} ({games} games, {early} closed half-way), {leaks} rounds with children left")
        # Idle connections are closed after the server's 10 s for a request head, the
        # blocking pool's threads after 2 s with nothing to do.
        time.sleep(12)
        ms = c.page_ms()
        end = figures(pid)
        show("end", end)
        log(f"/ answers in {ms} ms at the end; {c.requests} requests sent; {len(c.unexpected)} unexpected answers")
        for u in c.unexpected[:20]:
            log(f"  {u}")
        if end is None or ms is None:
            ok = False
        else:
            log(f"RSS {(end['rss_kib'] - start['rss_kib']) / 1024:+.1f} MiB since the start")
            growth = (end["rss_kib"] - (steady or start)["rss_kib"]) / 1024
            log(f"RSS growth {growth:+.1f} MiB since the first round; children {end['children']}, zombies {end['zombies']}")
            ok = ok and growth <= args.max_growth_mib and end["children"] == 0 and end["zombies"] == 0
        ok = ok and not c.unexpected
    finally:
        if proc is not None:
            proc.kill()
            proc.wait()
    log("PASS" if ok else "FAIL")
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
