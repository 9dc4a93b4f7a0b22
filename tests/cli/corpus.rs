//! The training corpus in the repository (`corpus/`, `tabula::learn::corpus`): the committed
//! shards are whole and every file is listed; a shard added reads back as datagen wrote it; a
//! tampered, unlisted or torn file is found; `--first-game` carries a seed on so that two
//! shards hold the same games as one run; training twice on a committed shard gives the same
//! bytes.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const TABULA: &str = env!("CARGO_BIN_EXE_tabula");

fn run(args: &[&str]) -> Output {
    Command::new(TABULA)
        .args(args)
        .output()
        .expect("tabula runs")
}

fn text(o: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

fn tmp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("tabula-corpus-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn corpus() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus")
}

fn datagen(out: &Path, games: u32, extra: &[&str]) {
    datagen_of("chess", out, games, extra)
}

fn datagen_of(game: &str, out: &Path, games: u32, extra: &[&str]) {
    let o = Command::new(TABULA)
        .args(["datagen", "--game", game, "--out"])
        .arg(out)
        .args([
            "--games",
            &games.to_string(),
            "--seed",
            "11",
            "--nodes",
            "300",
        ])
        .args(extra)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", text(&o));
}

fn add(file: &Path, dir: &Path) -> Output {
    Command::new(TABULA)
        .args(["corpus", "add"])
        .arg(file)
        .arg("--dir")
        .arg(dir)
        .args(["--command", "test", "--commit", "test", "--network", "test"])
        .output()
        .unwrap()
}

fn check(dir: &Path) -> Output {
    Command::new(TABULA)
        .args(["data", "--check"])
        .arg(dir)
        .output()
        .unwrap()
}

/// The shards of the repository's corpus, smallest first.
fn committed() -> Vec<(PathBuf, u64)> {
    let text =
        std::fs::read_to_string(corpus().join("manifest.json")).expect("corpus/manifest.json");
    let m: serde_json::Value = serde_json::from_str(&text).expect("the manifest is JSON");
    let mut out: Vec<(PathBuf, u64)> = m["shards"]
        .as_array()
        .expect("shards")
        .iter()
        .map(|s| {
            (
                corpus().join(s["file"].as_str().expect("file")),
                s["bytes"].as_u64().expect("bytes"),
            )
        })
        .collect();
    out.sort_by_key(|s| s.1);
    out
}

#[test]
fn every_committed_shard_is_listed_and_whole() {
    let shards = committed();
    assert!(!shards.is_empty(), "the corpus lists no shard");
    let o = check(&corpus());
    let t = text(&o);
    assert!(o.status.success(), "{t}");
    for (path, _) in &shards {
        let name = path
            .strip_prefix(corpus())
            .unwrap()
            .to_string_lossy()
            .into_owned();
        assert!(
            t.contains(&format!("{name}: ok,")),
            "{name} not checked: {t}"
        );
    }
}

#[test]
fn an_added_shard_reads_back_and_damage_is_found() {
    let d = tmp("add");
    let file = d.join("chess-s11.bin");
    datagen(&file, 6, &[]);
    let plain = text(&run(&["data", file.to_str().unwrap()]));
    let dir = d.join("corpus");
    let o = add(&file, &dir);
    assert!(o.status.success(), "{}", text(&o));
    let shard = dir.join("chess/chess-s11-g000000-000005.zst");
    assert!(shard.exists(), "{}", text(&o));
    // The shard is read compressed, and says what the file said.
    let packed = text(&run(&["data", shard.to_str().unwrap()]));
    assert_eq!(packed, plain);
    assert!(check(&dir).status.success());
    // Never rewritten.
    let again = add(&file, &dir);
    assert!(!again.status.success() && text(&again).contains("never rewritten"));
    // A file that is not listed.
    let stray = dir.join("chess/stray.zst");
    std::fs::write(&stray, b"x").unwrap();
    let o = check(&dir);
    assert!(!o.status.success() && text(&o).contains("stray.zst: not in the manifest"));
    std::fs::remove_file(&stray).unwrap();
    // One byte changed.
    let mut bytes = std::fs::read(&shard).unwrap();
    let mid = bytes.len() / 2;
    bytes[mid] ^= 0x40;
    std::fs::write(&shard, &bytes).unwrap();
    let o = check(&dir);
    assert!(
        !o.status.success() && text(&o).contains("sha256"),
        "{}",
        text(&o)
    );
    // A torn last game is refused, and the datagen command with --games 0 cuts it.
    let torn = d.join("chess-s12.bin");
    datagen(&torn, 3, &[]);
    let len = std::fs::metadata(&torn).unwrap().len();
    let f = std::fs::OpenOptions::new().write(true).open(&torn).unwrap();
    f.set_len(len - 5).unwrap();
    drop(f);
    let o = add(&torn, &d.join("other"));
    assert!(
        !o.status.success() && text(&o).contains("--games 0"),
        "{}",
        text(&o)
    );
    datagen(&torn, 0, &[]);
    let o = add(&torn, &d.join("other"));
    assert!(o.status.success(), "{}", text(&o));
    assert!(text(&o).contains("2 games (0-1)"), "{}", text(&o));
    std::fs::remove_dir_all(&d).unwrap();
}

