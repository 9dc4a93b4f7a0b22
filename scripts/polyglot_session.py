#!/usr/bin/env python3
"""Turns a PolyGlot log (its `LogFile`, written while XBoard drove tabula through PolyGlot) into
a session file: the UCI traffic between PolyGlot and the engine only, without time stamps.

    scripts/polyglot_session.py LOG [--header FILE] > protocol/sessions/gui/NAME.txt
    scripts/polyglot_session.py LOG --replay [--header FILE] [--replace OLD NEW] [--tbhits] \
        > protocol/sessions/NAME.txt

Without `--replay`: every line, both ways, as recorded (`> ` PolyGlot to tabula, `< ` tabula to
PolyGlot): the transcript to read. With `--replay`: a session that `cargo test` replays
(tests/cli/sessions.rs): every line PolyGlot sent (`--replace` rewrites a path in them, e.g. the
tables' directory to one relative to the repository), the answers whose text the rules fix
(`uciok`, `readyok`), `bestmove *` for each bestmove (the search may choose another move on
replay, never another shape), and with `--tbhits` an `info * tbhits *` before each bestmove
(the tables must answer). The `--header` file's lines come first, as `# ` comments.
"""

import sys


def traffic(path):
    """(direction, line) for each line between PolyGlot and the engine."""
    for raw in open(path, encoding="utf-8", errors="replace"):
        raw = raw.rstrip("\n")
        parts = raw.split(" ", 1)
        if len(parts) != 2:
            continue
        rest = parts[1]
        for tag, way in (("Adapter->Engine: ", ">"), ("Engine->Adapter: ", "<")):
            if rest.startswith(tag):
                line = rest[len(tag):]
                if line == "EOF":  # PolyGlot's note of a closed pipe (either way), not a line
                    continue
                yield way, line


def main():
    argv = sys.argv[1:]
    if not argv or argv[0].startswith("-"):
        sys.exit(__doc__)
    log, rest = argv[0], argv[1:]
    replay = tbhits = False
    header = None
    replace = []
    while rest:
        if rest[0] == "--replay":
            replay, rest = True, rest[1:]
        elif rest[0] == "--tbhits":
            tbhits, rest = True, rest[1:]
        elif rest[0] == "--header" and len(rest) > 1:
            header, rest = rest[1], rest[2:]
        elif rest[0] == "--replace" and len(rest) > 2:
            replace.append((rest[1], rest[2]))
            rest = rest[3:]
        else:
            sys.exit(f"unknown argument {rest[0]}\n{__doc__}")
    out = []
    if header:
        out += [("# " + l.rstrip("\n")).rstrip() for l in open(header, encoding="utf-8")]
    if replay:
        out.append("# args:")
    for way, line in traffic(log):
        if not replay:
            out.append(f"{way} {line}")
            continue
        if way == ">":
            for old, new in replace:
                line = line.replace(old, new)
            out.append(f"> {line}")
        elif line in ("uciok", "readyok"):
            out.append(f"< {line}")
        elif line.startswith("bestmove"):
            if tbhits:
                out.append("< info * tbhits *")
            out.append("< bestmove *")
    print("\n".join(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
