//! Game records with variations, read and written: the tag pairs (`[Name "value"]`) and the
//! moves of the first game in a text as a tree. PGN's movetext rules, which tabula's records
//! of the other games share: `{...}` and `;` comments, `$n` NAGs, move numbers (`12.`
//! `12...`), a result token, `!?` suffixes, and `( ... )` variations (nested), each an
//! alternative to the move just before it. Moves are kept as written; the game's rules check
//! them later (`Session::load`). Comments and NAGs are kept with the move they follow (a
//! `!?` suffix as its NAG, `$5`), and the result token; `;` comments are dropped.
//!
//! Tree layout: node i + 1 is `moves[i]`, `(parent, text)`; 0 is the start; parents come
//! before children, and a node's first child is its main continuation.

/// A record read from text.
#[derive(Debug, Default, PartialEq)]
pub struct Parsed {
    pub tags: Vec<(String, String)>,
    pub moves: Vec<(usize, String)>,
    /// Per node (0 the start, i + 1 `moves[i]`): the `{...}` comments after it, joined.
    pub comments: Vec<String>,
    /// Per node: its NAGs, `$n` each, space-separated.
    pub nags: Vec<String>,
    /// The result token that ended the movetext, if any.
    pub result: Option<String>,
}

impl Parsed {
    pub fn tag(&self, name: &str) -> Option<&str> {
        self.tags
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
}

/// The most moves (variations included) a record may hold.
pub const MAX_MOVES: usize = 5_000;

fn tag_line(line: &str) -> Option<(String, String)> {
    let inner = line.strip_prefix('[')?.trim_end().strip_suffix(']')?;
    let (k, v) = inner.split_once(char::is_whitespace)?;
    let v = v.trim();
    let v = v.strip_prefix('"').unwrap_or(v);
    let v = v.strip_suffix('"').unwrap_or(v);
    Some((k.to_string(), v.replace("\\\"", "\"").replace("\\\\", "\\")))
}

/// Reads the first game of `text`.
pub fn parse(text: &str) -> Result<Parsed, String> {
    let mut out = Parsed {
        comments: vec![String::new()],
        nags: vec![String::new()],
        ..Parsed::default()
    };
    let mut comment = String::new();
    let mut cur = 0usize; // the node the next move follows
    let mut last = 0usize; // the last move made (a variation is an alternative to it)
    let mut stack: Vec<(usize, usize)> = Vec::new();
    let mut started = false;
    let mut ended = false;
    let mut in_comment = false;
    for (n, raw) in text.lines().enumerate() {
        let line = raw.trim();
        if line.starts_with('[') && stack.is_empty() && !in_comment {
            if started {
                break; // the next game's tags
            }
            let t = tag_line(line).ok_or_else(|| format!("line {}: not a tag pair", n + 1))?;
            out.tags.push(t);
            continue;
        }
        if line.starts_with('%') && !in_comment {
            continue;
        }
        let mut chars = line.chars().peekable();
        let mut word = String::new();
        loop {
            let ch = chars.next();
            if in_comment {
                match ch {
                    None => {
                        comment.push(' ');
                        break;
                    }
                    Some('}') => {
                        in_comment = false;
                        let c = comment.split_whitespace().collect::<Vec<_>>().join(" ");
                        comment.clear();
                        if !c.is_empty() {
                            let to = &mut out.comments[cur];
                            if !to.is_empty() {
                                to.push(' ');
                            }
                            to.push_str(&c);
                        }
                    }
                    Some(c) => comment.push(c),
                }
                continue;
            }
            let boundary = match ch {
                None => true,
                Some(c) => c.is_whitespace() || "{;()".contains(c),
            };
            if boundary && !word.is_empty() {
                let w = std::mem::take(&mut word);
                match move_token(&w) {
                    Token::Result => {
                        ended = true;
                        if stack.is_empty() {
                            out.result = Some(w);
                            return Ok(out);
                        }
                    }
                    Token::Nag(n) => add_nag(&mut out.nags[cur], &n),
                    Token::Move(mv, nag) => {
                        if ended && stack.is_empty() {
                            return Ok(out);
                        }
                        if out.moves.len() >= MAX_MOVES {
                            return Err(format!("more than {MAX_MOVES} moves"));
                        }
                        out.moves.push((cur, mv));
                        out.comments.push(String::new());
                        out.nags.push(String::new());
                        last = out.moves.len();
                        cur = last;
                        if let Some(n) = nag {
                            add_nag(&mut out.nags[cur], n);
                        }
                        started = true;
                    }
                    Token::Other => {}
                }
            }
            match ch {
                None => break,
                Some('{') => in_comment = true,
                Some(';') => break,
                Some('(') => {
                    if last == 0 {
                        return Err(format!("line {}: a variation before any move", n + 1));
                    }
                    stack.push((cur, last));
                    // An alternative to the last move: from the position before it.
                    cur = out.moves[last - 1].0;
                    started = true;
                }
                Some(')') => {
                    let (c, l) = stack
                        .pop()
                        .ok_or_else(|| format!("line {}: ')' closes no variation", n + 1))?;
                    cur = c;
                    last = l;
                }
                Some(c) if c.is_whitespace() => {}
                Some(c) => word.push(c),
            }
        }
    }
    if !stack.is_empty() {
        return Err("a variation is not closed".into());
    }
    Ok(out)
}

/// What a movetext word is.
enum Token {
    /// A move, with the NAG of its `!?` suffix.
    Move(String, Option<&'static str>),
    Nag(String),
    Result,
    /// A move number, or a lone suffix.
    Other,
}

fn add_nag(to: &mut String, nag: &str) {
    if !to.is_empty() {
        to.push(' ');
    }
    to.push_str(nag);
}

/// The suffixes' NAGs, as PGN's export format writes them.
const SUFFIXES: [(&str, &str); 6] = [
    ("!!", "$3"),
    ("??", "$4"),
    ("!?", "$5"),
    ("?!", "$6"),
    ("!", "$1"),
    ("?", "$2"),
];

fn move_token(w: &str) -> Token {
    if matches!(w, "1-0" | "0-1" | "1/2-1/2" | "*") {
        return Token::Result;
    }
    if let Some(n) = w.strip_prefix('$') {
        return match n.parse::<u16>() {
            Ok(n) => Token::Nag(format!("${n}")),
            Err(_) => Token::Other,
        };
    }
    // "12." "12..." "12.e4"
    let w = match w.rfind('.') {
        Some(i) if w[..i].chars().all(|c| c.is_ascii_digit() || c == '.') => &w[i + 1..],
        _ => w,
    };
    let bare = w.trim_end_matches(['!', '?']);
    let nag = SUFFIXES
        .iter()
        .find(|(s, _)| w.len() - bare.len() == s.len() && w.ends_with(s))
        .map(|&(_, n)| n);
    if bare.is_empty() {
        Token::Other
    } else {
        Token::Move(bare.to_string(), nag)
    }
}

/// Movetext with variations: `moves` is the tree as `Parsed` lays it out (the children of a
/// node in order, the first the main line), `number(ply)` the move number written before the
/// move at `ply` when wanted (PGN: White's moves, and Black's after an interruption).
pub struct Writer<'a> {
    pub children: &'a dyn Fn(usize) -> Vec<usize>,
    pub text: &'a dyn Fn(usize) -> String,
    pub ply: &'a dyn Fn(usize) -> usize,
    /// `(number, first player's move)` for the move at a ply, None when unnumbered.
    pub number: &'a dyn Fn(usize) -> Option<(usize, bool)>,
}

impl Writer<'_> {
    /// The movetext from node `from` on, and `result` at the end, wrapped at 79 columns.
    pub fn write(&self, from: usize, result: &str) -> String {
        let mut tokens = Vec::new();
        self.line(from, &mut tokens, true);
        tokens.push(result.to_string());
        tabula::record::wrap(&tokens)
    }

