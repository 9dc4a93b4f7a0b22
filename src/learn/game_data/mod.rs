//! The compact, game-based data format (`TABULAG1`): whole games, a few bytes a position,
//! that `datagen` writes, `data --pgn` makes from other machines' PGNs, `data --merge` joins
//! and `read` turns back into training records (`format::Record`) by replaying the moves.
//!
//! Header: as `format::Header` (32 bytes) with the magic `TABULAG2` (`TABULAG1`: the version
//! before checksums, still read and appended to in its own version). Then one block a game,
//! framed as `game_blocks` says (in `TABULAG2` a marker before and a CRC-32 after); inside,
//! all little-endian:
//!   u32 the body's length after this field; u32 the game's index; i16 the label from the
//!   first player's side (the result +1/0/-1, or Othello's final disc margin); u16 the ply of
//!   the start position within its game; u16 the number of moves n; the packed start
//!   position (`Learn::pack`, P bytes); then n moves, each: u8 flags (bit 0 the score is the
//!   exact solver's, bit 1 the position before the move is a training record), the move's
//!   rank among the legal moves sorted by their protocol notation (u8, or 255 then u16), and
//!   the search score of the position before the move (i16, from its side to move) where bit
//!   1 is set.
//!
//! A chess position costs 2 bytes (kept: 4) against 42 in `TABULAD1`. Ranks by notation do not
//! depend on the move generator's order, so a file reads the same in later versions.
//!
//! Invariant: a file is a header and whole blocks, indices increasing (a game's side lines,
//! `datagen --branches`, are blocks of its own index after it); `GameWriter::open` cuts a
//! torn last block (an interrupted write), and the blocks of its game before it, and resumes
//! at the first game it cut.
//! Readers (`read`, `merge`) skip a damaged block and count it (`format::Damage`), never
//! silently.

use super::Learn;
use super::compressed;
use super::format::{self, Damage, Data, FLAG_EXACT, HEADER, Header, Record};
use super::game_blocks::{self, Version};
use crate::game::Player;
use std::fs::File;
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::Path;

/// The magic tabula writes (`game_blocks::MAGIC_V1` is read too).
pub const MAGIC: &[u8; 8] = game_blocks::MAGIC_V2;
/// Ply flag: the position before this move is a training record.
pub const FLAG_KEEP: u8 = 2;
/// The `TABULAG2` marker's bytes before a block's view.
const MARK_LEN: usize = game_blocks::MARK.len();
/// Bytes of a block before the packed start position.
const BLOCK_HEAD: usize = 14;

/// One move of a recorded game and what is known of the position before it.
#[derive(Clone, Copy, Debug)]
pub struct Ply<M> {
    pub mv: M,
    /// Search score from the side to move (meaningful where `flags` has `FLAG_KEEP`).
    pub score: i16,
    pub flags: u8,
}

/// A recorded game: where it starts and every move from there.
#[derive(Clone, Debug)]
pub struct GameRecord<G: Learn> {
    pub start: G,
    pub start_ply: u16,
    /// The label from the first player's side.
    pub label_p1: i16,
    pub plies: Vec<Ply<G::Move>>,
}

/// The header of a file of `version`.
pub fn header_bytes(h: &Header, version: Version) -> [u8; HEADER] {
    let mut b = h.to_bytes();
    b[..8].copy_from_slice(version.magic());
    b
}

/// The header of a game-based file and its version, if `b` starts with one.
pub fn parse_header(b: &[u8]) -> Option<Result<(Header, Version), String>> {
    let version = Version::of_magic(b)?;
    if b.len() < HEADER {
        return None;
    }
    let mut h = [0u8; HEADER];
    h.copy_from_slice(&b[..HEADER]);
    h[..8].copy_from_slice(format::MAGIC);
    Some(Header::from_bytes(&h).map(|h| (h, version)))
}

/// The legal moves of `pos` in the order of their notation (what a rank counts in).
fn ranked<G: Learn>(pos: &G, moves: &mut Vec<G::Move>) {
    pos.legal_moves(moves);
    let mut named: Vec<(String, G::Move)> =
        moves.iter().map(|&m| (pos.format_move(m), m)).collect();
    named.sort_by(|a, b| a.0.cmp(&b.0));
    moves.clear();
    moves.extend(named.into_iter().map(|(_, m)| m));
}

