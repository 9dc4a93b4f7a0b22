"""Drives tabula through python-chess's UCI client: self-play games with clocks, analysis with
MultiPV, pondering. python-chess validates the handshake and every move; this script also
replays every PV. Exits non-zero on any problem."""
import sys
import chess
import chess.engine

exe = sys.argv[1]

def check_pv(board, info):
    b = board.copy()
    for m in info.get("pv", []):
        assert m in b.legal_moves, f"illegal pv move {m} in {info}"
        b.push(m)

with chess.engine.SimpleEngine.popen_uci([exe]) as engine:
    assert engine.id["name"].startswith("tabula"), engine.id
    for name in ["Hash", "Threads", "MultiPV", "Ponder", "Move Overhead", "Clear Hash",
                 "UCI_Chess960", "UCI_ShowWDL"]:
        assert name in engine.options, name
    engine.configure({"Hash": 32, "Move Overhead": 20})

    # Two short self-play games with clocks, both colours handled by one process.
    for game in range(2):
        board = chess.Board()
        clock = [1.0, 1.0]
        while not board.is_game_over(claim_draw=True) and board.ply() < 100:
            side = 0 if board.turn == chess.WHITE else 1
            limit = chess.engine.Limit(white_clock=clock[0], black_clock=clock[1],
                                       white_inc=0.02, black_inc=0.02)
            res = engine.play(board, limit, info=chess.engine.INFO_ALL, game=game)
            assert res.move in board.legal_moves, res
            check_pv(board, res.info)
            board.push(res.move)

    # Analysis with MultiPV: three distinct, legal lines.
    board = chess.Board("r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3")
    infos = engine.analyse(board, chess.engine.Limit(depth=8), multipv=3)
    assert len(infos) == 3, infos
    assert len({i["pv"][0] for i in infos}) == 3
    for i in infos:
        check_pv(board, i)

    # A mate is reported as a mate.
    board = chess.Board("6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1")
    info = engine.analyse(board, chess.engine.Limit(depth=5))
    assert info["score"].white() == chess.engine.Mate(1), info["score"]

    # Pondering: python-chess sends go ponder, then stop when the next play comes.
    board = chess.Board()
    res = engine.play(board, chess.engine.Limit(time=0.1), ponder=True)
    board.push(res.move)
    if res.ponder:
        board.push(res.ponder)
    res = engine.play(board, chess.engine.Limit(time=0.1), ponder=True)
    assert res.move in board.legal_moves

print("python-chess smoke: ok")