    fn numbered(&self, node: usize, force: bool, tokens: &mut Vec<String>) {
        if let Some((n, first)) = (self.number)((self.ply)(node)) {
            if first {
                tokens.push(format!("{n}."));
            } else if force {
                tokens.push(format!("{n}..."));
            }
        }
        tokens.push((self.text)(node));
    }

    fn line(&self, mut at: usize, tokens: &mut Vec<String>, mut force: bool) {
        loop {
            let kids = (self.children)(at);
            let Some((&main, others)) = kids.split_first() else {
                return;
            };
            self.numbered(main, force, tokens);
            force = false;
            for &v in others {
                tokens.push("(".into());
                self.numbered(v, true, tokens);
                self.line(v, tokens, false);
                tokens.push(")".into());
                force = true;
            }
            at = main;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn variations_comments_and_numbers() {
        let text = "[Event \"x\"]\n[White \"A \\\"B\\\"\"]\n\n1. e4 {best\n[not a tag] 2. d4} e5 (1... c5 2. Nf3 (2. c3) d6) 2.Nf3 $1 Nc6!? ; rest\n3. Bb5 1-0\n\n[Event \"next\"]\n1. d4 *";
        let p = parse(text).unwrap();
        assert_eq!(p.tag("white"), Some("A \"B\""));
        let m: Vec<(usize, &str)> = p.moves.iter().map(|(a, b)| (*a, b.as_str())).collect();
        assert_eq!(
            m,
            [
                (0, "e4"),
                (1, "e5"),
                (1, "c5"),
                (3, "Nf3"),
                (3, "c3"),
                (4, "d6"),
                (2, "Nf3"),
                (7, "Nc6"),
                (8, "Bb5"),
            ]
        );
        assert_eq!(p.comments[1], "best [not a tag] 2. d4");
        assert_eq!((p.nags[7].as_str(), p.nags[8].as_str()), ("$1", "$5"));
        assert_eq!(p.result.as_deref(), Some("1-0"));
        let p = parse("{game} 1. e4 { [%clk 0:03:00] } e5 $14 { [%clk 0:02:59] } 0-1").unwrap();
        assert_eq!(p.comments, ["game", "[%clk 0:03:00]", "[%clk 0:02:59]"]);
        assert_eq!(
            (p.nags[2].as_str(), p.result.as_deref()),
            ("$14", Some("0-1"))
        );
        assert!(parse("1. e4 )").is_err());
        assert!(parse("( e4 )").is_err());
        assert!(parse("1. e4 (1. d4").is_err());
    }

    #[test]
    fn written_and_read_back() {
        // e4 e5 (c5 Nf3 (c3) d6) Nf3, as a tree.
        let moves = [
            (0, "e4"),
            (1, "e5"),
            (1, "c5"),
            (3, "Nf3"),
            (3, "c3"),
            (4, "d6"),
            (2, "Nf3"),
        ];
        let children = |i: usize| -> Vec<usize> {
            (0..moves.len())
                .filter(|&k| moves[k].0 == i)
                .map(|k| k + 1)
                .collect()
        };
        let text = |i: usize| moves[i - 1].1.to_string();
        let ply = |mut i: usize| {
            let mut p = 0;
            while i != 0 {
                i = moves[i - 1].0;
                p += 1;
            }
            p - 1
        };
        let number = |ply: usize| Some((ply / 2 + 1, ply.is_multiple_of(2)));
        let w = Writer {
            children: &children,
            text: &text,
            ply: &ply,
            number: &number,
        };
        let s = w.write(0, "*");
        assert_eq!(s, "1. e4 e5 ( 1... c5 2. Nf3 ( 2. c3 ) 2... d6 ) 2. Nf3 *");
        let back = parse(&s).unwrap();
        let got: Vec<(usize, &str)> = back.moves.iter().map(|(a, b)| (*a, b.as_str())).collect();
        assert_eq!(got, moves);
    }
}
