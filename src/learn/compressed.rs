//! Reading data files whether or not they are compressed: a file that starts with zstd's
//! frame magic (`28 B5 2F FD`) is decoded as a stream on the way in (the corpus's shards,
//! `corpus/`), any other file is read as it is. Every reader of data files (`data`, `data
//! --check`, `data --merge`, `train`) goes through here, so a shard is never unpacked to disk.
//!
//! Invariant: the bytes handed on are the decompressed file's, byte for byte; a damaged or
//! cut zstd frame is an error naming the file, never a silently shorter file.

use std::fs::File;
use std::io::{BufReader, Read};
use std::path::{Path, PathBuf};

/// The first four bytes of a zstd frame (RFC 8878, 3.1.1).
pub const ZSTD_MAGIC: [u8; 4] = [0x28, 0xB5, 0x2F, 0xFD];

/// The extension of compressed shards.
pub const EXTENSION: &str = "zst";

/// Opens `path` for reading its contents, decompressing as it goes if it is zstd.
pub fn open(path: &Path) -> std::io::Result<Box<dyn Read>> {
    let mut file = File::open(path)?;
    let mut magic = [0u8; 4];
    let n = read_up_to(&mut file, &mut magic)?;
    let head = std::io::Cursor::new(magic[..n].to_vec());
    let whole = head.chain(file);
    if n == 4 && magic == ZSTD_MAGIC {
        Ok(Box::new(zstd::stream::read::Decoder::new(whole)?))
    } else {
        Ok(Box::new(BufReader::with_capacity(1 << 20, whole)))
    }
}

/// The whole contents of `path` (decompressed if it is zstd).
pub fn read(path: &Path) -> std::io::Result<Vec<u8>> {
    let mut bytes = Vec::new();
    open(path)?.read_to_end(&mut bytes)?;
    Ok(bytes)
}

/// Up to `buf.len()` bytes of the contents of `path` from its start (decompressed if zstd);
/// returns how many there were.
pub fn read_head(path: &Path, buf: &mut [u8]) -> std::io::Result<usize> {
    read_up_to(&mut open(path)?, buf)
}

/// Whether `path` names a zstd-compressed file (by its first bytes).
pub fn is_compressed(path: &Path) -> bool {
    let mut magic = [0u8; 4];
    File::open(path)
        .and_then(|mut f| read_up_to(&mut f, &mut magic))
        .is_ok_and(|n| n == 4 && magic == ZSTD_MAGIC)
}

/// `paths` with each directory replaced by the data files inside it (not recursing), sorted
/// by name so that a directory always reads in the same order: `--data corpus/chess`.
pub fn expand(paths: &[PathBuf]) -> Result<Vec<PathBuf>, String> {
    let mut out = Vec::new();
    for p in paths {
        if !p.is_dir() {
            out.push(p.clone());
            continue;
        }
        let mut inside: Vec<PathBuf> = std::fs::read_dir(p)
            .map_err(|e| format!("{}: {e}", p.display()))?
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|f| f.is_file() && f.extension().is_some_and(|x| x == EXTENSION || x == "bin"))
            .collect();
        if inside.is_empty() {
            return Err(format!("{}: no data files (.zst, .bin) in it", p.display()));
        }
        inside.sort();
        out.extend(inside);
    }
    Ok(out)
}

fn read_up_to(f: &mut dyn Read, buf: &mut [u8]) -> std::io::Result<usize> {
    let mut n = 0;
    while n < buf.len() {
        match f.read(&mut buf[n..]) {
            Ok(0) => break,
            Ok(k) => n += k,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(n)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn compressed_and_plain_read_the_same_and_a_cut_frame_is_an_error() {
        let dir = std::env::temp_dir().join(format!("tabula-compressed-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let body: Vec<u8> = (0..100_000u32)
            .flat_map(|i| (i % 251).to_le_bytes())
            .collect();
        let plain = dir.join("a.bin");
        let packed = dir.join("a.bin.zst");
        std::fs::write(&plain, &body).unwrap();
        std::fs::write(&packed, zstd::encode_all(&body[..], 3).unwrap()).unwrap();
        assert!(is_compressed(&packed) && !is_compressed(&plain));
        assert_eq!(read(&plain).unwrap(), body);
        assert_eq!(read(&packed).unwrap(), body);
        let mut head = [0u8; 8];
        assert_eq!(read_head(&packed, &mut head).unwrap(), 8);
        assert_eq!(&head[..], &body[..8]);
        // A frame cut short must not read as a shorter file.
        let z = std::fs::read(&packed).unwrap();
        std::fs::write(&packed, &z[..z.len() / 2]).unwrap();
        assert!(read(&packed).is_err());
        let listed = expand(std::slice::from_ref(&dir)).unwrap();
        assert_eq!(listed, vec![plain.clone(), packed.clone()]);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
