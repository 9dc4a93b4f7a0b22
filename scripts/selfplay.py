#!/usr/bin/env python3
"""Self-play that lasts: every session starts it at minute one and commits its shard before it
stops (corpus/README.md).

    python3 scripts/selfplay.py start chess             # niced background datagen, one core
    python3 scripts/selfplay.py start othello           # the other core
    python3 scripts/selfplay.py status                  # progress of each run
    python3 scripts/selfplay.py stop                    # cut cleanly, add the shards to corpus/
    git add corpus && git commit -m "corpus: ..."

`start` copies target/release/tabula to selfplay/ (ignored by git: a later build does not
change the running engine), carries on the seed of the game's last shard in corpus/manifest.json
from the game after its last one (`datagen --first-game`), or starts the next seed when that
one is done, and writes selfplay/GAME.json: the exact command, the commit and the network.
`stop` interrupts the run, cuts a torn last game (the same datagen command with --games 0) and
runs `tabula corpus add`, which refuses anything damaged. A run's games do not depend on the
machine, the threads or the pauses: game i of a seed is the same game in any shard.
"""
import hashlib
import json
import os
import re
import shlex
import signal
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
WORK = os.path.join(ROOT, "selfplay")
CORPUS = os.path.join(ROOT, "corpus")

# Per game: datagen's settings (tabula's own defaults for the rest), the seeds' size, the
# first seed, and the weight file that the release build embeds.
GAMES = {
    "chess": {
        # 2,500 nodes a move: at equal core time as good as twice the positions at 5,000 (the
        # budget experiment, protocol/learning.md "Half the nodes a move"). The seeds at 5,000
        # (68-71, remade to their published lengths where published) stay in the corpus; a
        # run counts only the shards of its own budget, so these seeds start at 1072.
        "args": ["--nodes", "2500"],
        "games": 200000,
        "first_seed": 1072,
        "remake": {},
        "weights": "weights/chess-nnue.bin",
    },
    "othello": {
        "args": ["--nodes", "1500", "--branches", "8", "--exact-ms", "5000"],
        "games": 45000,
        "first_seed": 4013,
        "remake": {4013: 34400},
        "weights": "weights/othello-patterns.bin",
    },
}


def sha256(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def manifest():
    path = os.path.join(CORPUS, "manifest.json")
    if not os.path.exists(path):
        return {"shards": []}
    with open(path) as f:
        return json.load(f)


def flag(command, name):
    m = re.search(r"--%s[ =](\S+)" % re.escape(name), command)
    return int(m.group(1)) if m else None


def next_run(game, network):
    """The seed, first game and stop index of the next run of `game` by the weights of sha256
    `network`."""
    spec = GAMES[game]
    # Shards of this budget only: a seed played at another node budget (chess 68-71 at 5,000)
    # neither ends nor continues these.
    budget = flag(" ".join(spec["args"]), "nodes")
    shards = [s for s in manifest()["shards"] if s["game"] == game and "datagen" in s["command"]
              and flag(s["command"], "nodes") == budget]
    if not shards:
        seed = spec["first_seed"]
        return seed, 0, spec["remake"].get(seed, spec["games"])
    seed = max(flag(s["command"], "seed") or 0 for s in shards)
    last = max(s["last_game"] for s in shards if flag(s["command"], "seed") == seed)
    stop = spec["remake"].get(seed, spec["games"])
    # A seed is one network's games: where the embedded weights changed since the seed's
    # shards were played, the seed ends there and the next one starts.
    played = {s["network"] for s in shards if flag(s["command"], "seed") == seed}
    if last + 1 < stop and played <= {network}:
        return seed, last + 1, stop
    seed += 1
    return seed, 0, spec["remake"].get(seed, spec["games"])


def git(*args):
    return subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True, check=True).stdout.strip()


def yield_to_builds(pid):
    """Lowers the run's autogroup too. Linux puts each session (the run has its own, so that it
    outlives the shell) in an autogroup of its own and shares the CPU between groups before
    nice counts: a niced run in its own group took as much CPU as a whole cargo build (measured
    2026-12-05: 60% of both cores for two runs at nice 19, against 40% for the build)."""
    try:
        with open(f"/proc/{pid}/autogroup", "w") as f:
            f.write("19")
    except OSError:
        pass  # no autogroups (another kernel or system): nice alone decides


