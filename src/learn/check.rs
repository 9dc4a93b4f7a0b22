//! `tabula data --check FILE...`: every kind of file tabula writes, told apart by its magic,
//! checked as its format allows, and reported as one line (kind, version, what is whole) and
//! one more line per problem with its byte offset. Owns no format: each is its module's
//! (`game_blocks`/`game_data` and `format` for data, `network` for weights, the Othello
//! book, the solvers' tables for checkpoints); this only asks them.
//!
//! Invariant: `Report::ok` is false exactly when something is damaged, cut or unreadable (the
//! command's exit status); a format without a checksum is said to have none, not called bad.

use super::checksum::CrcReader;
use super::compressed;
use super::format::Data;
use super::game_blocks::{self, Version};
use super::network::Network;
use crate::games::connect4::solver as c4;
use crate::games::domineering::solver as dom;
use crate::games::othello::book::Book;
use std::io::Read;
use std::path::Path;

/// What `check` found in one file.
#[derive(Clone, Debug, Default)]
pub struct Report {
    /// The kind and version, e.g. `game data TABULAG2 (chess 8x8, CRC-32 per game block)`.
    pub kind: String,
    /// What is whole, e.g. `28 game blocks ok`.
    pub summary: String,
    /// One line per problem (where, how many bytes); empty for a good file.
    pub problems: Vec<String>,
}

impl Report {
    pub fn ok(&self) -> bool {
        self.problems.is_empty()
    }

    /// The lines to print for the file `path`.
    pub fn lines(&self, path: &Path) -> Vec<String> {
        let verdict = if self.ok() { "ok" } else { "DAMAGED" };
        let mut out = vec![format!(
            "{}: {verdict}: {}: {}",
            path.display(),
            self.kind,
            self.summary
        )];
        out.extend(self.problems.iter().map(|p| format!("  {p}")));
        out
    }

    fn refused(kind: &str, why: String) -> Report {
        Report {
            kind: kind.into(),
            summary: "refused".into(),
            problems: vec![why],
        }
    }
}

/// Checks the file at `path`; `read_data` reads a data file of whatever game it holds (it
/// replays every game; where it cannot, the blocks' framing and checksums are checked alone).
pub fn check(path: &Path, read_data: &dyn Fn(&Path) -> Result<Data, String>) -> Report {
    let mut head = [0u8; 8];
    let n = match compressed::read_head(path, &mut head) {
        Ok(n) => n,
        Err(e) => return Report::refused("unreadable", format!("cannot read it: {e}")),
    };
    if n == 0 {
        return Report::refused("empty file", "0 bytes".into());
    }
    match &head[..n] {
        b"TABULAD1" | b"TABULAG1" | b"TABULAG2" => data(path, read_data),
        b"TABULAN1" | b"TABULAN2" | b"TABULAN3" => whole(path, "weight file", |b| {
            let net = Network::from_bytes(b)?;
            Ok(format!(
                "{} {}x{}x{}{}",
                net.game,
                net.inputs,
                net.hidden,
                net.buckets,
                if net.psqt.is_empty() {
                    ""
                } else {
                    " with psqt"
                }
            ))
        }),
        b"TBLOBK01" | b"TBLOBK02" => whole(path, "Othello book", |b| {
            Ok(format!("{} positions", Book::from_bytes(b)?.len()))
        }),
        m if m == c4::CHECKPOINT_MAGIC || m == c4::CHECKPOINT_MAGIC_V1 => {
            checkpoint(path, "Connect Four solver checkpoint", 20, 8, 16)
        }
        m if m == dom::CHECKPOINT_MAGIC || m == dom::CHECKPOINT_MAGIC_V1 => {
            checkpoint(path, "Domineering solver checkpoint", 36, 20, 32)
        }
        m => Report::refused(
            "unknown",
            format!(
                "not a tabula file (starts with {:?})",
                String::from_utf8_lossy(m)
            ),
        ),
    }
}

fn magic_name(b: &[u8]) -> String {
    String::from_utf8_lossy(b.get(..8).unwrap_or(b)).into_owned()
}