/// The block of game `index` (see the file comment), framed as `TABULAG2` writes it. Errors
/// if a move is not legal where it is played.
pub fn encode<G: Learn>(rec: &GameRecord<G>, index: u32) -> Result<Vec<u8>, String> {
    let n = u16::try_from(rec.plies.len()).map_err(|_| "a game of more than 65535 moves")?;
    let mut out = Vec::with_capacity(4 + BLOCK_HEAD + G::PACKED + 3 * rec.plies.len());
    out.extend_from_slice(&[0; 4]);
    out.extend_from_slice(&index.to_le_bytes());
    out.extend_from_slice(&rec.label_p1.to_le_bytes());
    out.extend_from_slice(&rec.start_ply.to_le_bytes());
    out.extend_from_slice(&n.to_le_bytes());
    let at = out.len();
    out.resize(at + G::PACKED, 0);
    rec.start.pack(&mut out[at..]);
    let mut pos = rec.start.clone();
    let mut moves = Vec::new();
    for (i, p) in rec.plies.iter().enumerate() {
        ranked(&pos, &mut moves);
        let rank = moves.iter().position(|&m| m == p.mv).ok_or_else(|| {
            format!(
                "move {} of game {index} is not legal in {}",
                i + 1,
                pos.fen()
            )
        })?;
        out.push(p.flags);
        if rank < 255 {
            out.push(rank as u8);
        } else {
            out.push(255);
            out.extend_from_slice(&(rank as u16).to_le_bytes());
        }
        if p.flags & FLAG_KEEP != 0 {
            out.extend_from_slice(&p.score.to_le_bytes());
        }
        pos.play(p.mv);
    }
    let len = (out.len() - 4) as u32;
    out[..4].copy_from_slice(&len.to_le_bytes());
    let mut framed = Vec::with_capacity(out.len() + 8);
    game_blocks::frame(&out, &mut framed);
    Ok(framed)
}

/// Replays one block (its view: length field and body) into training records (appended to
/// `out`); returns the positions kept. On an error `out` may hold part of the game.
fn decode_block<G: Learn>(start: &G, block: &[u8], out: &mut Vec<u8>) -> Result<u64, String> {
    let bad = || "a damaged game block".to_string();
    let b = block.get(4..).ok_or_else(bad)?;
    if b.len() < BLOCK_HEAD - 4 {
        return Err(bad());
    }
    let index = u32::from_le_bytes([b[0], b[1], b[2], b[3]]);
    let label_p1 = i16::from_le_bytes([b[4], b[5]]);
    let start_ply = u16::from_le_bytes([b[6], b[7]]);
    let n = u16::from_le_bytes([b[8], b[9]]) as usize;
    let packed = b.get(10..10 + G::PACKED).ok_or_else(bad)?;
    let mut pos = start.unpack(packed)?;
    let mut at = 10 + G::PACKED;
    let mut moves = Vec::new();
    let mut buf = vec![0u8; G::PACKED];
    let mut kept = 0;
    for i in 0..n {
        let flags = *b.get(at).ok_or_else(bad)?;
        let mut rank = *b.get(at + 1).ok_or_else(bad)? as usize;
        at += 2;
        if rank == 255 {
            let r = b.get(at..at + 2).ok_or_else(bad)?;
            rank = u16::from_le_bytes([r[0], r[1]]) as usize;
            at += 2;
        }
        if flags & FLAG_KEEP != 0 {
            let s = b.get(at..at + 2).ok_or_else(bad)?;
            let score = i16::from_le_bytes([s[0], s[1]]);
            at += 2;
            pos.pack(&mut buf);
            let label = if pos.to_move() == Player::P1 {
                label_p1
            } else {
                label_p1.saturating_neg()
            };
            Record {
                position: &buf,
                score,
                label,
                game: index,
                flags: flags & FLAG_EXACT,
                ply: (start_ply as usize + i).min(255) as u8,
            }
            .write(out);
            kept += 1;
        }
        ranked(&pos, &mut moves);
        let mv = *moves.get(rank).ok_or_else(|| {
            format!(
                "game {index}, move {}: rank {rank} of {} legal moves",
                i + 1,
                moves.len()
            )
        })?;
        pos.play(mv);
    }
    Ok(kept)
}

