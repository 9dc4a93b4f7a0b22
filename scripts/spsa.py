#!/usr/bin/env python3
"""SPSA tuning of tabula's search constants with fastchess, on this machine.

The same algorithm and schedule as OpenBench's SPSA workloads (so a tuning run here and one on
an OpenBench instance mean the same thing): for N iterations, every parameter is perturbed by
+-c_k at once (random signs), the two builds play a few game pairs against each other, and
each parameter moves by r_k * c_k * (wins - losses) * sign. With A = N / 10, alpha = 0.602,
gamma = 0.101 (Spall's values):
    c_k = c_end * N^gamma / (k + 1)^gamma
    r_k = a_k / c_k^2, a_k = r_end * c_end^2 * (A + N)^alpha / (A + k + 1)^alpha

The parameters (name, default, bounds, c_end, r_end) come from the engine itself: `tabula tune`
prints them in OpenBench's format. The engine must be a tuning build (cargo feature `tune`,
`make TUNE=1`), which takes each as a UCI option (fractional values rounded).

The state (theta and the iteration) is saved to --state after every iteration, and a run
started again with the same --state goes on from there. Only the standard library is used.

    cargo build --release --features tune --target-dir target-tune
    python3 scripts/spsa.py --engine target-tune/release/tabula --iterations 500 \\
        --pairs 4 --nodes 5000 --openings open.epd --state spsa.json
"""

import argparse
import json
import os
import random
import re
import subprocess
import sys
import tempfile

ALPHA, GAMMA = 0.602, 0.101


def params_of(engine):
    out = subprocess.run([engine, "tune"], capture_output=True, text=True, check=True)
    params = []
    for line in out.stdout.splitlines():
        f = [x.strip() for x in line.split(",")]
        if len(f) != 7 or f[1] not in ("int", "float"):
            continue
        params.append({"name": f[0], "value": float(f[2]), "min": float(f[3]),
                       "max": float(f[4]), "c_end": float(f[5]), "r_end": float(f[6])})
    if "build takes none" in out.stderr:
        sys.exit(f"{engine} is not a tuning build: {out.stderr.strip()}")
    return params


def result_of(output):
    """(wins, losses, draws) of the first engine from fastchess's summary."""
    m = re.findall(r"Games: (\d+), Wins: (\d+), Losses: (\d+), Draws: (\d+)", output)
    if not m:
        raise RuntimeError("no result in fastchess output:\n" + output[-2000:])
    _, w, l, d = map(int, m[-1])
    return w, l, d


def play(args, plus, minus, openings, workdir):
    book = os.path.join(workdir, "iter.epd")
    with open(book, "w") as f:
        f.write("\n".join(openings) + "\n")

    def engine(name, values):
        opts = [f"option.{k}={v:.3f}" for k, v in values.items()]
        return ["-engine", f"name={name}", f"cmd={args.engine}"] + opts

    limit = [f"nodes={args.nodes}", "tc=inf"] if args.nodes else [f"tc={args.tc}"]
    cmd = ([args.fastchess] + engine("plus", plus) + engine("minus", minus)
           + ["-each"] + limit + ["option.Hash=16", "option.Threads=1",
              "-rounds", str(len(openings)), "-games", "2", "-repeat",
              "-openings", f"file={book}", "format=epd", "order=sequential",
              "-concurrency", str(args.concurrency), "-recover"])
    out = subprocess.run(cmd, capture_output=True, text=True)
    return result_of(out.stdout + out.stderr)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--engine", required=True, help="a tuning build of tabula")
    ap.add_argument("--fastchess", default=os.path.join(
        os.path.dirname(__file__), "..", "..", "shared", "tools", "bin", "fastchess"))
    ap.add_argument("--iterations", type=int, default=500)
    ap.add_argument("--pairs", type=int, default=4, help="game pairs per iteration")
    ap.add_argument("--nodes", type=int, default=0, help="nodes per move (else --tc)")
    ap.add_argument("--tc", default="2+0.02")
    ap.add_argument("--openings", required=True, help="EPD, one opening a line")
    ap.add_argument("--concurrency", type=int, default=1)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--state", required=True, help="JSON state, saved every iteration")
    ap.add_argument("--only", default="", help="comma-separated names: tune just these")
    ap.add_argument("--r-end", type=float, default=0.0,
                    help="every parameter's r_end (default: the engine's, OpenBench's 0.002; "
                         "a short run needs a larger one to move at all)")
    args = ap.parse_args()

    params = params_of(args.engine)
    if args.only:
        keep = set(args.only.split(","))
        params = [p for p in params if p["name"] in keep]
    if args.r_end > 0:
        for p in params:
            p["r_end"] = args.r_end
    openings = [l.strip() for l in open(args.openings) if l.strip()]
    state = {"iteration": 0, "theta": {p["name"]: p["value"] for p in params},
             "history": [], "games": 0}
    if os.path.exists(args.state):
        with open(args.state) as f:
            state = json.load(f)
    n = args.iterations
    big_a = n / 10
    rng = random.Random(args.seed)
    for _ in range(state["iteration"]):  # the same signs as an uninterrupted run
        for _ in params:
            rng.random()
    with tempfile.TemporaryDirectory() as workdir:
        for k in range(state["iteration"], n):
            plus, minus, signs, step = {}, {}, {}, {}
            for p in params:
                c = p["c_end"] * n ** GAMMA
                a = p["r_end"] * p["c_end"] ** 2 * (big_a + n) ** ALPHA
                c_k = c / (k + 1) ** GAMMA
                a_k = a / (big_a + k + 1) ** ALPHA
                s = 1 if rng.random() < 0.5 else -1
                t = state["theta"][p["name"]]
                plus[p["name"]] = min(p["max"], max(p["min"], t + c_k * s))
                minus[p["name"]] = min(p["max"], max(p["min"], t - c_k * s))
                signs[p["name"]], step[p["name"]] = s, (a_k / c_k ** 2, c_k)
            first = (k * args.pairs) % len(openings)
            chosen = [openings[(first + i) % len(openings)] for i in range(args.pairs)]
            w, l, d = play(args, plus, minus, chosen, workdir)
            for p in params:
                r_k, c_k = step[p["name"]]
                t = state["theta"][p["name"]] + r_k * c_k * (w - l) * signs[p["name"]]
                state["theta"][p["name"]] = min(p["max"], max(p["min"], t))
            state["iteration"] = k + 1
            state["games"] += w + l + d
            state["history"].append([w, l, d])
            tmp = args.state + ".tmp"
            with open(tmp, "w") as f:
                json.dump(state, f, indent=1)
            os.replace(tmp, args.state)
            shown = " ".join(f"{p['name']}={state['theta'][p['name']]:.2f}" for p in params)
            print(f"iter {k + 1}/{n} +{w} -{l} ={d} games {state['games']} | {shown}",
                  flush=True)


if __name__ == "__main__":
    main()
