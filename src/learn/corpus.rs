//! The training corpus in the repository (`corpus/`): immutable zstd-compressed shards of
//! self-play data, one folder a game (`corpus/chess/`, `corpus/othello/`), and a manifest
//! (`corpus/manifest.json`) that lists every shard with its sha256, size, games, positions,
//! the exact command that made it, and the commit and network that played it.
//!
//! Invariants (checked by `check`, which `tabula data --check corpus` and `tests/cli/corpus.rs`
//! run): every file under the game folders is listed and every listed file is there; each
//! file's sha256 and size are the manifest's; each decompresses whole and replays to the
//! manifest's games and positions with no damaged block; no file is over `MAX_FILE` bytes and
//! the corpus is under `MAX_TOTAL`. A shard, once listed, is never rewritten: `add` refuses a
//! name that exists. A shard is a whole data file (`game_data`), readable on its own; a seed
//! carried on over several sessions is several shards (`datagen --first-game`).

use super::compressed;
use super::format::Data;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};

/// The manifest's file name inside the corpus folder.
pub const MANIFEST: &str = "manifest.json";
/// No shard over 50 MB (the limit; GitHub warns at 50 MB).
pub const MAX_FILE: u64 = 50_000_000;
/// The whole corpus, every game's, under 300 MB.
pub const MAX_TOTAL: u64 = 300_000_000;
/// zstd's level for shards: written once, read many times.
const LEVEL: i32 = 19;

/// One shard as the manifest lists it.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct Shard {
    /// The path inside the corpus folder, `/`-separated (`chess/chess-s68-g000000-004321.zst`).
    pub file: String,
    /// The game's data name (`chess`, `othello`) and board (`8x8`).
    pub game: String,
    pub board: String,
    /// Of the compressed file, as committed.
    pub sha256: String,
    pub bytes: u64,
    /// The first and last game index it holds.
    pub first_game: u32,
    pub last_game: u32,
    pub games: u64,
    pub positions: u64,
    /// The command that made the data (datagen's, with `--first-game` where the seed goes on
    /// from an earlier shard): run again it makes the decompressed bytes.
    pub command: String,
    /// The commit whose release build played the games, and the sha256 of the weights it
    /// played with (the embedded ones unless the command gives `EvalFile`).
    pub commit: String,
    pub network: String,
    /// Where and when: the machine, the date, how it was stopped.
    pub note: String,
}

/// The manifest: every shard, in the order added.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct Manifest {
    pub shards: Vec<Shard>,
}

impl Manifest {
    /// The manifest of the corpus folder `dir` (an empty one if there is no manifest yet).
    pub fn load(dir: &Path) -> Result<Manifest, String> {
        let path = dir.join(MANIFEST);
        if !path.exists() {
            return Ok(Manifest::default());
        }
        let text =
            std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
        serde_json::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))
    }

    fn save(&self, dir: &Path) -> Result<(), String> {
        let path = dir.join(MANIFEST);
        let mut text = serde_json::to_string_pretty(self).map_err(|e| e.to_string())?;
        text.push('\n');
        let tmp = dir.join(format!("{MANIFEST}.tmp"));
        std::fs::write(&tmp, text)
            .and_then(|_| std::fs::rename(&tmp, &path))
            .map_err(|e| format!("{}: {e}", path.display()))
    }

    /// The compressed bytes of every shard.
    pub fn total_bytes(&self) -> u64 {
        self.shards.iter().map(|s| s.bytes).sum()
    }
}

/// The hex sha256 of `bytes`.
pub fn sha256_hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// What a data file holds, read as the trainer reads it.
struct Contents {
    game: String,
    board: String,
    first_game: u32,
    last_game: u32,
    games: u64,
    positions: u64,
}

