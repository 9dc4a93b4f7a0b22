"""tabula plays one game through lichess-bot's own test harness (github
lichess-bot-devs/lichess-bot, `test_bot/`; a checkout outside this repository, its code not
vendored here), driven by `cargo test --test clients lichess_bot` (tests/clients/lichess_bot.rs).

Run by pytest from the root of the lichess-bot checkout (its `lib` and `test_bot` packages are
imported from there, and `config.yml.default` read), with this repository's config:

    cd LICHESS_BOT && TABULA_ENGINE=/path/to/tabula \
        TABULA_LICHESS_CONFIG=/path/to/tabula/docs/lichess-bot/config.yml \
        python3 -m pytest -p no:cacheprovider /path/to/tabula/tests/python/lichess_bot_game.py

What is lichess-bot's and what is ours: the mocked lichess.org (`test_bot/lichess.py`: the
event stream, the game stream, the clocks), the bot itself (`lib/lichess_bot.py` started by
`test_bot.test_bot.run_bot`, which plays one game and writes its PGN) and the config checks
(`lib/config.py`'s `load_config`) are lichess-bot's, unchanged. The opponent is ours: since
December 2025 (lichess-bot commit 206e858) the harness's White plays a fixed script (the
Scholar's Mate, for its own scripted test engines), which a real engine never follows, so here
White plays the first legal move, as the harness's `TrivialEngine` opponent did before that
commit (older checkouts work too). The bot, tabula, plays Black and must win, as in
lichess-bot's own tests. The game, as the mocked server saw it, is written to a file of its
own (`TABULA_GAME_RECORD`: the outcome on the first line, the moves on the second), which
tests/clients/lichess_bot.rs reads: lichess-bot's log shares stdout, so a printed line can be cut into
by its lines. It is printed too, for a person reading the output.

Environment:
    TABULA_ENGINE          the tabula binary (required)
    TABULA_LICHESS_CONFIG  the config to play with (default: docs/lichess-bot/config.yml
                           beside this file's repository); its engine dir and name, token and
                           pgn_directory are replaced for the test, everything else is kept
    TABULA_PGN_DIR         where lichess-bot writes the game's PGN (default: a temp dir)
    TABULA_SESSION_LOG     if set, the engine runs under scripts/record_session.py, which logs
                           every line between lichess-bot and tabula to this file
    TABULA_GAME_RECORD     if set, the game is written here: the outcome, then the moves
    TABULA_THREADS, TABULA_HASH   override the config's Threads and Hash (a loaded test machine)
"""

import inspect
import os
import sys
import tempfile
import time

import chess
import yaml

if "pytest" not in sys.modules:
    sys.exit(f"{os.path.basename(__file__)} is run by pytest, from a lichess-bot checkout")

import test_bot.test_bot as harness  # lichess-bot's harness (cwd: the lichess-bot checkout)
from lib import config as lichess_bot_config
from lib.timer import Timer, seconds

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def first_legal_move_simulator(move_queue, board_queue, clock_queue, results):
    """lichess-bot's `lichess_org_simulator` (test_bot/test_bot.py), with White playing the
    first legal move instead of its scripted moves; the queues and clocks are handled as there."""
    start_time = seconds(10)
    increment = seconds(0.1)
    board = chess.Board()
    wtime = start_time
    btime = start_time
    while not board.is_game_over():
        move_timer = Timer()
        if board.turn == chess.WHITE:
            board.push(next(iter(board.legal_moves)))
            board_queue.put(board)
            clock_queue.put((wtime, btime, increment))
            if len(board.move_stack) > 1:
                wtime -= move_timer.time_since_reset()
                wtime += increment
        else:
            while (bot_move := move_queue.get()) is None:
                board_queue.put(board)
                clock_queue.put((wtime, btime, increment))
                move_queue.task_done()
            board.push(bot_move)
            move_queue.task_done()
            if len(board.move_stack) > 2:
                btime -= move_timer.time_since_reset()
                btime += increment
    board_queue.put(board)
    clock_queue.put((wtime, btime, increment))
    outcome = board.outcome()
    moves = ' '.join(m.uci() for m in board.move_stack)
    record = os.environ.get("TABULA_GAME_RECORD")
    if record:
        with open(record, "w") as f:
            f.write(f"{outcome}\n{moves}\n")
    print(f"mocked lichess.org: game over, {outcome}, {len(board.move_stack)} plies: {moves}")
    results.put(outcome is not None and outcome.winner == chess.BLACK)


def test_tabula_plays_a_game(monkeypatch):
    engine = os.path.abspath(os.environ["TABULA_ENGINE"])
    config_path = os.environ.get("TABULA_LICHESS_CONFIG",
                                 os.path.join(REPO, "docs", "lichess-bot", "config.yml"))
    with open(config_path) as f:
        raw = yaml.safe_load(f)

    with tempfile.TemporaryDirectory() as temp:
        raw["token"] = ""
        raw["engine"]["dir"] = os.path.dirname(engine)
        raw["engine"]["name"] = os.path.basename(engine)
        raw["pgn_directory"] = os.environ.get("TABULA_PGN_DIR") or os.path.join(temp, "games")
        options = raw["engine"].setdefault("uci_options", {}) or {}
        raw["engine"]["uci_options"] = options
        if os.environ.get("TABULA_THREADS"):
            options["Threads"] = int(os.environ["TABULA_THREADS"])
        if os.environ.get("TABULA_HASH"):
            options["Hash"] = int(os.environ["TABULA_HASH"])
        log = os.environ.get("TABULA_SESSION_LOG")
        if log:
            # The command lichess-bot runs: interpreter, its options, then the engine path.
            raw["engine"]["interpreter"] = sys.executable
            raw["engine"]["interpreter_options"] = [
                os.path.join(REPO, "scripts", "record_session.py"), os.path.abspath(log), "--"]

        # lichess-bot's own config checks (the engine file exists and is executable, the values are valid).
        checked = os.path.join(temp, "config.yml")
        with open(checked, "w") as f:
            yaml.safe_dump(raw, f)
        lichess_bot_config.load_config(checked)

        simulator = first_legal_move_simulator
        if "opponent_path" in inspect.signature(harness.lichess_org_simulator).parameters:
            # A harness older than lichess-bot 206e858: its simulator takes the opponent's
            # path first (None: its TrivialEngine, the same first legal move).
            def simulator(_opponent_path, *queues):
                first_legal_move_simulator(*queues)
        monkeypatch.setattr(harness, "lichess_org_simulator", simulator)
        win = harness.run_bot(raw, harness.logging_level)
        assert win, "tabula (Black) did not win against the first-legal-move opponent"
        # lichess-bot's tests also check the PGN it writes. In one-game mode the game's worker
        # process is ended as soon as it reports the game done, and the PGN is queued just
        # after that report: on a loaded machine it can be lost (lib/lichess_bot.py,
        # final_queue_entries), so a missing PGN is reported, not failed.
        time.sleep(0.1)
        pgn = os.path.join(raw["pgn_directory"], "bo vs b - zzzzzzzz.pgn")
        if os.path.isfile(pgn):
            print(f"lichess-bot's PGN of the game: {pgn}")
        else:
            print(f"no PGN at {pgn}: lichess-bot's PGN writer lost the race with its shutdown")