/// Reads a data file of any format into training records; `start` supplies the board (the
/// file's game and dimensions must be `start`'s). Damaged blocks (and a cut last one) are
/// skipped and counted in the result's `damage`.
pub fn read<G: Learn>(path: &Path, start: &G) -> Result<Data, String> {
    let shown = path.display();
    let bytes = compressed::read(path).map_err(|e| format!("cannot read {shown}: {e}"))?;
    let (header, version) = match parse_header(&bytes) {
        None => return Data::from_bytes(path, bytes),
        Some(h) => h.map_err(|e| format!("{shown}: {e}"))?,
    };
    if header.game != G::NAME || header.packed != G::PACKED || header.dims != start.dims() {
        return Err(format!(
            "{shown} holds {} {}x{} data, not {} {}x{}",
            header.game,
            header.dims.0,
            header.dims.1,
            G::NAME,
            start.dims().0,
            start.dims().1
        ));
    }
    let scan = game_blocks::scan(&bytes, HEADER, version);
    let mut damage = Damage {
        format: if version == Version::V2 {
            "TABULAG2"
        } else {
            "TABULAG1"
        },
        checked: version == Version::V2,
        skipped: scan.lost,
        ..Damage::default()
    };
    let mut problems = game_blocks::problems(&scan, &bytes);
    let mut out = Vec::new();
    let mut last_game = None;
    for b in &scan.blocks {
        let before = out.len();
        let view = &bytes[b.view.clone()];
        match decode_block(start, view, &mut out) {
            Ok(_) => {
                damage.blocks += 1;
                let game = game_blocks::index(view);
                if last_game != Some(game) {
                    damage.games += 1;
                    last_game = Some(game);
                }
            }
            Err(e) => {
                out.truncate(before);
                damage.skipped += 1;
                problems.push((b.at, format!("block at byte {} does not replay: {e}", b.at)));
            }
        }
    }
    problems.sort_by_key(|p| p.0);
    damage.problems = problems.into_iter().map(|p| p.1).collect();
    Ok(Data {
        header,
        bytes: out,
        damage,
    })
}

/// The header of a data file of any format, and whether it is game-based.
pub fn peek_header(path: &Path) -> Result<(Header, bool), String> {
    let shown = path.display();
    let mut head = [0u8; HEADER];
    match compressed::read_head(path, &mut head) {
        Ok(HEADER) => {}
        Ok(n) => return Err(format!("{shown}: {n} bytes, shorter than a header")),
        Err(e) => return Err(format!("cannot read {shown}: {e}")),
    }
    match parse_header(&head) {
        Some(h) => Ok((h.map_err(|e| format!("{shown}: {e}"))?.0, true)),
        None => Ok((
            Header::from_bytes(&head).map_err(|e| format!("{shown}: {e}"))?,
            false,
        )),
    }
}

/// Appends whole games to a game-based file, in the file's own version.
pub struct GameWriter {
    file: File,
    version: Version,
    /// What opening the file found and did (a version kept, a cut tail), to tell the user.
    pub notes: Vec<String>,
}

impl GameWriter {
    /// Opens `path` for appending (creating it with `header` as `TABULAG2` if it does not
    /// exist); returns the writer and the index of the next game (one past the last whole
    /// game in the file). A cut or damaged tail after the last whole block is cut off (said
    /// in `notes`), and with it the blocks of that block's game where the tail may be one of
    /// the game's side lines (the game is made again); a `TABULAG1` file stays `TABULAG1`.
    pub fn open(path: &Path, header: &Header) -> Result<(GameWriter, u32), String> {
        let shown = path.display();
        let io = |e: std::io::Error| format!("{shown}: {e}");
        let mut file = format::open_for_append(path)?;
        let mut bytes = Vec::new();
        file.read_to_end(&mut bytes).map_err(io)?;
        if bytes.len() < HEADER {
            file.set_len(0).map_err(io)?;
            file.seek(SeekFrom::Start(0)).map_err(io)?;
            file.write_all(&header_bytes(header, Version::V2))
                .map_err(io)?;
            let w = GameWriter {
                file,
                version: Version::V2,
                notes: Vec::new(),
            };
            return Ok((w, 0));
        }
        let (existing, version) = match parse_header(&bytes) {
            Some(h) => h.map_err(|e| format!("{shown}: {e}"))?,
            None => {
                return Err(format!(
                    "{shown} holds position records (TABULAD1), not games: write games to a new file (the trainer reads both)"
                ));
            }
        };
        if existing != *header {
            return Err(existing.mismatch(&shown, header));
        }
        let scan = game_blocks::scan(&bytes, HEADER, version);
        let mut notes = Vec::new();
        if version == Version::V1 {
            notes.push(format!(
                "{shown} is TABULAG1 (no checksums): games are appended in its own version; start a new file for TABULAG2"
            ));
        }
        if !scan.damaged.is_empty() {
            notes.push(format!(
                "{shown}: {} damaged game blocks stay skipped (tabula data --check {shown})",
                scan.damaged.len()
            ));
        }
        if let Some(t) = scan.tail {
            notes.push(format!(
                "{shown}: cut off {} {} bytes at byte {} after the last whole game; they are made again",
                if t.truncated { "a truncated last block," } else { "a damaged tail," },
                t.len,
                t.at
            ));
        }
        // A game with side lines (`datagen --branches`) is several blocks of one index,
        // written in one piece: where the torn tail is of the last whole block's game (its
        // index says so; too short to say, where the file has side lines), that game is
        // short of some of its blocks, so they go too and it is made again.
        let index_of = |b: &game_blocks::Block| game_blocks::index(&bytes[b.view.clone()]);
        let mut end = scan.end;
        let mut blocks = scan.blocks.as_slice();
        if let (Some(t), Some(last)) = (scan.tail, blocks.last()) {
            let last_game = index_of(last);
            let skip = if version == Version::V2 { MARK_LEN } else { 0 };
            let torn_game = bytes
                .get(t.at + skip..)
                .filter(|view| view.len() >= 8)
                .map(game_blocks::index);
            let same = match torn_game {
                Some(i) => i == last_game,
                None => blocks
                    .windows(2)
                    .any(|w| index_of(&w[0]) == index_of(&w[1])),
            };
            while same
                && let Some((b, rest)) = blocks.split_last()
                && index_of(b) == last_game
            {
                end = b.at;
                blocks = rest;
            }
        }
        file.set_len(end as u64).map_err(io)?;
        file.seek(SeekFrom::End(0)).map_err(io)?;
        let next = blocks.last().map_or(0, |b| index_of(b) + 1);
        Ok((
            GameWriter {
                file,
                version,
                notes,
            },
            next,
        ))
    }

