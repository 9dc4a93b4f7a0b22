//! The self-play data file: a 32-byte header, then fixed-size records, all little-endian.
//!
//! Header: `TABULAD1` (8 bytes), the game's name (12 bytes, NUL-padded), the board's
//! dimensions (two u16: chess 8 8, Othello N N, Connect Four width height, Domineering rows
//! cols), the packed-position size P (u16), 6 reserved zero bytes.
//!
//! Record (P + 10 bytes): the packed position (`Learn::pack`), the search score (i16, search
//! units from the side to move, mate scores clamped to +-32000), the label (i16, from the side
//! to move: the game's result +1/0/-1, or Othello's final disc margin), the game's index in
//! the file (u32; games are written whole and in index order), flags (u8: bit 0 the score is
//! the exact solver's value), the ply within the game (u8, capped at 255).
//!
//! No checksum (the format before game blocks; `datagen --positions` still writes it): a torn
//! last record is reported (`Damage`), damage inside a record cannot be seen.
//!
//! Invariant: a file is a header followed by whole records; `DataWriter::open` truncates a
//! torn last record (an interrupted write) and resumes after the last game written.

use std::fs::{File, OpenOptions};
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::Path;

pub const MAGIC: &[u8; 8] = b"TABULAD1";
pub const HEADER: usize = 32;
/// Bytes after the packed position in each record.
pub const TAIL: usize = 10;
pub const FLAG_EXACT: u8 = 1;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Header {
    pub game: String,
    pub dims: (u16, u16),
    pub packed: usize,
}

impl Header {
    pub fn record_size(&self) -> usize {
        self.packed + TAIL
    }

    pub fn to_bytes(&self) -> [u8; HEADER] {
        let mut b = [0u8; HEADER];
        b[..8].copy_from_slice(MAGIC);
        let name = self.game.as_bytes();
        let n = name.len().min(12);
        b[8..8 + n].copy_from_slice(&name[..n]);
        b[20..22].copy_from_slice(&self.dims.0.to_le_bytes());
        b[22..24].copy_from_slice(&self.dims.1.to_le_bytes());
        b[24..26].copy_from_slice(&(self.packed as u16).to_le_bytes());
        b
    }

    /// Why a file holding this header's data cannot take data of `wanted`'s game and board.
    pub fn mismatch(&self, file: &dyn std::fmt::Display, wanted: &Header) -> String {
        format!(
            "{file} holds {} {}x{} data; this run makes {} {}x{}",
            self.game, self.dims.0, self.dims.1, wanted.game, wanted.dims.0, wanted.dims.1
        )
    }

    pub fn from_bytes(b: &[u8]) -> Result<Header, String> {
        if b.len() < HEADER || &b[..8] != MAGIC {
            return Err("not a tabula data file (no TABULAD1 header)".into());
        }
        let name_end = b[8..20].iter().position(|&c| c == 0).unwrap_or(12);
        let game = String::from_utf8_lossy(&b[8..8 + name_end]).into_owned();
        let u16_at = |i: usize| u16::from_le_bytes([b[i], b[i + 1]]);
        let packed = u16_at(24) as usize;
        if packed == 0 {
            return Err("data file header: zero record size".into());
        }
        Ok(Header {
            game,
            dims: (u16_at(20), u16_at(22)),
            packed,
        })
    }
}

/// One record, unpacked from its bytes (the position stays packed).
#[derive(Clone, Copy, Debug)]
pub struct Record<'a> {
    pub position: &'a [u8],
    pub score: i16,
    pub label: i16,
    pub game: u32,
    pub flags: u8,
    pub ply: u8,
}

impl<'a> Record<'a> {
    pub fn parse(bytes: &'a [u8], packed: usize) -> Record<'a> {
        let t = &bytes[packed..packed + TAIL];
        Record {
            position: &bytes[..packed],
            score: i16::from_le_bytes([t[0], t[1]]),
            label: i16::from_le_bytes([t[2], t[3]]),
            game: u32::from_le_bytes([t[4], t[5], t[6], t[7]]),
            flags: t[8],
            ply: t[9],
        }
    }

    pub fn write(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(self.position);
        out.extend_from_slice(&self.score.to_le_bytes());
        out.extend_from_slice(&self.label.to_le_bytes());
        out.extend_from_slice(&self.game.to_le_bytes());
        out.push(self.flags);
        out.push(self.ply);
    }
}

/// Appends whole games to a data file.
pub struct DataWriter {
    file: File,
}

/// A data file opened to read what it holds and append to it (created if missing, never cut).
pub fn open_for_append(path: &Path) -> Result<std::fs::File, String> {
    OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(path)
        .map_err(|e| format!("cannot open {}: {e}", path.display()))
}

impl DataWriter {
    /// Opens `path` for appending (creating it with `header` if it does not exist). Returns the
    /// writer and the index of the next game (one past the last game in the file).
    pub fn open(path: &Path, header: &Header) -> Result<(DataWriter, u32), String> {
        let shown = path.display();
        let mut file = open_for_append(path)?;
        let len = file.metadata().map_err(|e| format!("{shown}: {e}"))?.len() as usize;
        if len < HEADER {
            // New (or torn before its header was whole): start over.
            file.set_len(0).map_err(|e| format!("{shown}: {e}"))?;
            file.write_all(&header.to_bytes())
                .map_err(|e| format!("{shown}: {e}"))?;
            return Ok((DataWriter { file }, 0));
        }
        let mut head = [0u8; HEADER];
        file.read_exact(&mut head)
            .map_err(|e| format!("{shown}: {e}"))?;
        let existing = Header::from_bytes(&head).map_err(|e| format!("{shown}: {e}"))?;
        if existing != *header {
            return Err(existing.mismatch(&shown, header));
        }
        let rec = header.record_size();
        let whole = (len - HEADER) / rec;
        let end = (HEADER + whole * rec) as u64;
        // A torn last record (the process was stopped mid-write) is dropped.
        file.set_len(end).map_err(|e| format!("{shown}: {e}"))?;
        let mut next = 0;
        if whole > 0 {
            let mut last = vec![0u8; rec];
            file.seek(SeekFrom::Start(end - rec as u64))
                .map_err(|e| format!("{shown}: {e}"))?;
            file.read_exact(&mut last)
                .map_err(|e| format!("{shown}: {e}"))?;
            next = Record::parse(&last, header.packed).game + 1;
        }
        file.seek(SeekFrom::End(0))
            .map_err(|e| format!("{shown}: {e}"))?;
        Ok((DataWriter { file }, next))
    }

