//! Where `solve` reads its positions: the one `--fen`, a file, or stdin (with a word on the
//! terminal about what it waits for), and what it says when they held no position at all.

use std::io::{BufRead, IsTerminal};

/// The input lines, numbered from 1 by the callers; a read error ends them with `Err`.
pub struct Lines {
    lines: Box<dyn Iterator<Item = Result<String, String>>>,
    /// What a line holds, for the messages.
    what: &'static str,
}

impl Lines {
    /// The lines of `fen` (one), else of `file`, else of stdin.
    pub fn open(
        fen: Option<&str>,
        file: Option<&std::path::Path>,
        what: &'static str,
    ) -> Result<Lines, String> {
        let read = |l: std::io::Result<String>| l.map_err(|e| format!("read error: {e}"));
        let lines: Box<dyn Iterator<Item = Result<String, String>>> = match (fen, file) {
            (Some(f), _) => Box::new(std::iter::once(Ok(f.to_string()))),
            (None, Some(p)) => Box::new(
                std::io::BufReader::new(
                    std::fs::File::open(p)
                        .map_err(|e| format!("cannot open {}: {e}", p.display()))?,
                )
                .lines()
                .map(read),
            ),
            (None, None) => {
                let stdin = std::io::stdin();
                if stdin.is_terminal() {
                    eprintln!(
                        "reading {what} from stdin (end with Ctrl-D; or give a file or --fen)"
                    );
                }
                Box::new(stdin.lock().lines().map(read))
            }
        };
        Ok(Lines { lines, what })
    }

    /// The error of an input that gave nothing to solve: `invalid` lines, none valid.
    pub fn nothing(&self, invalid: u32) -> String {
        if invalid > 0 {
            format!(
                "no position solved: {invalid} invalid line(s) (expected {})",
                self.what
            )
        } else {
            format!("no positions in the input (expected {})", self.what)
        }
    }
}

impl Iterator for Lines {
    type Item = Result<String, String>;
    fn next(&mut self) -> Option<Self::Item> {
        self.lines.next()
    }
}