fn contents(path: &Path, data: &Data) -> Result<Contents, String> {
    if data.damage.skipped > 0 || !data.damage.problems.is_empty() {
        return Err(format!(
            "{}: {} damaged or cut blocks ({}); cut a torn tail by running its datagen command again with --games 0",
            path.display(),
            data.damage.skipped,
            data.damage.problems.join("; ")
        ));
    }
    if data.damage.format != "TABULAG2" {
        return Err(format!(
            "{}: {} data; the corpus holds checked game files (TABULAG2)",
            path.display(),
            data.damage.format
        ));
    }
    let (mut lo, mut hi) = (u32::MAX, 0);
    for i in 0..data.len() {
        let g = data.record(i).game;
        lo = lo.min(g);
        hi = hi.max(g);
    }
    if data.is_empty() {
        return Err(format!("{}: no positions", path.display()));
    }
    Ok(Contents {
        game: data.header.game.clone(),
        board: format!("{}x{}", data.header.dims.0, data.header.dims.1),
        first_game: lo,
        last_game: hi,
        games: data.damage.games as u64,
        positions: data.len() as u64,
    })
}

/// What `add` needs besides the data file.
pub struct Provenance {
    pub command: String,
    pub commit: String,
    pub network: String,
    pub note: String,
}

/// Compresses the data file `input` (datagen's output, whole games only) into the corpus
/// folder `dir` as `<game>/<stem>-g<first>-<last>.zst`, and lists it in the manifest.
/// `read_data` reads a data file of whatever game it holds. Refuses a damaged file, a name
/// already there, a shard over `MAX_FILE` and a corpus that would pass `MAX_TOTAL`.
pub fn add(
    dir: &Path,
    input: &Path,
    how: Provenance,
    read_data: &dyn Fn(&Path) -> Result<Data, String>,
) -> Result<Shard, String> {
    let data = read_data(input)?;
    let c = contents(input, &data)?;
    drop(data);
    let stem = input
        .file_name()
        .and_then(|n| n.to_str())
        .map(|n| n.split('.').next().unwrap_or(n).to_string())
        .filter(|s| !s.is_empty())
        .ok_or_else(|| format!("{}: not a file name", input.display()))?;
    let name = format!(
        "{}/{stem}-g{:06}-{:06}.zst",
        c.game, c.first_game, c.last_game
    );
    let target = dir.join(&name);
    let mut manifest = Manifest::load(dir)?;
    if target.exists() || manifest.shards.iter().any(|s| s.file == name) {
        return Err(format!(
            "{}: already in the corpus (shards are never rewritten)",
            target.display()
        ));
    }
    let raw = std::fs::read(input).map_err(|e| format!("{}: {e}", input.display()))?;
    let packed = if compressed::is_compressed(input) {
        raw
    } else {
        zstd::encode_all(&raw[..], LEVEL).map_err(|e| format!("compressing: {e}"))?
    };
    let bytes = packed.len() as u64;
    if bytes > MAX_FILE {
        return Err(format!(
            "{name}: {bytes} bytes compressed, over the {MAX_FILE}-byte limit of a shard: make it from fewer games (--games)"
        ));
    }
    if manifest.total_bytes() + bytes > MAX_TOTAL {
        return Err(format!(
            "the corpus would hold {} bytes, over its {MAX_TOTAL}-byte limit",
            manifest.total_bytes() + bytes
        ));
    }
    if let Some(parent) = target.parent() {
        std::fs::create_dir_all(parent).map_err(|e| format!("{}: {e}", parent.display()))?;
    }
    std::fs::write(&target, &packed).map_err(|e| format!("{}: {e}", target.display()))?;
    let shard = Shard {
        file: name,
        game: c.game,
        board: c.board,
        sha256: sha256_hex(&packed),
        bytes,
        first_game: c.first_game,
        last_game: c.last_game,
        games: c.games,
        positions: c.positions,
        command: how.command,
        commit: how.commit,
        network: how.network,
        note: how.note,
    };
    // What was written must read back as what was counted.
    if let Err(e) = check_shard(dir, &shard, read_data) {
        let _ = std::fs::remove_file(&target);
        return Err(e);
    }
    manifest.shards.push(shard.clone());
    manifest.save(dir)?;
    Ok(shard)
}