    /// Appends the records of one game in one write.
    pub fn append(&mut self, bytes: &[u8]) -> Result<(), String> {
        self.file
            .write_all(bytes)
            .and_then(|_| self.file.flush())
            .map_err(|e| format!("writing data: {e}"))
    }
}

/// What reading a data file found wrong with it (nothing, for a good file).
#[derive(Clone, Debug, Default)]
pub struct Damage {
    /// The file's format (`TABULAD1`, `TABULAG1`, `TABULAG2`).
    pub format: &'static str,
    /// Whether the format carries checksums (else damage inside a record or game is unseen).
    pub checked: bool,
    /// Whole blocks read (games; records in `TABULAD1`).
    pub blocks: usize,
    /// Blocks skipped as damaged or cut short.
    pub skipped: usize,
    /// Games among the whole blocks (a game's side lines are blocks of its index; 0 for
    /// `TABULAD1`, which has no games).
    pub games: usize,
    /// What was skipped and where (byte offsets in the file), one line each.
    pub problems: Vec<String>,
}

impl Damage {
    /// The lines to print on stderr about the file `path` (none for a good checked file).
    pub fn notes(&self, path: &Path) -> Vec<String> {
        let mut out = Vec::new();
        if self.skipped > 0 {
            out.push(format!(
                "skipped {} damaged game blocks in {}: {}",
                self.skipped,
                path.display(),
                super::game_blocks::summarise(&self.problems, path)
            ));
        }
        if !self.checked {
            out.push(format!(
                "{} is {}: no checksums, damage inside a game cannot be seen",
                path.display(),
                self.format
            ));
        }
        out
    }
}

/// A whole data file in memory.
pub struct Data {
    pub header: Header,
    pub bytes: Vec<u8>,
    pub damage: Damage,
}

impl Data {
    /// A file of position records (`TABULAD1`), read whole (decompressed if zstd).
    pub fn read(path: &Path) -> Result<Data, String> {
        let bytes = super::compressed::read(path)
            .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        Data::from_bytes(path, bytes)
    }

    /// Position records from the bytes of the file `path` names.
    pub fn from_bytes(path: &Path, mut bytes: Vec<u8>) -> Result<Data, String> {
        let shown = path.display();
        let header = Header::from_bytes(&bytes).map_err(|e| format!("{shown}: {e}"))?;
        let rec = header.record_size();
        let whole = (bytes.len() - HEADER) / rec;
        let end = HEADER + whole * rec;
        let mut damage = Damage {
            format: "TABULAD1",
            blocks: whole,
            ..Damage::default()
        };
        if end < bytes.len() {
            damage.skipped = 1;
            damage.problems.push(format!(
                "truncated last record at byte {end} ({} bytes)",
                bytes.len() - end
            ));
        }
        bytes.truncate(end);
        bytes.drain(..HEADER);
        Ok(Data {
            header,
            bytes,
            damage,
        })
    }

    pub fn len(&self) -> usize {
        self.bytes.len() / self.header.record_size()
    }

    pub fn is_empty(&self) -> bool {
        self.bytes.is_empty()
    }

    pub fn record(&self, i: usize) -> Record<'_> {
        let rec = self.header.record_size();
        Record::parse(&self.bytes[i * rec..(i + 1) * rec], self.header.packed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_round_trip_and_resume() {
        let h = Header {
            game: "chess".into(),
            dims: (8, 8),
            packed: 4,
        };
        assert_eq!(Header::from_bytes(&h.to_bytes()).unwrap(), h);
        let dir = std::env::temp_dir().join(format!("tabula-format-{}", std::process::id()));
        let _ = std::fs::create_dir_all(&dir);
        let path = dir.join("d.bin");
        let _ = std::fs::remove_file(&path);
        let (mut w, next) = DataWriter::open(&path, &h).unwrap();
        assert_eq!(next, 0);
        let mut buf = Vec::new();
        for game in 0..3u32 {
            Record {
                position: &[1, 2, 3, 4],
                score: -5,
                label: 1,
                game,
                flags: FLAG_EXACT,
                ply: 9,
            }
            .write(&mut buf);
        }
        buf.extend_from_slice(&[7, 7, 7]); // a torn record
        w.append(&buf).unwrap();
        drop(w);
        let (_, next) = DataWriter::open(&path, &h).unwrap();
        assert_eq!(next, 3);
        let d = Data::read(&path).unwrap();
        assert_eq!(d.len(), 3);
        let r = d.record(2);
        assert_eq!((r.score, r.label, r.game, r.flags, r.ply), (-5, 1, 2, 1, 9));
        let other = Header {
            game: "othello".into(),
            ..h
        };
        assert!(DataWriter::open(&path, &other).is_err());
        let _ = std::fs::remove_dir_all(&dir);
    }
}