#[test]
fn a_seed_carried_on_in_a_second_shard_holds_the_same_games() {
    let d = tmp("first");
    // Othello with side lines: several blocks a game.
    let othello = |out: &Path, games: u32, extra: &[&str]| {
        let with_branches: Vec<&str> = ["--branches", "2"].iter().chain(extra).copied().collect();
        datagen_of("othello", out, games, &with_branches)
    };
    let whole = d.join("whole.bin");
    othello(&whole, 5, &[]);
    let (a, b) = (d.join("a.bin"), d.join("b.bin"));
    othello(&a, 2, &[]);
    othello(&b, 5, &["--first-game", "2"]);
    let whole_bytes = std::fs::read(&whole).unwrap();
    let (a_bytes, b_bytes) = (std::fs::read(&a).unwrap(), std::fs::read(&b).unwrap());
    // Header (32 bytes) and games 0-1, then games 2-4 behind the same header.
    assert_eq!(&b_bytes[..32], &whole_bytes[..32]);
    let joined: Vec<u8> = a_bytes.iter().chain(&b_bytes[32..]).copied().collect();
    assert_eq!(joined, whole_bytes);
    // `data --merge` of the two shards, compressed as the corpus holds them, makes the same
    // file: each game's side lines keep its index.
    let dir = d.join("corpus");
    for f in [&a, &b] {
        let o = add(f, &dir);
        assert!(o.status.success(), "{}", text(&o));
    }
    let merged = d.join("merged.bin");
    let o = run(&[
        "data",
        merged.to_str().unwrap(),
        "--merge",
        dir.join("othello/a-g000000-000001.zst").to_str().unwrap(),
        dir.join("othello/b-g000002-000004.zst").to_str().unwrap(),
    ]);
    assert!(
        o.status.success() && text(&o).contains("5 games added"),
        "{}",
        text(&o)
    );
    assert_eq!(std::fs::read(&merged).unwrap(), whole_bytes);
    std::fs::remove_dir_all(&d).unwrap();
}

#[test]
fn training_twice_on_a_committed_shard_gives_the_same_bytes() {
    let shards = committed();
    let (shard, _) = shards
        .iter()
        .find(|(p, _)| p.starts_with(corpus().join("chess")))
        .expect("a chess shard");
    let d = tmp("train");
    let mut outs = Vec::new();
    for i in 0..2 {
        let out = d.join(format!("net{i}.bin"));
        let o = Command::new(TABULA)
            .args(["train", "--model", "nnue", "--data"])
            .arg(shard)
            .args([
                "--epochs",
                "1",
                "--limit",
                "20000",
                "--threads",
                "2",
                "--out",
            ])
            .arg(&out)
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", text(&o));
        outs.push(std::fs::read(&out).unwrap());
    }
    assert!(outs[0].len() > 1000);
    assert_eq!(outs[0], outs[1], "two trainings on the same shard differ");
    std::fs::remove_dir_all(&d).unwrap();
}
