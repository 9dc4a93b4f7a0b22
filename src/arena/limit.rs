//! The limit each engine moves under in a match (`--tc`, `--movetime`, `--depth`, `--nodes`,
//! or an engine's own `tc=`): its parsing and what it tells the engine. Below both the engine
//! child (which reads an engine's own limit) and the referee (which keeps the clocks).

/// How long each move may take.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Limit {
    /// `moves` per period (None: the whole game), base and increment in ms.
    Clock {
        moves: Option<u32>,
        base_ms: u64,
        inc_ms: u64,
    },
    MoveTime(u64),
    Depth(u32),
    Nodes(u64),
}

impl Limit {
    /// `10+0.1`, `40/60+0.5`, `60` (seconds).
    pub fn parse_tc(s: &str) -> Result<Limit, String> {
        let bad =
            || format!("time control '{s}': expected [moves/]seconds[+increment], e.g. 10+0.1");
        let (moves, rest) = match s.split_once('/') {
            Some((m, r)) => (
                Some(m.parse::<u32>().ok().filter(|&m| m > 0).ok_or_else(bad)?),
                r,
            ),
            None => (None, s),
        };
        let (base, inc) = rest.split_once('+').unwrap_or((rest, "0"));
        let secs = |t: &str| -> Result<u64, String> {
            let v: f64 = t.parse().map_err(|_| bad())?;
            if !(0.0..=1e7).contains(&v) {
                return Err(bad());
            }
            Ok((v * 1000.0).round() as u64)
        };
        let (base_ms, inc_ms) = (secs(base)?, secs(inc)?);
        if base_ms == 0 && inc_ms == 0 {
            return Err(bad());
        }
        Ok(Limit::Clock {
            moves,
            base_ms,
            inc_ms,
        })
    }

    pub fn describe(&self) -> String {
        match *self {
            Limit::Clock {
                moves,
                base_ms,
                inc_ms,
            } => {
                let m = moves.map(|m| format!("{m}/")).unwrap_or_default();
                format!("{m}{}+{}", base_ms as f64 / 1000.0, inc_ms as f64 / 1000.0)
            }
            Limit::MoveTime(ms) => format!("movetime {ms} ms"),
            Limit::Depth(d) => format!("depth {d}"),
            Limit::Nodes(n) => format!("nodes {n}"),
        }
    }
}
