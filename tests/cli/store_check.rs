//! Our own files carry their own check (issue 46, part 2), tried as a user would: real files
//! (a shard from `tabula datagen`, the committed weights and book, a checkpoint from `tabula
//! solve`) with bytes flipped or cut, then `tabula data --check`, `data`, `train`, `--merge`,
//! `datagen` resuming, `setoption EvalFile/BookFile`, `book` and `solve --checkpoint`. Every
//! case: damage is reported with where it is, skipped with a count or refused naming the file,
//! and nothing good is lost.

use super::common;
use common::EngineProc;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::Duration;

const TABULA: &str = env!("CARGO_BIN_EXE_tabula");
const T: Duration = Duration::from_secs(30);

fn tmp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("tabula-store-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("a temporary directory");
    dir
}

fn tabula(args: &[&str]) -> Output {
    Command::new(TABULA)
        .args(args)
        .output()
        .expect("tabula runs")
}

fn text(o: &Output) -> (String, String) {
    (
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

fn s(p: &Path) -> &str {
    p.to_str().expect("a UTF-8 path")
}

/// A chess shard of `games` games, made the same way each time.
fn shard(dir: &Path, name: &str, games: u32) -> PathBuf {
    let out = dir.join(name);
    let o = tabula(&[
        "datagen",
        "--out",
        s(&out),
        "--games",
        &games.to_string(),
        "--nodes",
        "300",
        "--seed",
        "5",
    ]);
    assert!(o.status.success(), "datagen: {}", text(&o).1);
    out
}

/// The offsets of the `TABULAG2` blocks of a file (by their framing).
fn block_starts(bytes: &[u8]) -> Vec<usize> {
    let mut out = Vec::new();
    let mut at = 32;
    while at + 8 <= bytes.len() {
        assert_eq!(&bytes[at..at + 4], b"GAME", "a block at byte {at}");
        out.push(at);
        let len = u32::from_le_bytes([bytes[at + 4], bytes[at + 5], bytes[at + 6], bytes[at + 7]]);
        at += 12 + len as usize;
    }
    out
}

fn check(files: &[&Path]) -> (bool, String) {
    let mut args = vec!["data", "--check"];
    args.extend(files.iter().map(|f| s(f)));
    let o = tabula(&args);
    (o.status.success(), text(&o).0)
}

#[test]
fn a_damaged_shard_block_is_skipped_and_counted_the_others_kept() {
    let dir = tmp("damaged");
    let good = shard(&dir, "good.bin", 12);
    let bytes = std::fs::read(&good).expect("written");
    let starts = block_starts(&bytes);
    assert_eq!(starts.len(), 12);
    let (ok, out) = check(&[&good]);
    assert!(ok, "{out}");
    assert!(
        out.contains(
            "ok: data TABULAG2 (chess 8x8, CRC-32 per game block): 12 game blocks ok, 0 damaged"
        ),
        "{out}"
    );
    // Bytes flipped inside game 4 (its moves) only.
    let mut bad = bytes.clone();
    for i in (starts[4] + 40..starts[5] - 8).step_by(9) {
        bad[i] ^= 0x5a;
    }
    let damaged = dir.join("bad.bin");
    std::fs::write(&damaged, &bad).expect("written");
    let (ok, out) = check(&[&good, &damaged]);
    assert!(!ok, "a damaged file must fail the check: {out}");
    assert!(out.contains("good.bin: ok"), "{out}");
    assert!(out.contains("11 game blocks ok, 1 damaged"), "{out}");
    assert!(
        out.contains(&format!(
            "damaged block at byte {} ({} bytes skipped)",
            starts[4],
            starts[5] - starts[4]
        )),
        "{out}"
    );
    // `data` counts the 11 good games and says what it skipped.
    let (out, err) = text(&tabula(&["data", s(&damaged)]));
    assert!(out.contains("from 11 games"), "{out}");
    assert!(
        err.contains(&format!("skipped 1 damaged game blocks in {}", s(&damaged))),
        "{err}"
    );
    // The trainer fits on the rest and says so.
    let w = dir.join("w.bin");
    let o = tabula(&[
        "train",
        "--data",
        s(&damaged),
        "--out",
        s(&w),
        "--epochs",
        "1",
        "--threads",
        "1",
    ]);
    let (_, err) = text(&o);
    assert!(o.status.success(), "{err}");
    assert!(err.contains("skipped 1 damaged game blocks in"), "{err}");
    // A merge takes the 11 good games and the good file's 12.
    let all = dir.join("all.bin");
    let o = tabula(&["data", s(&all), "--merge", s(&damaged), s(&good)]);
    let (out, err) = text(&o);
    assert!(o.status.success(), "{err}");
    assert!(out.contains("23 games added"), "{out}");
    assert!(err.contains("skipped 1 damaged game blocks in"), "{err}");
    let (ok, out) = check(&[&all]);
    assert!(ok && out.contains("23 game blocks ok"), "{out}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_truncated_shard_is_reported_and_made_whole_on_resume() {
    let dir = tmp("cut");
    let good = shard(&dir, "good.bin", 6);
    let bytes = std::fs::read(&good).expect("written");
    let last = *block_starts(&bytes).last().expect("blocks");
    let cut = dir.join("cut.bin");
    std::fs::write(&cut, &bytes[..bytes.len() - 30]).expect("written");
    let (ok, out) = check(&[&cut]);
    assert!(!ok, "{out}");
    assert!(out.contains("5 game blocks ok, 1 damaged"), "{out}");
    assert!(
        out.contains(&format!(
            "truncated last block at byte {last} ({} bytes)",
            bytes.len() - 30 - last
        )),
        "{out}"
    );
    let (_, err) = text(&tabula(&["data", s(&cut)]));
    assert!(err.contains("skipped 1 damaged game blocks"), "{err}");
    // Resumed, the cut game is made again: the same bytes as the uninterrupted run.
    let o = tabula(&[
        "datagen",
        "--out",
        s(&cut),
        "--games",
        "6",
        "--nodes",
        "300",
        "--seed",
        "5",
    ]);
    assert!(
        text(&o).1.contains("truncated last block"),
        "{}",
        text(&o).1
    );
    assert_eq!(std::fs::read(&cut).expect("written"), bytes);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn an_old_format_shard_is_still_read_and_continued_in_its_format() {
    let dir = tmp("old");
    let good = shard(&dir, "good.bin", 6);
    let bytes = std::fs::read(&good).expect("written");
    // TABULAG1: the same blocks without their marker and checksum.
    let mut old = b"TABULAG1".to_vec();
    old.extend_from_slice(&bytes[8..32]);
    for at in block_starts(&bytes) {
        let len = u32::from_le_bytes([bytes[at + 4], bytes[at + 5], bytes[at + 6], bytes[at + 7]]);
        old.extend_from_slice(&bytes[at + 4..at + 8 + len as usize]);
    }
    let v1 = dir.join("v1.bin");
    std::fs::write(&v1, &old).expect("written");
    let (ok, out) = check(&[&v1]);
    assert!(ok, "{out}");
    assert!(
        out.contains("data TABULAG1 (chess 8x8, no checksum: damage inside a block cannot be seen): 6 game blocks ok"),
        "{out}"
    );
    let (new_summary, _) = text(&tabula(&["data", s(&good)]));
    let (old_summary, err) = text(&tabula(&["data", s(&v1)]));
    assert_eq!(new_summary, old_summary, "the same positions from both");
    assert!(err.contains("no checksums"), "{err}");
    // datagen continues it as TABULAG1, and says so.
    let o = tabula(&[
        "datagen",
        "--out",
        s(&v1),
        "--games",
        "7",
        "--nodes",
        "300",
        "--seed",
        "5",
    ]);
    assert!(
        text(&o).1.contains("TABULAG1 (no checksums)"),
        "{}",
        text(&o).1
    );
    let after = std::fs::read(&v1).expect("written");
    assert_eq!(&after[..8], b"TABULAG1");
    assert_eq!(&after[..old.len()], &old[..]);
    let (ok, out) = check(&[&v1]);
    assert!(ok && out.contains("7 game blocks ok"), "{out}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// A copy of `file` with bytes flipped through it (every 97th from 64 on, as issue 46 did).
fn damaged_copy(file: &Path, to: &Path) {
    let mut b = std::fs::read(file).expect("readable");
    for i in (64..b.len()).step_by(97) {
        b[i] ^= 0x5a;
    }
    std::fs::write(to, b).expect("written");
}

#[test]
fn damaged_weights_and_books_are_refused_naming_the_file() {
    let dir = tmp("weights");
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let nnue = root.join("weights/chess-nnue.bin");
    let book = root.join("src/games/othello/book.bin");
    let (bad_nnue, bad_book) = (dir.join("bad.nnue"), dir.join("bad.book"));
    damaged_copy(&nnue, &bad_nnue);
    damaged_copy(&book, &bad_book);
    let (ok, out) = check(&[&nnue, &book, &root.join("weights/othello-patterns.bin")]);
    assert!(ok, "{out}");
    assert!(
        out.contains(&format!(
            "weight file TABULAN3 (CRC-32 of the whole file): chess 768x{}x8 with psqt",
            tabula::games::chess::nnue::HIDDEN
        )),
        "{out}"
    );
    assert!(
        out.contains("Othello book TBLOBK02 (CRC-32 of the whole file): 1807 positions"),
        "{out}"
    );
    for bad in [&bad_nnue, &bad_book] {
        let (ok, out) = check(&[bad]);
        assert!(!ok, "{out}");
        assert!(
            out.contains("DAMAGED") && out.contains("checksum mismatch"),
            "{out}"
        );
    }
    // Not ours at all.
    let (ok, out) = check(&[&root.join("Cargo.toml")]);
    assert!(!ok && out.contains("not a tabula file"), "{out}");

    // The engine: one error line naming the file, and the weights before it kept.
    let mut e = EngineProc::start(&[]);
    e.send("uci");
    e.expect("uciok", T);
    e.send("position startpos moves e2e4");
    e.send("eval");
    let (before, _) = e.expect("Final evaluation", T);
    e.send(&format!("setoption name EvalFile value {}", s(&bad_nnue)));
    let (line, _) = e.expect("info string", T);
    assert!(
        line.starts_with("info string error:")
            && line.contains(s(&bad_nnue))
            && line.contains("checksum mismatch"),
        "{line}"
    );
    e.send("eval");
    let (after, _) = e.expect("Final evaluation", T);
    assert_eq!(before, after, "the weights before are kept");
    e.send("quit");

    let mut e = EngineProc::start(&["--game", "othello"]);
    e.send("ugi");
    e.expect("ugiok", T);
    e.send(&format!("setoption name BookFile value {}", s(&bad_book)));
    let (line, _) = e.expect("info string", T);
    assert!(
        line.starts_with("info string error:")
            && line.contains(s(&bad_book))
            && line.contains("checksum mismatch"),
        "{line}"
    );
    e.send("isready");
    e.expect("readyok", T);
    e.send("quit");

    // Building onto a damaged book is refused, and the file left as it was.
    let before = std::fs::read(&bad_book).expect("readable");
    let o = tabula(&[
        "--game",
        "othello",
        "book",
        "--out",
        s(&bad_book),
        "--expansions",
        "1",
        "--depth",
        "2",
    ]);
    let (_, err) = text(&o);
    assert!(
        !o.status.success() && err.contains(s(&bad_book)) && err.contains("checksum mismatch"),
        "{err}"
    );
    assert_eq!(std::fs::read(&bad_book).expect("readable"), before);
    // Training from damaged weights (--init) is refused naming them.
    let data = shard(&dir, "d.bin", 2);
    let o = tabula(&[
        "train",
        "--model",
        "nnue",
        "--data",
        s(&data),
        "--init",
        s(&bad_nnue),
        "--out",
        s(&dir.join("w.bin")),
        "--epochs",
        "1",
    ]);
    let (_, err) = text(&o);
    assert!(
        !o.status.success() && err.contains(s(&bad_nnue)) && err.contains("checksum mismatch"),
        "{err}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_damaged_checkpoint_is_refused_and_not_overwritten() {
    let dir = tmp("ckpt");
    let ckpt = dir.join("6x6.ckpt");
    let solve = |path: &Path| {
        tabula(&[
            "solve",
            "--game",
            "domineering",
            "--rows",
            "6",
            "--cols",
            "6",
            "--checkpoint",
            s(path),
        ])
    };
    let o = solve(&ckpt);
    assert!(o.status.success(), "{}", text(&o).1);
    let (ok, out) = check(&[&ckpt]);
    assert!(ok, "{out}");
    assert!(
        out.contains("ok: Domineering solver checkpoint TABDOMC2 (CRC-32 of the whole file)"),
        "{out}"
    );
    let bad = dir.join("bad.ckpt");
    damaged_copy(&ckpt, &bad);
    let (ok, out) = check(&[&bad]);
    assert!(
        !ok && out.contains("DAMAGED") && out.contains("checksum mismatch"),
        "{out}"
    );
    let before = std::fs::read(&bad).expect("readable");
    let o = solve(&bad);
    let (_, err) = text(&o);
    assert!(!o.status.success(), "{err}");
    assert!(
        err.contains(&format!("checkpoint {}: checksum mismatch", s(&bad))),
        "{err}"
    );
    assert_eq!(
        std::fs::read(&bad).expect("readable"),
        before,
        "not overwritten"
    );
    // Cut short: refused too.
    std::fs::write(&bad, &before[..before.len() / 2]).expect("written");
    let (ok, out) = check(&[&bad]);
    assert!(!ok && out.contains("cut or damaged"), "{out}");
    let _ = std::fs::remove_dir_all(&dir);
}
