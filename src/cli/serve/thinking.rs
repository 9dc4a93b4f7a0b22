//! The engine's `info` lines as the page shows them (`Thinking`): depth, score (people's
//! notation, and as a number for the graph), nodes, speed, the principal variation checked
//! on the searched position and written in human notation, and with MultiPV each line's own
//! report. Mates are counted in moves under UCI (chess), in plies under UGI.

use super::board::human_text;
use super::state::{MAX_MULTIPV, PvLine, Thinking};
use tabula::game::Game;

/// Reads one `info` line into `t` (fields it lacks are kept); `pos` is the searched position,
/// on which the PV is checked and written in human notation. A line with `multipv k` goes to
/// `t.lines[k - 1]` (and, for k = 1, to the main report too).
pub fn read_info<G: Game>(t: &mut Thinking, line: &str, pos: &G, chess: bool) {
    let words: Vec<&str> = line.split_whitespace().collect();
    if words.get(1) == Some(&"string") {
        t.note = Some(words[2..].join(" "));
        return;
    }
    let num = |i: usize| words.get(i + 1).and_then(|w| w.parse::<u64>().ok());
    let k = words
        .windows(2)
        .find(|w| w[0] == "multipv")
        .and_then(|w| w[1].parse::<usize>().ok())
        .filter(|&k| (1..=usize::from(MAX_MULTIPV)).contains(&k));
    if words.windows(2).any(|w| w[0] == "multipv") && k.is_none() {
        return;
    }
    let mut line = k
        .and_then(|k| t.lines.get(k - 1).cloned())
        .unwrap_or_default();
    let main = k.is_none_or(|k| k == 1);
    let mut i = 1;
    while i < words.len() {
        match words[i] {
            "depth" => line.depth = num(i).map(|n| n.min(10_000) as u32),
            "seldepth" if main => t.seldepth = num(i).map(|n| n.min(10_000) as u32),
            "nodes" if main => t.nodes = num(i),
            "nps" if main => t.nps = num(i),
            "time" if main => t.time_ms = num(i),
            "score" => {
                let v = words.get(i + 2).and_then(|w| w.parse::<i64>().ok());
                let kind = words.get(i + 1).copied();
                line.score = match (kind, v) {
                    (Some("cp"), Some(cp)) => Some(format!("{:+.2}", cp as f64 / 100.0)),
                    (Some("mate"), Some(n)) if chess => Some(format!("#{n}")),
                    (Some("mate"), Some(n)) if n >= 0 => Some(format!("win in {n}")),
                    (Some("mate"), Some(n)) => Some(format!("loss in {}", -n)),
                    _ => line.score.take(),
                };
                if main {
                    match (kind, v) {
                        (Some("cp"), Some(cp)) => (t.cp, t.mate) = (Some(cp), None),
                        (Some("mate"), Some(n)) => (t.cp, t.mate) = (None, Some(n)),
                        _ => {}
                    }
                }
                i += 2;
            }
            "pv" => {
                let mut p = pos.clone();
                line.pv.clear();
                for w in words[i + 1..].iter().take(40) {
                    let Ok(mv) = p.parse_move(w) else { break };
                    line.pv.push(human_text(&p, mv));
                    p.play(mv);
                }
                break;
            }
            _ => {}
        }
        i += 1;
    }
    if main {
        if words.contains(&"depth") {
            t.depth = line.depth;
        }
        if line.score.is_some() {
            t.score = line.score.clone();
        }
        if words.contains(&"pv") {
            t.pv = line.pv.clone();
        }
    }
    if let Some(k) = k {
        if t.lines.len() < k {
            t.lines.resize(k, PvLine::default());
        }
        t.lines[k - 1] = line;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tabula::games::chess::Chess;

    #[test]
    fn info_lines() {
        let pos = Chess::default();
        let mut t = Thinking::default();
        read_info(
            &mut t,
            "info depth 7 seldepth 9 score cp 31 nodes 1234 nps 5000 time 20 pv e2e4 e7e5 g1f3 zz",
            &pos,
            true,
        );
        assert_eq!(
            (t.depth, t.seldepth, t.nodes),
            (Some(7), Some(9), Some(1234))
        );
        assert_eq!(t.score.as_deref(), Some("+0.31"));
        assert_eq!(t.pv, ["e4", "e5", "Nf3"]);
        read_info(&mut t, "info depth 8 score mate -2", &pos, true);
        assert_eq!(t.score.as_deref(), Some("#-2"));
        assert_eq!(t.pv.len(), 3, "a line without pv keeps the last");
        assert_eq!((t.cp, t.mate), (None, Some(-2)));
        read_info(
            &mut t,
            "info multipv 2 depth 9 score cp 5 pv d2d4",
            &pos,
            true,
        );
        assert_eq!(t.depth, Some(8), "only the first line is the main report");
        assert_eq!(t.lines.len(), 2);
        assert_eq!(t.lines[1].score.as_deref(), Some("+0.05"));
        assert_eq!(t.lines[1].pv, ["d4"]);
        read_info(
            &mut t,
            "info multipv 1 depth 10 score cp -12 pv g1f3",
            &pos,
            true,
        );
        assert_eq!(
            (t.depth, t.cp, t.pv.clone()),
            (Some(10), Some(-12), vec!["Nf3".to_string()])
        );
        assert_eq!(t.lines[0].pv, ["Nf3"]);
        read_info(&mut t, "info multipv 9 depth 11 score cp 1", &pos, true);
        assert_eq!(t.lines.len(), 2, "lines past the most shown are dropped");
        read_info(&mut t, "info string solved: +4", &pos, true);
        assert_eq!(t.note.as_deref(), Some("solved: +4"));
        read_info(&mut t, "info depth x score cp", &pos, false);
        assert_eq!(t.depth, None);
    }
}
