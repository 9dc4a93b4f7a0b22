//! The board rows of the FENs of Othello, Connect Four and Domineering (chess has its own):
//! rows separated by `/`, a piece one letter, a run of empty cells its length in decimal (1 or
//! more, no leading 0, any number of digits: boards reach 16 cells a row). The games own the
//! rest (which letters, the row order, the fields after the rows); this module owns the runs
//! and the row-level error texts, so that every game reports a bad row the same way.

/// One row written from its cells, left to right (`None`: empty).
pub fn write_row(cells: impl IntoIterator<Item = Option<char>>) -> String {
    let mut s = String::new();
    let mut run = 0u32;
    for cell in cells {
        match cell {
            None => run += 1,
            Some(ch) => {
                if run > 0 {
                    s.push_str(&run.to_string());
                    run = 0;
                }
                s.push(ch);
            }
        }
    }
    if run > 0 {
        s.push_str(&run.to_string());
    }
    s
}

/// Reads row `index` (0: the first written) of `fen`, which must hold exactly `width` cells:
/// `place(column, letter)` is called for every piece, left to right, with `letter` one of
/// `letters`. Errors name the FEN and the row (counted from 1).
pub fn read_row(
    fen: &str,
    row: &str,
    index: usize,
    width: u32,
    letters: &str,
    mut place: impl FnMut(u32, char),
) -> Result<(), String> {
    let number = index + 1;
    let longer = || format!("invalid FEN '{fen}': row {number} is longer than {width}");
    let mut col = 0u32;
    let mut digits = String::new();
    let flush = |digits: &mut String, col: &mut u32| -> Result<(), String> {
        if digits.is_empty() {
            return Ok(());
        }
        let run: u32 = match run(digits) {
            Some(n) => n,
            None => {
                return Err(format!(
                    "invalid FEN '{fen}': empty run '{digits}' (1 or more, no leading 0)"
                ));
            }
        };
        digits.clear();
        *col = col.saturating_add(run);
        if *col > width {
            return Err(longer());
        }
        Ok(())
    };
    for ch in row.chars() {
        if ch.is_ascii_digit() {
            digits.push(ch);
            continue;
        }
        flush(&mut digits, &mut col)?;
        if !letters.contains(ch) {
            return Err(format!(
                "invalid FEN '{fen}': unexpected '{ch}' in row {number}"
            ));
        }
        if col >= width {
            return Err(longer());
        }
        place(col, ch);
        col += 1;
    }
    flush(&mut digits, &mut col)?;
    if col != width {
        return Err(format!(
            "invalid FEN '{fen}': row {number} has {col} cells, not {width}"
        ));
    }
    Ok(())
}

/// The length of an empty run written `digits`: 1 or more, no leading 0.
fn run(digits: &str) -> Option<u32> {
    digits
        .parse()
        .ok()
        .filter(|&n| n > 0 && !digits.starts_with('0'))
}

/// The cells of one row, left to right (`None`: empty), whatever its letters (any character
/// but a digit is a piece) and width: what a drawing of any game's board reads off its FEN
/// (chess's too). `None` for a bad run or a row of more than `max` cells.
pub fn cells(row: &str, max: u32) -> Option<Vec<Option<char>>> {
    let mut out = Vec::new();
    let mut digits = String::new();
    for ch in row.chars().chain([' ']) {
        if ch.is_ascii_digit() {
            digits.push(ch);
            continue;
        }
        if !digits.is_empty() {
            let n = run(&digits).filter(|&n| n <= max)?;
            out.extend(std::iter::repeat_n(None, n as usize));
            digits.clear();
        }
        if ch != ' ' {
            out.push(Some(ch));
        }
        if out.len() > max as usize {
            return None;
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(row: &str, width: u32) -> Result<Vec<(u32, char)>, String> {
        let mut out = Vec::new();
        read_row("f", row, 0, width, "xo", |c, ch| out.push((c, ch)))?;
        Ok(out)
    }

    #[test]
    fn rows_round_trip() {
        let cells = [None, Some('x'), None, None, Some('o'), None];
        let row = write_row(cells);
        assert_eq!(row, "1x2o1");
        assert_eq!(read(&row, 6), Ok(vec![(1, 'x'), (4, 'o')]));
        // Runs past 9 on wide boards.
        assert_eq!(write_row([None; 12].into_iter().chain([Some('x')])), "12x");
        assert_eq!(read("12x3", 16), Ok(vec![(12, 'x')]));
    }

    #[test]
    fn cells_of_any_row() {
        assert_eq!(cells("1x2o1", 16), Some(read_cells("1x2o1")));
        assert_eq!(cells("rnbqkbnr", 8).map(|c| c.len()), Some(8));
        assert_eq!(cells("12P", 16).map(|c| c.len()), Some(13));
        for bad in ["0x", "07", "99999999999", "17", "xxxxxxxxx"] {
            assert_eq!(
                cells(bad, if bad.len() == 9 { 8 } else { 16 }),
                None,
                "{bad}"
            );
        }
    }

    fn read_cells(row: &str) -> Vec<Option<char>> {
        let mut out = vec![None; 6];
        read_row("f", row, 0, 6, "xo", |c, ch| out[c as usize] = Some(ch)).unwrap();
        out
    }

    #[test]
    fn bad_rows_are_errors() {
        for (row, what) in [
            ("0x5", "empty run '0'"),
            ("07", "empty run '07'"),
            ("99999999999", "empty run"),
            ("x6", "longer than 6"),
            ("xxxxxxx", "longer than 6"),
            ("5", "has 5 cells, not 6"),
            ("3q2", "unexpected 'q' in row 1"),
        ] {
            let e = read(row, 6).expect_err(row);
            assert!(e.contains(what), "{row}: {e}");
        }
    }
}
