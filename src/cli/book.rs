//! `tabula book`: builds or extends the 8x8 Othello opening book (drop-out expansion,
//! `learn::book`) into a book file, resumably: an existing file is loaded and grown. The
//! engine plays from the embedded book (`src/games/othello/book.bin`) or from a `BookFile`.
//!
//! Killed at any moment (kill -9), a run loses at most the expansions since its last save:
//! the file is written to a temporary one and renamed, so it is always the old book or the
//! new one, whole. Every position is valued by a search from a cleared table, so a value
//! depends on the position alone; with `--total` a resumed run then ends with the very book
//! an uninterrupted one writes (`tests/cli/kill_resume.rs`).

use std::path::PathBuf;
use std::time::Instant;
use tabula::engine::Engine;
use tabula::games::othello::Othello;
use tabula::games::othello::book::Book;
use tabula::learn::book::{BuildConfig, build};
use tabula::search::Limits;

#[derive(clap::Args, Debug)]
pub struct BookArgs {
    /// The book file to write (loaded first if it exists: the run extends it).
    #[arg(long)]
    pub out: PathBuf,
    /// Positions to expand (each gets all its children valued by a search).
    #[arg(long, default_value_t = 300)]
    pub expansions: usize,
    /// --expansions counts the expanded positions the book should hold when done, those of
    /// earlier runs included: the same command resumes an interrupted run and stops where
    /// an uninterrupted one would.
    #[arg(long)]
    pub total: bool,
    /// Seconds between saves of the book during the run (0: after every expansion).
    #[arg(long, default_value_t = 60)]
    pub save_every: u64,
    /// Search depth of every valued position.
    #[arg(long, default_value_t = 14)]
    pub depth: u32,
    /// Deepest ply expanded.
    #[arg(long, default_value_t = 20)]
    pub max_plies: u32,
    /// Transposition table of the valuing search, MiB.
    #[arg(long, default_value_t = 64)]
    pub hash: u32,
}

pub fn run(args: &BookArgs) -> Result<(), String> {
    let path = args.out.to_string_lossy().into_owned();
    let book = if args.out.exists() {
        Book::load(&path)?
    } else {
        Book::default()
    };
    let start = Othello::<u64>::new(8)?;
    let mut engine = Engine::new(start.clone());
    engine.set_option("Hash", Some(&args.hash.to_string()))?;
    let limits = Limits {
        depth: Some(args.depth),
        ..Limits::default()
    };
    let mut eval = |me: u64, opp: u64| {
        // A cleared table and history: the value depends on the position alone, not on
        // the searches before it (a resumed build values as an uninterrupted one).
        engine.new_game();
        let mut pos = start.clone();
        pos.me = me;
        pos.opp = opp;
        // The side to move by the parity of the discs (a pass breaks it; the value does not
        // depend on the colour).
        pos.black_to_move = (me | opp).count_ones().is_multiple_of(2);
        engine.set_root(pos);
        let r = engine.search_now(limits.clone(), &|_| {});
        (r.score, r.depth)
    };
    let t = Instant::now();
    let before = book.len();
    let expanded = book.entries().iter().filter(|(_, n)| n.expanded).count();
    let expansions = if args.total {
        args.expansions.saturating_sub(expanded)
    } else {
        args.expansions
    };
    let cfg = BuildConfig {
        expansions,
        max_plies: args.max_plies,
    };
    let mut last_save = Instant::now();
    let added = build(&book, &cfg, &mut eval, &mut |done, size| {
        if done % 10 == 0 || done == expansions {
            eprintln!(
                "book: {done}/{expansions} expansions, {size} positions, {:.0} s",
                t.elapsed().as_secs_f64()
            );
        }
        // A checkpoint every --save-every seconds: an interrupted run loses little.
        if last_save.elapsed().as_secs() >= args.save_every {
            if let Err(e) = book.save(&path) {
                eprintln!("book: {e}");
            }
            last_save = Instant::now();
        }
    });
    book.save(&path)?;
    let root = book.get(tabula::learn::book::START.0, tabula::learn::book::START.1);
    let expanded = book.entries().iter().filter(|(_, n)| n.expanded).count();
    println!(
        "book {path}: {} positions, {expanded} expanded ({added} added to {before}) in {:.1} s; the start is worth {:+.2} discs",
        book.len(),
        t.elapsed().as_secs_f64(),
        root.map_or(0.0, |n| f64::from(n.value) / 100.0)
    );
    Ok(())
}
