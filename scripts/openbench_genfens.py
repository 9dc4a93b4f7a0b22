#!/usr/bin/env python3
"""Runs OpenBench's own genfens client code (Client/genfens.py of a checkout of
github.com/AndyGrant/OpenBench, not vendored here) against a tabula binary, exactly as a
DATAGEN worker does: one engine process per thread, `./engine "genfens N seed S book B extra"
"quit"`, every `info string genfens ` line turned into an EPD line of the opening book.

usage: openbench_genfens.py OPENBENCH_DIR ENGINE OUT.epd [--n N] [--threads T]
                            [--book None|FILE] [--extra TEXT] [--seed S]

Exits non-zero (OpenBench's OpenBenchFailedGenfensException) if the engine stalls or gives
fewer openings than asked; otherwise OUT.epd holds N x T lines.
"""
import argparse
import os
import shutil
import sys
import tempfile


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("openbench")
    ap.add_argument("engine")
    ap.add_argument("out")
    ap.add_argument("--n", type=int, default=16)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--book", default="None")
    ap.add_argument("--extra", default="")
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()

    sys.path.insert(0, os.path.join(os.path.abspath(a.openbench), "Client"))
    import genfens  # OpenBench's module, from the checkout given

    work = tempfile.mkdtemp(prefix="openbench-genfens-")
    try:
        # The worker runs the engine as ./<name> from its working directory, books under Books/.
        shutil.copy(a.engine, os.path.join(work, "tabula-ob"))
        if a.book != "None":
            os.makedirs(os.path.join(work, "Books"), exist_ok=True)
            shutil.copy(a.book, os.path.join(work, "Books", os.path.basename(a.book)))
            book = os.path.join("Books", os.path.basename(a.book))
        else:
            book = "None"
        out_path = os.path.abspath(a.out)
        os.chdir(work)
        with open(out_path, "w") as out:
            genfens.create_genfens_opening_book({
                "N": a.n,
                "threads": a.threads,
                "seeds": [a.seed + i for i in range(a.threads)],
                "book": book,
                "extra": a.extra,
                "engine": "tabula-ob",
                "output": out,
            })
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
