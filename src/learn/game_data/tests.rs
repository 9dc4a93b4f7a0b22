//! Game files: written, read back, resumed after a cut (side lines included) and merged;
//! an illegal move refused.

use super::*;
use crate::game::{Notation, Rules};
use crate::games::chess::Chess;

fn a_game() -> GameRecord<Chess> {
    let start = Chess::default();
    let mut pos = start.clone();
    let mut plies = Vec::new();
    for (i, m) in ["e2e4", "e7e5", "g1f3", "b8c6", "f1b5", "a7a6", "e1g1"]
        .iter()
        .enumerate()
    {
        let mv = pos.parse_move(m).unwrap();
        plies.push(Ply {
            mv,
            score: 10 * i as i16 - 20,
            flags: if i % 2 == 0 { FLAG_KEEP } else { 0 },
        });
        pos.play(mv);
    }
    GameRecord {
        start,
        start_ply: 0,
        label_p1: 1,
        plies,
    }
}

#[test]
fn games_round_trip_resume_and_merge() {
    let dir = std::env::temp_dir().join(format!("tabula-games-{}", std::process::id()));
    let _ = std::fs::create_dir_all(&dir);
    let (a, b, all) = (dir.join("a.bin"), dir.join("b.bin"), dir.join("all.bin"));
    for p in [&a, &b, &all] {
        let _ = std::fs::remove_file(p);
    }
    let start = Chess::default();
    let header = Header {
        game: "chess".into(),
        dims: start.dims(),
        packed: Chess::PACKED,
    };
    let rec = a_game();
    let (mut w, next) = GameWriter::open(&a, &header).unwrap();
    assert_eq!(next, 0);
    let mut buf = Vec::new();
    for i in 0..3 {
        buf.extend_from_slice(&encode(&rec, i).unwrap());
    }
    buf.extend_from_slice(&encode(&rec, 3).unwrap()[..9]); // torn
    w.append(&buf).unwrap();
    drop(w);
    let (_, next) = GameWriter::open(&a, &header).unwrap();
    assert_eq!(next, 3, "the torn game is cut, the whole ones kept");
    let d = read(&a, &start).unwrap();
    assert_eq!(d.len(), 3 * 4, "four kept positions a game");
    // The kept positions are those before moves 1, 3, 5 and 7 (White to move, and White
    // won).
    let r = d.record(1);
    let pos = start.unpack(r.position).unwrap();
    assert_eq!(
        pos.fen(),
        "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq e6 0 2"
    );
    assert_eq!((r.score, r.label, r.game, r.ply), (0, 1, 0, 2));
    let r = d.record(3);
    assert_eq!((r.score, r.label, r.ply), (40, 1, 6));
    // A game: 14 bytes and the packed start, then 2 bytes a move and 2 more a record;
    // 8 more for the marker and the checksum.
    let size = std::fs::metadata(&a).unwrap().len() as usize - HEADER;
    assert_eq!(size, 3 * (12 + 10 + Chess::PACKED + 7 * 2 + 4 * 2));

    std::fs::copy(&a, &b).unwrap();
    assert_eq!(merge(&all, &[a.clone(), b.clone()]).unwrap().added, 6);
    let d = read(&all, &start).unwrap();
    assert_eq!(d.len(), 6 * 4);
    let games: Vec<u32> = (0..d.len()).map(|i| d.record(i).game).collect();
    assert_eq!(games[games.len() - 1], 5, "merged games numbered on");
    // A position file cannot be merged or appended to as games.
    let pos_file = dir.join("p.bin");
    let _ = std::fs::remove_file(&pos_file);
    drop(format::DataWriter::open(&pos_file, &header).unwrap());
    assert!(merge(&all, std::slice::from_ref(&pos_file)).is_err());
    assert!(GameWriter::open(&pos_file, &header).is_err());
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_game_cut_within_its_side_lines_is_made_again() {
    let dir = std::env::temp_dir().join(format!("tabula-side-lines-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let a = dir.join("a.bin");
    let header = Header {
        game: "chess".into(),
        dims: (8, 8),
        packed: Chess::PACKED,
    };
    let rec = a_game();
    // Games 0 and 1, game 1 with a side line; then a block of game 1 or 2, torn after
    // `keep` bytes (13: its index readable; 9: not).
    // (torn block's game, its bytes kept, the next game, the kept positions: 4 a block)
    for (torn_game, keep, next, kept) in [(1, 13, 1, 4), (2, 13, 2, 12), (2, 9, 1, 4)] {
        let _ = std::fs::remove_file(&a);
        let (mut w, _) = GameWriter::open(&a, &header).unwrap();
        let mut buf = Vec::new();
        for i in [0, 1, 1] {
            buf.extend_from_slice(&encode(&rec, i).unwrap());
        }
        buf.extend_from_slice(&encode(&rec, torn_game).unwrap()[..keep]);
        w.append(&buf).unwrap();
        drop(w);
        let (_, got) = GameWriter::open(&a, &header).unwrap();
        assert_eq!(got, next, "torn block of game {torn_game}, {keep} bytes");
        assert_eq!(read(&a, &Chess::default()).unwrap().len(), kept);
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn an_illegal_move_is_refused() {
    let mut rec = a_game();
    rec.plies.swap(0, 1);
    assert!(encode(&rec, 0).is_err());
}