    /// Appends blocks (whole games, as `encode` makes them) in one write, in the file's
    /// version.
    pub fn append(&mut self, blocks: &[u8]) -> Result<(), String> {
        let bytes = game_blocks::convert(blocks, self.version);
        self.file
            .write_all(&bytes)
            .and_then(|_| self.file.flush())
            .map_err(|e| format!("writing data: {e}"))
    }
}

/// What `merge` did.
#[derive(Clone, Debug, Default)]
pub struct Merged {
    pub added: u64,
    /// Lines for the user: damaged blocks skipped (per input), the output's version kept.
    pub notes: Vec<String>,
}

/// Appends the games of `inputs` (game-based files of the same game and board) to `out`,
/// numbered on after its last game. Several machines' shards become one training set, each
/// game whole (the trainer holds out by game index). Damaged blocks of an input are skipped
/// and counted in the notes.
pub fn merge(out: &Path, inputs: &[std::path::PathBuf]) -> Result<Merged, String> {
    let mut header: Option<Header> = None;
    for input in inputs {
        let shown = input.display();
        let (h, games) = peek_header(input)?;
        if !games {
            return Err(format!(
                "{shown}: not a game-based data file (TABULAG1/2); position files are read by the trainer as they are"
            ));
        }
        match &header {
            Some(first) if *first != h => {
                return Err(format!(
                    "{shown}: another game or board than the first input"
                ));
            }
            Some(_) => {}
            None => header = Some(h),
        }
    }
    let header = header.ok_or("merge: no input files")?;
    let (mut writer, mut next) = GameWriter::open(out, &header)?;
    let mut done = Merged {
        notes: std::mem::take(&mut writer.notes),
        ..Merged::default()
    };
    for input in inputs {
        let shown = input.display();
        let bytes = compressed::read(input).map_err(|e| format!("cannot read {shown}: {e}"))?;
        let Some(Ok((_, version))) = parse_header(&bytes) else {
            return Err(format!("{shown}: its header changed while merging"));
        };
        let scan = game_blocks::scan(&bytes, HEADER, version);
        let mut buf = Vec::new();
        let mut view = Vec::new();
        // A game's side lines (`datagen --branches`) are blocks of its index after it: they
        // keep one new index with it, so that the trainer holds them out with their game.
        let mut last: Option<u32> = None;
        for b in &scan.blocks {
            view.clear();
            view.extend_from_slice(&bytes[b.view.clone()]);
            let old = game_blocks::index(&view);
            if last.is_some_and(|l| l != old) {
                next += 1;
            }
            if last != Some(old) {
                done.added += 1;
            }
            last = Some(old);
            view[4..8].copy_from_slice(&next.to_le_bytes());
            game_blocks::frame(&view, &mut buf);
        }
        if last.is_some() {
            next += 1;
        }
        if scan.lost > 0 {
            let problems: Vec<String> = game_blocks::problems(&scan, &bytes)
                .into_iter()
                .map(|p| p.1)
                .collect();
            done.notes.push(format!(
                "skipped {} damaged game blocks in {shown}: {}",
                scan.lost,
                game_blocks::summarise(&problems, input)
            ));
        }
        if version == Version::V1 {
            done.notes.push(format!(
                "{shown} is TABULAG1: no checksums, damage inside a game cannot be seen"
            ));
        }
        writer.append(&buf)?;
    }
    Ok(done)
}

#[cfg(test)]
mod tests;
