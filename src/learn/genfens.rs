//! Opening positions for other machines' self-play: OpenBench's DATAGEN workers run
//! `tabula "genfens N seed S book <None|FILE> [extra]" "quit"` and take every stdout line that
//! begins `info string genfens ` as one opening (OpenBench `Client/genfens.py`); they then play
//! the games with fastchess and collect the PGNs, which `tabula data --pgn` reads back.
//!
//! The openings are the ones `tabula datagen` starts its own games from (`datagen::opening`):
//! a position of the book (or the start) and random plies (8 or 9 for chess, alternately, so
//! that both sides begin), drawn again while a 2000-node search finds them lopsided.
//!
//! Contract: the same request gives the same openings on every machine (opening `i` depends
//! only on the seed, `i`, the book and the extra settings: its own generator, a cleared
//! table); exactly N lines on success; any malformed request, unreadable book or bad extra
//! setting is an `Err` before a single opening is written.

use super::Learn;
use super::datagen::opening;
use super::rng::Rng;
use crate::bits::mix;
use crate::engine::Engine;

/// At most this many openings per request (a worker asks for games / threads of them).
pub const MAX_OPENINGS: u64 = 10_000_000;

/// A parsed `genfens` request.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Request {
    pub count: u64,
    pub seed: u64,
    /// `None` (OpenBench's word for no book) or the path of an EPD/FEN file.
    pub book: Option<String>,
    /// Random plies from the book position or the start (default: the game's own).
    pub plies: Option<u32>,
}

const GRAMMAR: &str = "genfens N seed S book <None|FILE> [plies K]";

impl Request {
    /// Reads `genfens N seed S book B [extra]`. The extra words OpenBench passes through
    /// (a workload's "genfens args") may set `plies K`; an empty extra is the default.
    pub fn parse(text: &str) -> Result<Request, String> {
        let words: Vec<&str> = text.split_whitespace().collect();
        let bad = |what: String| format!("genfens: {what} (expected: {GRAMMAR})");
        let number = |i: usize, name: &str| -> Result<u64, String> {
            let w = words.get(i).ok_or_else(|| bad(format!("missing {name}")))?;
            w.parse::<u64>()
                .map_err(|_| bad(format!("{name} must be a non-negative integer, not '{w}'")))
        };
        let keyword = |i: usize, k: &str| -> Result<(), String> {
            match words.get(i) {
                Some(w) if w.eq_ignore_ascii_case(k) => Ok(()),
                Some(w) => Err(bad(format!("unexpected '{w}' where '{k}' belongs"))),
                None => Err(bad(format!("missing '{k}'"))),
            }
        };
        keyword(0, "genfens")?;
        let count = number(1, "N")?;
        if count == 0 || count > MAX_OPENINGS {
            return Err(bad(format!(
                "N must be between 1 and {MAX_OPENINGS}, not {count}"
            )));
        }
        keyword(2, "seed")?;
        let seed = number(3, "S")?;
        keyword(4, "book")?;
        let book = match words.get(5) {
            None => return Err(bad("missing the book (None or a file)".into())),
            Some(b) if b.eq_ignore_ascii_case("none") => None,
            Some(b) => Some(b.to_string()),
        };
        let mut req = Request {
            count,
            seed,
            book,
            plies: None,
        };
        let mut i = 6;
        while i < words.len() {
            match words[i].to_ascii_lowercase().as_str() {
                "plies" => {
                    let k = number(i + 1, "plies")?;
                    if k > 200 {
                        return Err(bad(format!("plies must be at most 200, not {k}")));
                    }
                    req.plies = Some(k as u32);
                    i += 2;
                }
                w => return Err(bad(format!("unknown extra setting '{w}'"))),
            }
        }
        Ok(req)
    }
}

/// The openings of `req` as FENs, in order; `book` holds the book's positions (empty for
/// none). Each opening is handed to `emit` as soon as it is made.
pub fn generate<G: Learn>(
    start: &G,
    req: &Request,
    book: &[String],
    emit: &mut dyn FnMut(String) -> Result<(), String>,
) -> Result<(), String> {
    let mut engine = Engine::new(start.clone());
    engine.set_option("Hash", Some("4"))?;
    let start = engine.position().clone();
    let base = req.plies.unwrap_or(G::RANDOM_PLIES);
    for i in 0..req.count {
        let mut rng = Rng::new(req.seed ^ mix(i.wrapping_add(0x6765_6e66)));
        engine.new_game();
        opening(&mut engine, &start, book, base + (i % 2) as u32, &mut rng)?;
        emit(engine.position().fen())?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::chess::Chess;

    #[test]
    fn requests_parse_and_malformed_ones_are_refused() {
        let r = Request::parse("genfens 8 seed 42 book None").unwrap();
        assert_eq!(
            (r.count, r.seed, r.book.clone(), r.plies),
            (8, 42, None, None)
        );
        let r = Request::parse("genfens 3 seed 7 book Books/x.epd plies 4").unwrap();
        assert_eq!((r.book.as_deref(), r.plies), (Some("Books/x.epd"), Some(4)));
        for bad in [
            "genfens",
            "genfens x seed 1 book None",
            "genfens 0 seed 1 book None",
            "genfens 4 seeds 1 book None",
            "genfens 4 seed -1 book None",
            "genfens 4 seed 1",
            "genfens 4 seed 1 book None bogus",
            "genfens 4 seed 1 book None plies",
            "genfens 4 seed 1 book None plies 999",
        ] {
            assert!(Request::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn same_seed_same_openings_other_seed_others() {
        let run = |seed| {
            let req = Request::parse(&format!("genfens 6 seed {seed} book None")).unwrap();
            let mut out = Vec::new();
            generate(&Chess::default(), &req, &[], &mut |f| {
                out.push(f);
                Ok(())
            })
            .unwrap();
            out
        };
        let a = run(1);
        assert_eq!(a.len(), 6);
        assert_eq!(a, run(1));
        assert_ne!(a, run(2));
        let distinct: std::collections::HashSet<_> = a.iter().collect();
        assert_eq!(distinct.len(), 6);
        // 8 or 9 random plies: both sides get to move first.
        let black = a
            .iter()
            .filter(|f| f.split(' ').nth(1) == Some("b"))
            .count();
        assert_eq!(black, 3);
    }
}
