//! The state of a browser session as the page reads it (`GET /api/state`): the board, the
//! legal moves with the cells that enter them, the last move and what it changed, the
//! result, the settings, the engine's thinking (with its MultiPV lines), the solver's values,
//! and the game's tree with the scores kept in it; and the small message of a small change
//! (`live`: the engine, the solver, the nodes whose score changed). Read under the session's
//! lock; writes nothing.

use super::board::{View, changed, grid_of_fen, human_text};
use super::engine::EngineChoice;
use super::state::{ExactState, GameState, Thinking};
use super::tree::Node;
use serde_json::{Value, json};
use tabula::game::GameResult;
use tabula::record::result_text;

fn player_index(p: tabula::game::Player) -> usize {
    p.index()
}

fn cells_json(cells: &[(u32, u32)]) -> Value {
    Value::Array(cells.iter().map(|&(r, c)| json!([r, c])).collect())
}

fn thinking_json(t: &Thinking) -> Value {
    json!({
        "side": t.side,
        "depth": t.depth,
        "seldepth": t.seldepth,
        "score": t.score,
        "nodes": t.nodes,
        "nps": t.nps,
        "time": t.time_ms,
        "pv": t.pv,
        "lines": t.lines.iter().map(|l| json!({
            "depth": l.depth, "score": l.score, "pv": l.pv,
        })).collect::<Vec<_>>(),
    })
}

/// The game's tree as the page lists and plots it: every node with its move in human
/// notation, its children (the first is the main continuation) and what is known of its
/// position (the engine's score and the solver's value, for player 1).
fn tree_json<G: View>(inner: &GameState<G>) -> Value {
    let tree = &inner.tree;
    let mut out = Vec::new();
    // Depth first from the start, each node's ply at hand.
    let mut stack = vec![(0usize, 0usize)];
    while let Some((i, ply)) = stack.pop() {
        let Some(n) = tree.node(i) else { continue };
        stack.extend(n.children.iter().rev().map(|&c| (c, ply + 1)));
        let mut v = known(i, n);
        if let Some(o) = v.as_object_mut() {
            o.insert("parent".into(), json!(n.parent));
            o.insert("children".into(), json!(n.children));
            o.insert("ply".into(), json!(ply));
            o.insert("text".into(), json!(n.text));
            if !n.comment.is_empty() {
                o.insert("comment".into(), json!(n.comment));
            }
            if !n.nags.is_empty() {
                o.insert("nags".into(), json!(n.nags));
            }
        }
        out.push(v);
    }
    Value::Array(out)
}

/// What is known of a node's position: its id, the engine's score, the solver's value, and
/// whether the review has been there.
fn known<M>(i: usize, n: &Node<M>) -> Value {
    json!({
        "id": i,
        "score": n.score.as_ref().map(|s| json!({
            "cp": s.cp, "mate": s.mate, "depth": s.depth, "text": s.text,
        })),
        "exact": n.exact.as_ref().map(|e| json!({ "value": e.value, "label": e.label })),
        "reviewed": n.reviewed,
    })
}

/// The player whose engine the panel shows: the one to move, else the one whose report is
/// on show, else the one that plays the other side.
fn shown_side<G: View>(inner: &GameState<G>) -> usize {
    let to_move = player_index(inner.line.pos.to_move());
    let reported = inner.thinking.as_ref().or(inner.last_thinking.as_ref());
    if inner.line.result().is_none() && !inner.settings.human[to_move] {
        to_move
    } else if let Some(t) = reported.filter(|t| t.side < 2) {
        t.side
    } else {
        1 - to_move
    }
}

fn engine_json<G: View>(inner: &GameState<G>, engines: &[EngineChoice]) -> Value {
    let engine = engines.get(inner.settings.engines[shown_side(inner)]);
    let reported = inner.thinking.as_ref().or(inner.last_thinking.as_ref());
    json!({
        "name": engine.map_or("", |e| e.spec.name.as_str()),
        "builtin": engine.is_some_and(|e| e.builtin),
        "thinking": inner.thinking.is_some(),
        "error": inner.engine_error,
        "paused": inner.paused,
        "info": reported.map(thinking_json),
        "note": reported.and_then(|t| t.note.clone()),
    })
}

fn exact_json<G: View>(inner: &GameState<G>) -> Value {
    json!({
        "state": match inner.exact_state {
            ExactState::Off => "off",
            ExactState::Running => "running",
            ExactState::Done => "done",
            ExactState::Stopped => "stopped",
        },
        "moves": inner.exact.iter().map(|v| json!({
            "uci": v.mv, "value": v.value, "label": v.label,
        })).collect::<Vec<_>>(),
    })
}