/// One shard against its manifest entry.
fn check_shard(
    dir: &Path,
    s: &Shard,
    read_data: &dyn Fn(&Path) -> Result<Data, String>,
) -> Result<(), String> {
    let path = dir.join(&s.file);
    let bytes = std::fs::read(&path).map_err(|e| format!("{}: {e}", s.file))?;
    if bytes.len() as u64 != s.bytes {
        return Err(format!(
            "{}: {} bytes, the manifest says {}",
            s.file,
            bytes.len(),
            s.bytes
        ));
    }
    if bytes.len() as u64 > MAX_FILE {
        return Err(format!("{}: over the {MAX_FILE}-byte limit", s.file));
    }
    let sum = sha256_hex(&bytes);
    if sum != s.sha256 {
        return Err(format!(
            "{}: sha256 {sum}, the manifest says {}",
            s.file, s.sha256
        ));
    }
    if !compressed::is_compressed(&path) {
        return Err(format!("{}: not zstd-compressed", s.file));
    }
    drop(bytes);
    let data = read_data(&path).map_err(|e| format!("{}: {e}", s.file))?;
    let c = contents(&path, &data)?;
    let found = (
        c.game,
        c.board,
        c.first_game,
        c.last_game,
        c.games,
        c.positions,
    );
    let listed = (
        s.game.clone(),
        s.board.clone(),
        s.first_game,
        s.last_game,
        s.games,
        s.positions,
    );
    if found != listed {
        return Err(format!(
            "{}: holds (game, board, first, last, games, positions) {found:?}, the manifest says {listed:?}",
            s.file
        ));
    }
    Ok(())
}

/// The corpus check: one line per shard (`ok` or what is wrong), and the problems found
/// outside the shards (unlisted files, the limits).
pub struct Report {
    pub lines: Vec<String>,
    pub bad: usize,
    pub shards: usize,
    pub positions: u64,
    pub bytes: u64,
}

/// Checks the corpus folder `dir` against its manifest (see the invariants above).
pub fn check(
    dir: &Path,
    read_data: &dyn Fn(&Path) -> Result<Data, String>,
) -> Result<Report, String> {
    let manifest = Manifest::load(dir)?;
    if !dir.join(MANIFEST).exists() {
        return Err(format!(
            "{}: no {MANIFEST}: not a corpus folder",
            dir.display()
        ));
    }
    let mut r = Report {
        lines: Vec::new(),
        bad: 0,
        shards: manifest.shards.len(),
        positions: 0,
        bytes: manifest.total_bytes(),
    };
    let mut seen = std::collections::BTreeSet::new();
    for s in &manifest.shards {
        if !seen.insert(s.file.clone()) {
            r.bad += 1;
            r.lines.push(format!("{}: listed twice", s.file));
            continue;
        }
        match check_shard(dir, s, read_data) {
            Ok(()) => {
                r.positions += s.positions;
                r.lines.push(format!(
                    "{}: ok, {} {} games {}-{}, {} positions, {} bytes",
                    s.file, s.game, s.board, s.first_game, s.last_game, s.positions, s.bytes
                ));
            }
            Err(e) => {
                r.bad += 1;
                r.lines.push(e);
            }
        }
    }
    for f in files_under(dir)? {
        if !seen.contains(&f) {
            r.bad += 1;
            r.lines.push(format!("{f}: not in the manifest"));
        }
    }
    if r.bytes > MAX_TOTAL {
        r.bad += 1;
        r.lines.push(format!(
            "the corpus holds {} bytes, over {MAX_TOTAL}",
            r.bytes
        ));
    }
    Ok(r)
}

/// Every file in the game folders of `dir`, as `/`-separated paths inside it.
fn files_under(dir: &Path) -> Result<Vec<String>, String> {
    let mut out = Vec::new();
    let mut stack: Vec<(PathBuf, String)> = Vec::new();
    let entries = std::fs::read_dir(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    for e in entries.flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        if e.path().is_dir() {
            stack.push((e.path(), name));
        }
    }
    while let Some((path, rel)) = stack.pop() {
        let entries = std::fs::read_dir(&path).map_err(|e| format!("{}: {e}", path.display()))?;
        for e in entries.flatten() {
            let name = format!("{rel}/{}", e.file_name().to_string_lossy());
            if e.path().is_dir() {
                stack.push((e.path(), name));
            } else {
                out.push(name);
            }
        }
    }
    out.sort();
    Ok(out)
}
