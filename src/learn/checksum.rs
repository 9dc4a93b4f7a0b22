//! The check every tabula file format carries: CRC-32 (the IEEE 802.3 / zlib / PNG
//! polynomial, reflected, initial value and final xor all ones; `crc32(b"123456789")` is
//! `0xCBF43926`), computed eight bytes at a time (slice-by-8 tables built at compile time).
//!
//! Whole-file formats (weight files, the Othello book, solver checkpoints) end with a "seal":
//! the CRC-32 of every byte before it, a u32 little-endian. Game data files carry one per game
//! block instead (`game_blocks`), so that damage costs the block it hits only.

/// The slice-by-8 tables: `T[0]` the classic byte table, `T[k][b]` the CRC of byte `b`
/// followed by `k` zero bytes.
const TABLES: [[u32; 256]; 8] = {
    let mut t = [[0u32; 256]; 8];
    let mut i = 0;
    while i < 256 {
        let mut c = i as u32;
        let mut k = 0;
        while k < 8 {
            c = if c & 1 != 0 {
                0xEDB8_8320 ^ (c >> 1)
            } else {
                c >> 1
            };
            k += 1;
        }
        t[0][i] = c;
        i += 1;
    }
    let mut i = 0;
    while i < 256 {
        let mut k = 1;
        while k < 8 {
            let prev = t[k - 1][i];
            t[k][i] = (prev >> 8) ^ t[0][(prev & 0xff) as usize];
            k += 1;
        }
        i += 1;
    }
    t
};

/// A CRC-32 computed over bytes given in pieces.
#[derive(Clone, Copy, Debug)]
pub struct Crc32(u32);

impl Default for Crc32 {
    fn default() -> Self {
        Crc32::new()
    }
}

impl Crc32 {
    pub const fn new() -> Crc32 {
        Crc32(!0)
    }

    pub fn update(&mut self, bytes: &[u8]) {
        let mut c = self.0;
        let mut chunks = bytes.chunks_exact(8);
        for ch in &mut chunks {
            let lo = c ^ u32::from_le_bytes([ch[0], ch[1], ch[2], ch[3]]);
            c = TABLES[7][(lo & 0xff) as usize]
                ^ TABLES[6][(lo >> 8 & 0xff) as usize]
                ^ TABLES[5][(lo >> 16 & 0xff) as usize]
                ^ TABLES[4][(lo >> 24) as usize]
                ^ TABLES[3][ch[4] as usize]
                ^ TABLES[2][ch[5] as usize]
                ^ TABLES[1][ch[6] as usize]
                ^ TABLES[0][ch[7] as usize];
        }
        for &b in chunks.remainder() {
            c = (c >> 8) ^ TABLES[0][((c ^ b as u32) & 0xff) as usize];
        }
        self.0 = c;
    }

    pub fn finish(&self) -> u32 {
        !self.0
    }
}

/// The CRC-32 of `bytes`.
pub fn crc32(bytes: &[u8]) -> u32 {
    let mut c = Crc32::new();
    c.update(bytes);
    c.finish()
}

/// Appends the seal: the CRC-32 of everything in `out` so far.
pub fn seal(out: &mut Vec<u8>) {
    let c = crc32(out);
    out.extend_from_slice(&c.to_le_bytes());
}

/// The bytes before the seal, if the seal (the last 4 bytes) matches them; else why not.
pub fn unseal(bytes: &[u8]) -> Result<&[u8], String> {
    if bytes.len() < 4 {
        return Err("too short to hold its checksum (cut short)".into());
    }
    let (body, tail) = bytes.split_at(bytes.len() - 4);
    let stored = u32::from_le_bytes([tail[0], tail[1], tail[2], tail[3]]);
    let computed = crc32(body);
    if stored != computed {
        return Err(format!(
            "checksum mismatch (CRC-32 stored {stored:08x}, computed {computed:08x}): the file is damaged or cut short"
        ));
    }
    Ok(body)
}

/// A writer that checksums what passes through it; `seal` writes the checksum after it.
pub struct CrcWriter<W> {
    inner: W,
    crc: Crc32,
}

impl<W: std::io::Write> CrcWriter<W> {
    pub fn new(inner: W) -> CrcWriter<W> {
        CrcWriter {
            inner,
            crc: Crc32::new(),
        }
    }

    /// Writes the CRC-32 of everything written so far; returns the inner writer.
    pub fn seal(mut self) -> std::io::Result<W> {
        let c = self.crc.finish();
        self.inner.write_all(&c.to_le_bytes())?;
        Ok(self.inner)
    }
}

impl<W: std::io::Write> std::io::Write for CrcWriter<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let n = self.inner.write(buf)?;
        self.crc.update(&buf[..n]);
        Ok(n)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.inner.flush()
    }
}

/// A reader that checksums what it reads; `check_seal` reads the seal after it and compares.
pub struct CrcReader<R> {
    inner: R,
    crc: Crc32,
}

impl<R: std::io::Read> CrcReader<R> {
    pub fn new(inner: R) -> CrcReader<R> {
        CrcReader {
            inner,
            crc: Crc32::new(),
        }
    }

    /// Reads the seal and compares it with the checksum of everything read so far; the seal
    /// must end the input.
    pub fn check_seal(mut self) -> Result<(), String> {
        let computed = self.crc.finish();
        let mut b = [0u8; 4];
        self.inner
            .read_exact(&mut b)
            .map_err(|_| "cut short before its checksum".to_string())?;
        let stored = u32::from_le_bytes(b);
        if stored != computed {
            return Err(format!(
                "checksum mismatch (CRC-32 stored {stored:08x}, computed {computed:08x}): the file is damaged"
            ));
        }
        let mut more = [0u8; 1];
        match self.inner.read(&mut more) {
            Ok(0) => Ok(()),
            Ok(_) => Err("bytes after its checksum (damaged)".into()),
            Err(e) => Err(e.to_string()),
        }
    }
}

impl<R: std::io::Read> std::io::Read for CrcReader<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.crc.update(&buf[..n]);
        Ok(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_published_check_value() {
        assert_eq!(crc32(b"123456789"), 0xCBF4_3926);
        assert_eq!(crc32(b""), 0);
        // In pieces of every split, and across the 8-byte stride, the same value.
        let text = b"The quick brown fox jumps over the lazy dog";
        assert_eq!(crc32(text), 0x414F_A339);
        for cut in 0..text.len() {
            let mut c = Crc32::new();
            c.update(&text[..cut]);
            c.update(&text[cut..]);
            assert_eq!(c.finish(), 0x414F_A339);
        }
    }

    #[test]
    fn a_seal_finds_any_flipped_bit() {
        let mut v: Vec<u8> = (0..100u8).collect();
        seal(&mut v);
        assert_eq!(unseal(&v).map(<[u8]>::len), Ok(100));
        for i in 0..v.len() {
            let mut w = v.clone();
            w[i] ^= 0x10;
            assert!(unseal(&w).is_err_and(|e| e.contains("checksum mismatch")));
        }
        assert!(unseal(&v[..3]).is_err());
        // The streaming writer and reader agree with `seal`.
        use std::io::{Read, Write};
        let mut w = CrcWriter::new(Vec::new());
        w.write_all(&v[..100]).unwrap();
        assert_eq!(w.seal().unwrap(), v);
        let mut r = CrcReader::new(&v[..]);
        let mut body = vec![0u8; 100];
        r.read_exact(&mut body).unwrap();
        assert_eq!(r.check_seal(), Ok(()));
        let mut r = CrcReader::new(&v[..103]);
        r.read_exact(&mut body).unwrap();
        assert!(r.check_seal().is_err());
    }
}