/// The message of a small change on top of the state of version `inner.major`: the engine,
/// the solver's values, and what is now known of the nodes in `inner.live_nodes`.
pub fn live<G: View>(inner: &GameState<G>, engines: &[EngineChoice]) -> Value {
    let nodes: Vec<Value> = inner
        .live_nodes
        .iter()
        .filter_map(|&i| inner.tree.node(i).map(|n| known(i, n)))
        .collect();
    json!({
        "version": inner.version,
        "major": inner.major,
        "engine": engine_json(inner, engines),
        "exact": exact_json(inner),
        "nodes": nodes,
    })
}

/// A result as the page takes it: the winner's index (null for a draw), the text (`1-0`) and
/// why.
fn result_json(r: GameResult, why: &str) -> Value {
    json!({
        "winner": match r {
            GameResult::P1Win => json!(0),
            GameResult::P2Win => json!(1),
            GameResult::Draw => Value::Null,
        },
        "text": result_text(Some(r)),
        "reason": why,
    })
}

/// The state the page draws: the board, the legal moves with their cells, the last move and
/// what it changed, the result, the engine and the solver.
pub fn snapshot<G: View>(id: &str, inner: &GameState<G>, engines: &[EngineChoice]) -> Value {
    let line = &inner.line;
    let pos = &line.pos;
    let result = line.result();
    let mut legal = Vec::new();
    if result.is_none() {
        pos.legal_moves(&mut legal);
    }
    let moves: Vec<Value> = legal
        .iter()
        .map(|&m| {
            let uci = pos.format_move(m);
            json!({
                "uci": uci,
                "text": human_text(pos, m),
                "cells": cells_json(&pos.move_cells(m)),
                "pass": uci == "0000",
            })
        })
        .collect();
    let last = line.moves.last().map(|&mv| {
        let mut before = line.start.clone();
        for &m in &line.moves[..line.moves.len() - 1] {
            before.play(m);
        }
        let placed = before.move_cells(mv);
        let grid = grid_of_fen(&before.fen());
        let other: Vec<(u32, u32)> = changed(&grid, &grid_of_fen(&pos.fen()))
            .into_iter()
            .filter(|c| !placed.contains(c))
            .collect();
        // What the cells held before the move (a captured piece, a flipped disc).
        let was: Vec<&str> = placed
            .iter()
            .chain(&other)
            .map(|&(r, c)| {
                grid.get(r as usize)
                    .and_then(|row| row.get(c as usize))
                    .map_or("", String::as_str)
            })
            .collect();
        json!({
            "uci": before.format_move(mv),
            "text": human_text(&before, mv),
            "by": player_index(before.to_move()),
            "cells": cells_json(&placed),
            "changed": cells_json(&other),
            "was": was,
        })
    });
    let mut history = Vec::new();
    let mut p = line.start.clone();
    for &m in &line.moves {
        history.push(human_text(&p, m));
        p.play(m);
    }
    let result = result.map(|(r, why)| result_json(r, &why));
    // A loaded record's result, at its main line's last position (where the rules see none).
    let recorded = inner
        .loaded
        .as_ref()
        .filter(|l| result.is_none() && l.end == inner.tree.cursor)
        .and_then(|l| l.result)
        .map(|r| result_json(r, "as recorded"));
    let to_move = player_index(pos.to_move());
    let cells = G::cells(line);
    let shown = shown_side(inner);
    let name = |p: usize| {
        engines
            .get(inner.settings.engines[p])
            .map_or("", |e| e.spec.name.as_str())
    };
    json!({
        "id": id,
        "version": inner.version,
        "major": inner.major,
        "game": G::NAME,
        "sides": G::SIDES,
        "input": G::INPUT,
        "rows": cells.len(),
        "cols": cells.first().map_or(0, |r| r.len()),
        "cells": cells,
        "fen": pos.fen(),
        "start_fen": line.start.fen(),
        "to_move": to_move,
        "moves": moves,
        "history": history,
        "tree": tree_json(inner),
        "cursor": inner.tree.cursor,
        "line": inner.tree.line_through(inner.tree.cursor),
        "can_move": result.is_none() && inner.matchplay.is_none() && (
            inner.settings.human[to_move]
                || inner.settings.analyse
                || !inner.tree.is_leaf(inner.tree.cursor)),
        "review": {
            "on": inner.review,
            "ms": inner.review_ms,
        },
        "last": last,
        "result": result,
        "recorded": recorded,
        "settings": {
            "human": inner.settings.human,
            "movetime": inner.settings.movetime_ms,
            "engine": inner.settings.engines[shown],
            "engines": inner.settings.engines,
            "level": inner.settings.level,
            "exact": inner.settings.exact,
            "analyse": inner.settings.analyse,
            "multipv": inner.settings.multipv,
        },
        "players": [name(0), name(1)],
        "match": inner.matchplay.as_ref().map(|m| {
            let a = engines.get(m.pair[0]).map_or("", |e| e.spec.name.as_str());
            let b = engines.get(m.pair[1]).map_or("", |e| e.spec.name.as_str());
            m.json([a, b])
        }),
        "engine": engine_json(inner, engines),
        "exact": exact_json(inner),
    })
}