def start(game, threads):
    if game not in GAMES:
        sys.exit(f"unknown game {game!r}: one of {', '.join(GAMES)}")
    os.makedirs(WORK, exist_ok=True)
    meta_path = os.path.join(WORK, f"{game}.json")
    if os.path.exists(meta_path):
        sys.exit(f"{meta_path} exists: a run of {game} is going or was not stopped (`stop` first)")
    built = os.path.join(ROOT, "target", "release", "tabula")
    if not os.path.exists(built):
        sys.exit("build first: cargo build --release")
    commit = git("rev-parse", "HEAD")
    if git("status", "--porcelain", "--untracked-files=no", "src", "weights", "build.rs", "Cargo.toml", "Cargo.lock"):
        print("warning: the engine's sources differ from the commit; the manifest names the commit", file=sys.stderr)
    exe = os.path.join(WORK, f"tabula-{commit[:12]}")
    if not os.path.exists(exe):
        subprocess.run(["cp", built, exe], check=True)
    network = sha256(os.path.join(ROOT, GAMES[game]["weights"]))
    seed, first, stop = next_run(game, network)
    out = os.path.join(WORK, f"{game}-s{seed}.bin")
    args = ["datagen", "--game", game, "--out", os.path.basename(out), "--games", str(stop),
            "--seed", str(seed), *GAMES[game]["args"], "--threads", str(threads)]
    if first:
        args += ["--first-game", str(first)]
    log = open(os.path.join(WORK, f"{game}.log"), "a")
    p = subprocess.Popen(["nice", "-n", "19", exe, *args], cwd=WORK, stdout=log, stderr=log,
                         stdin=subprocess.DEVNULL, start_new_session=True)
    yield_to_builds(p.pid)
    meta = {
        "game": game, "pid": p.pid, "exe": exe, "args": args, "out": out, "seed": seed,
        "first": first, "commit": commit, "network": network,
        "started": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "threads": threads,
    }
    with open(meta_path, "w") as f:
        json.dump(meta, f, indent=1)
    print(f"{game}: seed {seed}, games {first}..{stop - 1}, pid {p.pid}, log selfplay/{game}.log")


def runs():
    if not os.path.isdir(WORK):
        return []
    return [os.path.join(WORK, n) for n in sorted(os.listdir(WORK)) if n.endswith(".json")]


def alive(pid):
    try:
        os.kill(pid, 0)
        return True
    except OSError:
        return False


def status():
    for path in runs():
        meta = json.load(open(path))
        log = os.path.join(WORK, f"{meta['game']}.log")
        last = open(log).read().strip().splitlines()[-1:] if os.path.exists(log) else []
        state = "running" if alive(meta["pid"]) else "stopped"
        print(f"{meta['game']} seed {meta['seed']} ({state}): {last[0] if last else 'no progress yet'}")


def stop(only):
    tabula = os.path.join(ROOT, "target", "release", "tabula")
    for path in runs():
        meta = json.load(open(path))
        if only and meta["game"] not in only:
            continue
        pid = meta["pid"]
        if alive(pid):
            os.kill(pid, signal.SIGINT)
            for _ in range(100):
                if not alive(pid):
                    break
                time.sleep(0.1)
            else:
                os.kill(pid, signal.SIGKILL)
            try:
                os.waitpid(pid, 0)
            except ChildProcessError:
                pass
        # A torn last game is cut by opening the file again with nothing to play.
        cut = list(meta["args"])
        cut[cut.index("--games") + 1] = "0"
        subprocess.run([meta["exe"], *cut], cwd=WORK, check=True, capture_output=True)
        if not os.path.exists(meta["out"]) or os.path.getsize(meta["out"]) <= 32:
            print(f"{meta['game']}: no games written; nothing to add")
            os.remove(path)
            continue
        summary = subprocess.run([tabula, "data", meta["out"]], capture_output=True, text=True, check=True).stdout
        last = re.search(r"; games \d+-(\d+)$", summary.strip())
        if not last:
            sys.exit(f"{meta['out']}: no games in it ({summary.strip()})")
        # The command as it reproduces this shard: stopping at the game after its last.
        made = list(meta["args"])
        made[made.index("--games") + 1] = str(int(last.group(1)) + 1)
        made[made.index("--threads") + 1] = "1"
        made[made.index("--out") + 1] = os.path.basename(meta["out"])
        command = "tabula " + " ".join(shlex.quote(a) for a in made)
        note = (f"{meta['started']} to {time.strftime('%H:%M UTC', time.gmtime())}, "
                f"{os.uname().nodename}, {meta['threads']} thread(s) niced, stopped by SIGINT")
        subprocess.run([tabula, "corpus", "add", meta["out"], "--dir", CORPUS, "--command", command,
                        "--commit", meta["commit"], "--network", meta["network"], "--note", note],
                       check=True)
        os.remove(meta["out"])
        os.remove(path)
    print("now: git add corpus && git commit")


def main():
    if len(sys.argv) < 2 or sys.argv[1] not in ("start", "stop", "status"):
        sys.exit(__doc__)
    cmd = sys.argv[1]
    if cmd == "start":
        if len(sys.argv) < 3:
            sys.exit("start GAME [THREADS]")
        start(sys.argv[2], int(sys.argv[3]) if len(sys.argv) > 3 else 1)
    elif cmd == "status":
        status()
    else:
        stop(sys.argv[2:])


if __name__ == "__main__":
    main()
