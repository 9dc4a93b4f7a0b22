#!/usr/bin/env python3
"""Records the real traffic between a client (GUI, runner) and an engine, as a session file
that `cargo test` replays (protocol/sessions/, format in tests/cli/sessions.rs).

Register this script as the engine in the real client, with the real engine after `--`:

    scripts/record_session.py /tmp/raw.log -- target/release/tabula --game othello

It passes every line through unchanged and appends `> sent` / `< received` lines to the log
(one log per engine process: give each engine its own path). Then turn the log into a session:

    scripts/record_session.py --convert /tmp/raw.log --args "--game othello" \
        --title "a cutegames game" > protocol/sessions/cutegames-othello.txt

The conversion keeps every line the client sent and every answer whose text the rules fix
(`ugiok`, `readyok`, `response ...`, `pong`), writes `bestmove %` for a bestmove of exactly one
move (what cutegames requires: the search may pick another move on replay, but never another
shape) and drops `info`, `id` and `option` lines, which the replay skips anyway.
"""

import os
import subprocess
import sys
import threading


def proxy(log_path, cmd):
    log = open(log_path, "a", buffering=1)
    lock = threading.Lock()

    def note(prefix, line):
        with lock:
            log.write(f"{prefix} {line}\n")

    child = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1)

    def pump_out():
        for line in child.stdout:
            line = line.rstrip("\n")
            note("<", line)
            sys.stdout.write(line + "\n")
            sys.stdout.flush()
        # The engine has exited (after `quit`): so does the proxy, as the engine would, even
        # while the client keeps its end of the pipe open (python-chess, as lichess-bot uses
        # it, waits for the process to exit before it closes stdin).
        code = child.wait()
        with lock:
            log.flush()
        os._exit(code)

    t = threading.Thread(target=pump_out, daemon=True)
    t.start()
    try:
        for line in sys.stdin:
            line = line.rstrip("\n")
            note(">", line)
            child.stdin.write(line + "\n")
            child.stdin.flush()
    except BrokenPipeError:
        pass
    try:
        child.stdin.close()
    except BrokenPipeError:
        pass
    child.wait()
    t.join(timeout=5)
    return child.returncode


def convert(log_path, args, title):
    out = [f"# {title}" if title else "# recorded with scripts/record_session.py"]
    if args:
        out.append(f"# args: {args}")
    for raw in open(log_path):
        raw = raw.rstrip("\n")
        if raw.startswith("> "):
            out.append(raw)
            continue
        if not raw.startswith("< "):
            continue
        line = raw[2:]
        words = line.split()
        if not words or words[0] in ("info", "id", "option"):
            continue
        if words[0] == "bestmove":
            # UCI clients accept a ponder move; the shape is what matters.
            out.append("< bestmove %" if len(words) == 2 else "< bestmove *")
        else:
            out.append(raw)
    print("\n".join(out))


def main():
    argv = sys.argv[1:]
    if argv and argv[0] == "--convert":
        log = argv[1]
        args = title = ""
        rest = argv[2:]
        while rest:
            if rest[0] == "--args":
                args, rest = rest[1], rest[2:]
            elif rest[0] == "--title":
                title, rest = rest[1], rest[2:]
            else:
                sys.exit(f"unknown argument {rest[0]}")
        convert(log, args, title)
        return 0
    if len(argv) < 3 or argv[1] != "--":
        sys.exit(__doc__)
    return proxy(argv[0], argv[2:])


if __name__ == "__main__":
    sys.exit(main())
