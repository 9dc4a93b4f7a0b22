//! `tabula book`: builds or extends the 8x8 Othello opening book (drop-out expansion,
//! `learn::book`) into a book file, resumably: an existing file is loaded and grown. The
//! engine plays from the embedded book (`src/games/othello/book.bin`) or from a `BookFile`.

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
    let cfg = BuildConfig {
        expansions: args.expansions,
        max_plies: args.max_plies,
    };
    let mut last_save = Instant::now();
    let added = build(&book, &cfg, &mut eval, &mut |done, size| {
        if done % 10 == 0 || done == args.expansions {
            eprintln!(
                "book: {done}/{} expansions, {size} positions, {:.0} s",
                args.expansions,
                t.elapsed().as_secs_f64()
            );
        }
        // A checkpoint every minute: an interrupted run loses little.
        if last_save.elapsed().as_secs() >= 60 {
            if let Err(e) = book.save(&path) {
                eprintln!("book: {e}");
            }
            last_save = Instant::now();
        }
    });
    book.save(&path)?;
    let root = book.get(tabula::learn::book::START.0, tabula::learn::book::START.1);
    println!(
        "book {path}: {} positions ({added} added to {before}) in {:.1} s; the start is worth {:+.2} discs",
        book.len(),
        t.elapsed().as_secs_f64(),
        root.map_or(0.0, |n| f64::from(n.value) / 100.0)
    );
    Ok(())
}
