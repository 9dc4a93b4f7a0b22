//! The checks against the committed tables and damaged copies of them.

use super::pairs::children;
use super::*;

fn committed() -> Vec<(String, Vec<u8>)> {
    let dir = format!("{}/tests/data/syzygy", env!("CARGO_MANIFEST_DIR"));
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        if name.ends_with(".rtbw") || name.ends_with(".rtbz") {
            out.push((name, std::fs::read(e.path()).unwrap()));
        }
    }
    out
}

#[test]
fn committed_tables_pass() {
    let failed: Vec<_> = committed()
        .into_iter()
        .filter_map(|(name, bytes)| check(&name, &bytes).err().map(|e| (name, e)))
        .collect();
    assert!(failed.is_empty(), "{failed:?}");
}

#[test]
fn damaged_tables_are_refused_without_panic() {
    for (name, bytes) in committed() {
        assert!(check(&name, &[]).is_err(), "{name} empty");
        if bytes.len() > 1000 {
            assert!(check(&name, &bytes[..1000]).is_err(), "{name} cut");
        }
        let mut magic = bytes.clone();
        magic[0] ^= 1;
        assert!(check(&name, &magic).is_err(), "{name} magic");
        let mut flipped = bytes.clone();
        for i in (64..flipped.len()).step_by(97) {
            flipped[i] ^= 0x5a;
        }
        // (Tables of a few bytes are changed only in their 16-byte tail.)
        if flipped.len() > 1000 {
            assert!(check(&name, &flipped).is_err(), "{name} flipped");
        }
        // Every single-byte change in the header region: an answer, never a panic.
        for i in 0..bytes.len().min(200) {
            let mut b = bytes.clone();
            b[i] ^= 0xff;
            let _ = check(&name, &b);
        }
    }
}

#[test]
fn a_cyclic_symbol_tree_is_refused() {
    let (name, bytes) = committed()
        .into_iter()
        .find(|(n, _)| n == "KQvKR.rtbw")
        .unwrap();
    assert_eq!(check(&name, &bytes), Ok(()));
    // The first pair symbol's first child made itself.
    let f = Bytes(&bytes);
    // Magic, flags, then order and 4 pieces: the first Huffman header at byte 10.
    let p = setup_pairs(&f, &mut 10, 1, Kind::Wdl).unwrap();
    let s = (0..p.num_syms)
        .find(|&s| children(&f, &p, s).unwrap().is_some())
        .unwrap();
    let w = (p.sym_at + 3 * s) as usize;
    let mut b = bytes.clone();
    b[w] = s as u8;
    b[w + 1] = (b[w + 1] & 0xf0) | (s >> 8) as u8;
    let err = check(&name, &b).unwrap_err();
    assert!(err.0.contains("cycle"), "{err}");
}
