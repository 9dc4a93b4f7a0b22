//! Games played elsewhere as training data: the PGNs a DATAGEN workload of OpenBench collects
//! (fastchess's `-pgnout ... nodes=true`), or any runner's, turned into game blocks
//! (`games`). Each move's comment carries the mover's score, `{+0.31/9 0.105s, n=14767}` in
//! pawns (`+M5`/`-M3` for mates; `{book}` for book moves): the position before a move becomes a
//! training record when its comment has a score that is not a mate and `Learn::keep` accepts
//! the move (chess: not in check, not a capture or promotion). Labels come from the `Result`
//! tag, or from the final position where the game ended on the board (Othello's margin).
//!
//! A game that cannot be read (an illegal move, no result) is skipped and counted, never
//! written in part; the import goes on with the next.

use super::Learn;
use super::game_data::{FLAG_KEEP, GameRecord, Ply, encode};
use crate::game::{GameResult, Player};
use crate::record::Record;

/// What an import did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Imported {
    pub games: u64,
    pub positions: u64,
    /// Games left out, with the first few reasons.
    pub skipped: u64,
    pub reasons: Vec<String>,
}

/// The mover's score in search units (centipawns: pawns x 100) from a runner's comment, if
/// it has one that is not a mate.
pub fn comment_score(comment: &str) -> Option<i32> {
    let first = comment.split([' ', ',', '/']).next()?;
    if first.contains('M') || first.contains('#') {
        return None;
    }
    let pawns: f64 = first.parse().ok()?;
    if !pawns.is_finite() || pawns.abs() > 300.0 {
        return None;
    }
    Some((pawns * 100.0).round() as i32)
}

/// One game of a record as a `GameRecord`, or why it cannot be one.
fn game<G: Learn>(start: &G, rec: &Record) -> Result<(GameRecord<G>, u64), String> {
    let result = match rec.tag("Result") {
        Some("1-0") => GameResult::P1Win,
        Some("0-1") => GameResult::P2Win,
        Some("1/2-1/2") => GameResult::Draw,
        other => return Err(format!("no result ({})", other.unwrap_or("no Result tag"))),
    };
    let first = match rec.tag("FEN") {
        Some(fen) => start.parse_fen(fen)?,
        None => start.clone(),
    };
    let mut pos = first.clone();
    let mut plies = Vec::with_capacity(rec.moves.len());
    let mut kept = 0;
    for (i, text) in rec.moves.iter().enumerate() {
        let mv = pos
            .parse_human(text)
            .map_err(|e| format!("move {} '{text}': {e}", i + 1))?;
        let score = rec
            .comments
            .get(i)
            .and_then(|c| comment_score(c))
            .filter(|&s| pos.keep(mv, s));
        kept += score.is_some() as u64;
        plies.push(Ply {
            mv,
            score: score.unwrap_or(0).clamp(-32000, 32000) as i16,
            flags: if score.is_some() { FLAG_KEEP } else { 0 },
        });
        pos.play(mv);
    }
    // The label, as datagen gives it: the final position's own where the game ended there
    // with the recorded result (a disc margin where the game has one), else the result.
    let label_p1 = match pos.outcome() {
        Some(o) if GameResult::from_outcome(o, pos.to_move()) == result => {
            let l = pos.end_label(o);
            if pos.to_move() == Player::P1 { l } else { -l }
        }
        _ => match result {
            GameResult::P1Win => 1,
            GameResult::P2Win => -1,
            GameResult::Draw => 0,
        },
    };
    Ok((
        GameRecord {
            start: first,
            start_ply: 0,
            label_p1: label_p1.clamp(-32000, 32000) as i16,
            plies,
        },
        kept,
    ))
}

