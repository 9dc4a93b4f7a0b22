//! `tabula corpus add` and `tabula corpus check` (also `tabula data --check corpus`): the
//! training corpus in the repository (`tabula::learn::corpus`), its shards and manifest.

use std::path::{Path, PathBuf};
use tabula::learn::corpus;
use tabula::learn::format::Data;

/// Reads a data file of whatever game it holds (`learn::read_data`, passed in by the caller).
pub type ReadData = dyn Fn(&Path) -> Result<Data, String>;

#[derive(clap::Args, Debug)]
pub struct CorpusArgs {
    #[command(subcommand)]
    pub action: Action,
}

#[derive(clap::Subcommand, Debug)]
pub enum Action {
    /// Compress a whole datagen file into the corpus as a new shard and list it in the
    /// manifest (a name already there is refused: shards are never rewritten).
    Add {
        /// The data file (datagen's output; a torn last game is refused: run the datagen
        /// command again with --games 0 to cut it).
        file: PathBuf,
        /// The corpus folder.
        #[arg(long, default_value = "corpus")]
        dir: PathBuf,
        /// The exact command that made the file.
        #[arg(long)]
        command: String,
        /// The commit whose release build played the games.
        #[arg(long)]
        commit: String,
        /// The sha256 of the weights that played (the embedded file's unless EvalFile).
        #[arg(long)]
        network: String,
        /// Where and when it was made, and how it was stopped.
        #[arg(long, default_value = "")]
        note: String,
    },
    /// Check every shard against the manifest: listed, sha256, size, whole, counts.
    Check {
        /// The corpus folder.
        #[arg(default_value = "corpus")]
        dir: PathBuf,
    },
}

pub fn run(a: &CorpusArgs, read_data: &ReadData) -> Result<(), String> {
    match &a.action {
        Action::Add {
            file,
            dir,
            command,
            commit,
            network,
            note,
        } => {
            let how = corpus::Provenance {
                command: command.clone(),
                commit: commit.clone(),
                network: network.clone(),
                note: note.clone(),
            };
            let s = corpus::add(dir, file, how, read_data)?;
            say!(
                "{}: {} games ({}-{}), {} positions, {} bytes, sha256 {}",
                s.file,
                s.games,
                s.first_game,
                s.last_game,
                s.positions,
                s.bytes,
                s.sha256
            );
            Ok(())
        }
        Action::Check { dir } => check(dir, read_data),
    }
}

/// Checks the corpus folder `dir`: a line per shard, a summary; an error if anything is wrong.
pub fn check(dir: &Path, read_data: &ReadData) -> Result<(), String> {
    let r = corpus::check(dir, read_data)?;
    for line in &r.lines {
        say!("{line}");
    }
    say!(
        "{}: {} shards, {} positions, {} bytes",
        dir.display(),
        r.shards,
        r.positions,
        r.bytes
    );
    if r.bad > 0 {
        return Err(format!("{}: {} problems", dir.display(), r.bad));
    }
    Ok(())
}