fn data(path: &Path, read_data: &dyn Fn(&Path) -> Result<Data, String>) -> Report {
    match read_data(path) {
        Ok(d) => {
            let what = if d.damage.format == "TABULAD1" {
                "position records"
            } else {
                "game blocks"
            };
            Report {
                kind: format!(
                    "data {} ({} {}x{}, {})",
                    d.damage.format,
                    d.header.game,
                    d.header.dims.0,
                    d.header.dims.1,
                    if d.damage.checked {
                        "CRC-32 per game block"
                    } else {
                        "no checksum: damage inside a block cannot be seen"
                    }
                ),
                summary: format!(
                    "{} {what} ok, {} damaged ({} positions)",
                    d.damage.blocks,
                    d.damage.skipped,
                    d.len()
                ),
                problems: d.damage.problems,
            }
        }
        Err(why) => {
            // A game this build cannot replay: the framing and checksums alone.
            let bytes = match compressed::read(path) {
                Ok(b) => b,
                Err(e) => return Report::refused("data", format!("cannot read it: {e}")),
            };
            let Some(version) = Version::of_magic(&bytes) else {
                return Report::refused("data", why);
            };
            let s = game_blocks::scan(&bytes, super::format::HEADER.min(bytes.len()), version);
            Report {
                kind: format!("data {} (not replayed: {why})", magic_name(&bytes)),
                summary: format!("{} game blocks whole, {} damaged", s.blocks.len(), s.lost),
                problems: game_blocks::problems(&s, &bytes)
                    .into_iter()
                    .map(|p| p.1)
                    .collect(),
            }
        }
    }
}

/// A file checked whole by its loader (`parse` says what it holds).
fn whole(path: &Path, kind: &str, parse: impl Fn(&[u8]) -> Result<String, String>) -> Report {
    let bytes = match std::fs::read(path) {
        Ok(b) => b,
        Err(e) => return Report::refused(kind, format!("cannot read it: {e}")),
    };
    let magic = magic_name(&bytes);
    let checked = matches!(magic.as_str(), "TABULAN3" | "TBLOBK02");
    let kind = labelled(kind, &magic, checked);
    match parse(&bytes) {
        Ok(what) => Report {
            kind,
            summary: format!("{what}, {} bytes", bytes.len()),
            problems: Vec::new(),
        },
        Err(e) => Report::refused(&kind, e),
    }
}

/// A solver checkpoint: `head` bytes of header whose u64 at `buckets_at` counts buckets of
/// `bucket` bytes each, then (in the checked version) the CRC-32 of all that.
fn checkpoint(path: &Path, kind: &str, head: u64, buckets_at: usize, bucket: u64) -> Report {
    let refuse = |why: String| Report::refused(kind, why);
    let file = match std::fs::File::open(path) {
        Ok(f) => f,
        Err(e) => return refuse(format!("cannot read it: {e}")),
    };
    let len = file.metadata().map_or(0, |m| m.len());
    let mut r = CrcReader::new(std::io::BufReader::with_capacity(1 << 20, file));
    let mut h = vec![0u8; head as usize];
    if r.read_exact(&mut h).is_err() {
        return refuse(format!("{len} bytes: cut short inside its header"));
    }
    let magic = magic_name(&h);
    let checked = magic.ends_with('2');
    let mut b = [0u8; 8];
    b.copy_from_slice(&h[buckets_at..buckets_at + 8]);
    let buckets = u64::from_le_bytes(b);
    let need = buckets
        .checked_mul(bucket)
        .and_then(|x| x.checked_add(head + if checked { 4 } else { 0 }));
    let kind = labelled(kind, &magic, checked);
    if need != Some(len) {
        return Report::refused(
            &kind,
            format!(
                "{len} bytes, but its header ({buckets} buckets) implies {} (cut or damaged)",
                need.map_or("more than fit".to_string(), |n| n.to_string())
            ),
        );
    }
    if checked {
        let body = len - head - 4;
        if let Err(e) = std::io::copy(&mut (&mut r).take(body), &mut std::io::sink()) {
            return Report::refused(&kind, format!("cannot read it: {e}"));
        }
        if let Err(e) = r.check_seal() {
            return Report::refused(&kind, e);
        }
    }
    Report {
        kind,
        summary: format!("{buckets} buckets, {len} bytes"),
        problems: Vec::new(),
    }
}

/// A whole-file format's name in a report: its kind, its magic and whether it is checked.
fn labelled(kind: &str, magic: &str, checked: bool) -> String {
    let check = if checked {
        "CRC-32 of the whole file"
    } else {
        "no checksum: only its size is checked"
    };
    format!("{kind} {magic} ({check})")
}