/// The games of a PGN text as blocks numbered from `first_index`, appended to `out`.
pub fn import<G: Learn>(
    start: &G,
    text: &str,
    first_index: u32,
    out: &mut Vec<u8>,
) -> Result<Imported, String> {
    let records = Record::parse_all(text)?;
    let mut done = Imported::default();
    for (n, rec) in records.iter().enumerate() {
        match game(start, rec)
            .and_then(|(g, kept)| encode(&g, first_index + done.games as u32).map(|b| (b, kept)))
        {
            Ok((block, kept)) => {
                out.extend_from_slice(&block);
                done.games += 1;
                done.positions += kept;
            }
            Err(e) => {
                done.skipped += 1;
                if done.reasons.len() < 5 {
                    done.reasons.push(format!("game {}: {e}", n + 1));
                }
            }
        }
    }
    Ok(done)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::Notation;
    use crate::games::chess::Chess;
    use crate::learn::format::{HEADER, Header};
    use crate::learn::game_data;

    #[test]
    fn runner_comments_give_scores() {
        assert_eq!(comment_score("+0.10/10 0.068s, n=56547, sd=19"), Some(10));
        assert_eq!(comment_score("-1.25/12 0.1s"), Some(-125));
        assert_eq!(comment_score("0.00/1 0s"), Some(0));
        assert_eq!(comment_score("+M5/20 0.1s"), None);
        assert_eq!(comment_score("-M3/9"), None);
        assert_eq!(comment_score("book"), None);
        assert_eq!(comment_score(""), None);
    }

    #[test]
    fn a_fastchess_game_becomes_records() {
        let pgn = r#"[Event "Fastchess Tournament"]
[Result "0-1"]
[SetUp "1"]
[FEN "rnbqkbnr/ppp2ppp/4p3/3p4/2PP4/8/PP2PPPP/RNBQKBNR w KQkq - 0 1"]

1. cxd5 {+0.10/10 0.068s, n=56547, sd=19} exd5 {+0.19/10 0.031s, n=28269, sd=18}
2. e3 {-0.03/10 0.032s, n=27888, sd=15} Nf6 {book} 3. Nf3
{+0.11/10 0.029s} Bd6 {+M3/11 0.03s} 0-1

[Event "broken"]
[Result "1-0"]

1. e4 e5 2. Ke3 1-0

[Event "unfinished"]
[Result "*"]

1. d4 *
"#;
        let start = Chess::default();
        let mut blocks = Vec::new();
        let done = import(&start, pgn, 7, &mut blocks).unwrap();
        assert_eq!((done.games, done.skipped), (1, 2), "{done:?}");
        // cxd5 and exd5 capture, Nf6 is from the book and Bd6 has a mate score: e3 and Nf3
        // remain.
        assert_eq!(done.positions, 2);
        let dir = std::env::temp_dir().join(format!("tabula-pgn-{}", std::process::id()));
        let _ = std::fs::create_dir_all(&dir);
        let path = dir.join("g.bin");
        let header = Header {
            game: "chess".into(),
            dims: (8, 8),
            packed: Chess::PACKED,
        };
        let mut file =
            game_data::header_bytes(&header, crate::learn::game_blocks::Version::V2).to_vec();
        file.extend_from_slice(&blocks);
        std::fs::write(&path, &file).unwrap();
        let d = game_data::read(&path, &start).unwrap();
        assert_eq!(d.len(), 2);
        let fens: Vec<String> = (0..2)
            .map(|i| start.unpack(d.record(i).position).unwrap().fen())
            .collect();
        assert_eq!(
            fens[0],
            "rnbqkbnr/ppp2ppp/8/3p4/3P4/8/PP2PPPP/RNBQKBNR w KQkq - 0 2"
        );
        let r: Vec<(i16, i16, u32)> = (0..2)
            .map(|i| (d.record(i).score, d.record(i).label, d.record(i).game))
            .collect();
        // Black won: +1 for Black to move, -1 for White.
        assert_eq!(r, vec![(-3, -1, 7), (11, -1, 7)]);
        // 14 bytes, the packed start, 2 bytes a move and 2 more a record.
        assert_eq!(file.len() - HEADER, 12 + 10 + Chess::PACKED + 6 * 2 + 2 * 2);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
