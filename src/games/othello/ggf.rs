//! GGF (Generic Game Format) game records as NBoard sends them with `set game`:
//! `(;GM[Othello]PC[..]..TY[8]BO[8 <64 squares> <side>]B[F5]W[F6//1.2]..;)`. Parsed with nom
//! into properties; `BO` gives the start (`*` Black, `O` White, `-` empty), then `B`/`W`
//! moves in order (`PA` is a pass; anything after `/` is an eval or time and is ignored).

use nom::{
    IResult, Parser,
    bytes::complete::{tag, take_till, take_while1},
    character::complete::multispace0,
    multi::many0,
    sequence::{delimited, preceded},
};

/// The `NAME[value]` properties of the first game in `text`, in order.
pub fn properties(text: &str) -> Result<Vec<(&str, &str)>, String> {
    let start = text.find("(;").ok_or("GGF: no '(;' opening the game")?;
    let body = &text[start + 2..];
    let prop = |i| -> IResult<&str, (&str, &str)> {
        (
            preceded(multispace0, take_while1(|c: char| c.is_ascii_uppercase())),
            delimited(tag("["), take_till(|c| c == ']'), tag("]")),
        )
            .parse(i)
    };
    let (rest, props) = many0(prop).parse(body).map_err(|e| format!("GGF: {e}"))?;
    let rest = rest.trim_start();
    if !rest.starts_with(";)") {
        let near: String = rest.chars().take(20).collect();
        return Err(format!(
            "GGF: unexpected '{near}' (expected NAME[value] or ';)')"
        ));
    }
    Ok(props)
}

/// The board (`n`, squares row by row as `x`/`o`/`-`, Black to move?) and the moves of a GGF
/// game.
#[derive(Debug)]
pub struct GgfGame {
    pub n: u32,
    pub squares: Vec<char>,
    pub black_to_move: bool,
    pub moves: Vec<String>,
}

pub fn parse(text: &str) -> Result<GgfGame, String> {
    let props = properties(text)?;
    let bo = props
        .iter()
        .find(|(k, _)| *k == "BO")
        .map(|(_, v)| *v)
        .ok_or("GGF: no BO[] board")?;
    let mut parts = bo.split_whitespace();
    let n: u32 = parts
        .next()
        .and_then(|s| s.parse().ok())
        .filter(|n| (4..=16).contains(n))
        .ok_or("GGF: BO[] must start with the board size (4..16)")?;
    let squares: Vec<char> = parts
        .next()
        .ok_or("GGF: BO[] has no squares")?
        .chars()
        .collect();
    if squares.len() != (n * n) as usize {
        return Err(format!(
            "GGF: BO[] has {} squares, not {}",
            squares.len(),
            n * n
        ));
    }
    let squares = squares
        .into_iter()
        .map(|c| match c {
            '*' | 'X' | 'x' | 'B' => Ok('x'),
            'O' | 'o' | 'W' => Ok('o'),
            '-' | '.' => Ok('-'),
            other => Err(format!("GGF: unexpected square '{other}' in BO[]")),
        })
        .collect::<Result<Vec<_>, _>>()?;
    let black_to_move = match parts.next() {
        Some("*") | Some("X") | Some("B") => true,
        Some("O") | Some("W") => false,
        other => return Err(format!("GGF: BO[] side to move {other:?} is not * or O")),
    };
    let moves = props
        .iter()
        .filter(|(k, _)| *k == "B" || *k == "W")
        .map(|(_, v)| v.split('/').next().unwrap_or("").trim().to_string())
        .collect();
    Ok(GgfGame {
        n,
        squares,
        black_to_move,
        moves,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nboard_example() {
        let g = parse("(;GM[Othello]PC[NBoard]DT[2014-02-21 20:52:27 GMT]PB[./mEdax]PW[chris]RE[?]TI[15:00]TY[8]BO[8 ---------------------------O*------*O--------------------------- *]B[F5]W[F6]B[D3//1.5]W[C5]B[E6]W[F7]B[E7]W[F4];)").unwrap();
        assert_eq!(g.n, 8);
        assert!(g.black_to_move);
        assert_eq!(g.moves, ["F5", "F6", "D3", "C5", "E6", "F7", "E7", "F4"]);
        assert_eq!(g.squares[27], 'o');
        assert_eq!(g.squares[28], 'x');
        assert!(
            parse("(;GM[Othello]BO[8 --- *];)")
                .unwrap_err()
                .contains("squares")
        );
        assert!(parse("GM[Othello]").is_err());
        assert!(parse("(;GM[Othello]BO[8 ").is_err());
        assert!(parse("(;GM[Othello];)").unwrap_err().contains("BO"));
        // Found by fuzzing (fuzz/artifacts/parsers/crash-ba0a6794...): a huge size overflowed
        // the square count.
        assert!(
            parse("(;GM[Othello]BO[865536 -\r- *];)")
                .unwrap_err()
                .contains("board size")
        );
        assert!(parse("(;GM[Othello]BO[4294967295 - *];)").is_err());
    }
}
