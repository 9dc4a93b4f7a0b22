//! Match statistics: logistic Elo with a 95% interval, normalized Elo, likelihood of
//! superiority, pentanomial counts of game pairs, and the sequential probability ratio test.
//!
//! Conventions: scores are from the first engine's side, in [0, 1]. With game pairs (each
//! opening played with both colours) the statistics use the pair scores (pentanomial:
//! 0, 1/4, 1/2, 3/4, 1 per pair), otherwise single games (trinomial). The SPRT log-likelihood
//! ratio is the usual normal approximation `N (mu1 - mu0) (2 mu - mu0 - mu1) / (2 var)`
//! (Van den Bergh; fishtest, fastchess), with `mu0`, `mu1` from the bounds in logistic Elo
//! or in normalized Elo (empty outcome classes regularized to 1e-3 counts, as fishtest does) (`mu = 1/2 + nElo * ln10/800 * sqrt(2) sigma` for pairs,
//! `... * sigma` for games).

const Z95: f64 = 1.959_963_984_540_054;
const NELO_SCALE: f64 = 800.0 / std::f64::consts::LN_10;

/// Wins, draws, losses of one side, and pair counts `[LL, LD, DD+WL, WD, WW]`.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Tally {
    pub wins: u64,
    pub draws: u64,
    pub losses: u64,
    pub penta: [u64; 5],
}

pub fn elo_of_score(s: f64) -> f64 {
    -400.0 * (1.0 / s - 1.0).log10()
}

pub fn score_of_elo(elo: f64) -> f64 {
    1.0 / (1.0 + 10f64.powf(-elo / 400.0))
}

/// The outcome distribution used for statistics: (values, counts, per-pair?).
fn samples(t: &Tally) -> (Vec<f64>, Vec<u64>, bool) {
    if t.penta.iter().sum::<u64>() > 0 {
        (vec![0.0, 0.25, 0.5, 0.75, 1.0], t.penta.to_vec(), true)
    } else {
        (vec![0.0, 0.5, 1.0], vec![t.losses, t.draws, t.wins], false)
    }
}

/// (number of samples, mean, variance per sample, pairs?). With `regularize`, empty
/// outcome classes count 1e-3 (as fishtest does), so one-sided results still have a variance.
fn moments_of(t: &Tally, regularize: bool) -> Option<(f64, f64, f64, bool)> {
    let (v, c, pairs) = samples(t);
    if c.iter().sum::<u64>() == 0 {
        return None;
    }
    let c: Vec<f64> = c
        .iter()
        .map(|&k| if regularize && k == 0 { 1e-3 } else { k as f64 })
        .collect();
    let n: f64 = c.iter().sum();
    let mu = v.iter().zip(&c).map(|(x, k)| x * k).sum::<f64>() / n;
    let var = v
        .iter()
        .zip(&c)
        .map(|(x, k)| (x - mu).powi(2) * k)
        .sum::<f64>()
        / n;
    Some((n, mu, var, pairs))
}

fn moments(t: &Tally) -> Option<(f64, f64, f64, bool)> {
    moments_of(t, false)
}

impl Tally {
    pub fn games(&self) -> u64 {
        self.wins + self.draws + self.losses
    }

    /// Counts one game that scored `points` (1, 0.5 or 0) for this side.
    pub fn add(&mut self, points: f64) {
        if points >= 1.0 {
            self.wins += 1;
        } else if points <= 0.0 {
            self.losses += 1;
        } else {
            self.draws += 1;
        }
    }

    /// Counts one finished game pair that scored `points` (0 to 2 in halves) for this side.
    pub fn add_pair(&mut self, points: f64) {
        self.penta[(points * 2.0).round().clamp(0.0, 4.0) as usize] += 1;
    }

    pub fn score(&self) -> f64 {
        let g = self.games();
        if g == 0 {
            return 0.5;
        }
        (self.wins as f64 + self.draws as f64 / 2.0) / g as f64
    }

    /// Logistic Elo and the half-width of its 95% interval (None before any game; the
    /// interval is infinite when every game went one way).
    pub fn elo(&self) -> Option<(f64, f64)> {
        let (n, mu, var, _) = moments(self)?;
        if mu <= 0.0 || mu >= 1.0 {
            let inf = if mu >= 1.0 {
                f64::INFINITY
            } else {
                f64::NEG_INFINITY
            };
            return Some((inf, f64::INFINITY));
        }
        let se = (var / n).sqrt();
        let lo = (mu - Z95 * se).clamp(1e-9, 1.0 - 1e-9);
        let hi = (mu + Z95 * se).clamp(1e-9, 1.0 - 1e-9);
        let elo = elo_of_score(mu.clamp(1e-9, 1.0 - 1e-9)) + 0.0; // no "-0.0"
        if var <= 0.0 {
            return Some((elo, f64::INFINITY)); // identical results: no spread measured yet
        }
        Some((elo, (elo_of_score(hi) - elo_of_score(lo)) / 2.0))
    }

    /// Normalized Elo and its 95% half-width.
    pub fn nelo(&self) -> Option<(f64, f64)> {
        let (n, mu, var, pairs) = moments(self)?;
        if var <= 0.0 {
            return None;
        }
        let k = if pairs { 2f64.sqrt() } else { 1.0 };
        let sigma = var.sqrt() * k;
        Some((
            (mu - 0.5) / sigma * NELO_SCALE,
            Z95 * (var / n).sqrt() / sigma * NELO_SCALE,
        ))
    }

    /// Likelihood of superiority, from wins and losses.
    pub fn los(&self) -> f64 {
        let (w, l) = (self.wins as f64, self.losses as f64);
        if w + l == 0.0 {
            return 0.5;
        }
        0.5 * (1.0 + erf((w - l) / (2.0 * (w + l)).sqrt()))
    }
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum EloModel {
    Logistic,
    Normalized,
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sprt {
    pub elo0: f64,
    pub elo1: f64,
    pub alpha: f64,
    pub beta: f64,
    pub model: EloModel,
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Verdict {
    H0,
    H1,
    Continue,
}

impl Sprt {
    /// `elo0=0 elo1=5 alpha=0.05 beta=0.05 [model=normalized|logistic]`.
    pub fn parse(text: &str) -> Result<Sprt, String> {
        let mut s = Sprt {
            elo0: 0.0,
            elo1: 5.0,
            alpha: 0.05,
            beta: 0.05,
            model: EloModel::Normalized,
        };
        for item in text.split_whitespace() {
            let (k, v) = item
                .split_once('=')
                .ok_or_else(|| format!("--sprt: '{item}' is not key=value"))?;
            let num = || -> Result<f64, String> {
                v.parse::<f64>()
                    .ok()
                    .filter(|x| x.is_finite())
                    .ok_or_else(|| format!("--sprt: {k}={v} is not a number"))
            };
            match k {
                "elo0" => s.elo0 = num()?,
                "elo1" => s.elo1 = num()?,
                "alpha" => s.alpha = num()?,
                "beta" => s.beta = num()?,
                "model" => {
                    s.model = match v {
                        "normalized" => EloModel::Normalized,
                        "logistic" => EloModel::Logistic,
                        _ => return Err(format!("--sprt: model={v}: normalized or logistic")),
                    }
                }
                _ => return Err(format!("--sprt: unknown parameter '{k}'")),
            }
        }
        if !(s.alpha > 0.0 && s.alpha < 0.5 && s.beta > 0.0 && s.beta < 0.5) {
            return Err("--sprt: alpha and beta must be between 0 and 0.5".into());
        }
        if s.elo1 <= s.elo0 {
            return Err("--sprt: elo1 must be above elo0".into());
        }
        Ok(s)
    }

    /// (lower, upper) bounds of the LLR.
    pub fn bounds(&self) -> (f64, f64) {
        (
            (self.beta / (1.0 - self.alpha)).ln(),
            ((1.0 - self.beta) / self.alpha).ln(),
        )
    }

    pub fn llr(&self, t: &Tally) -> f64 {
        let Some((n, mu, var, pairs)) = moments_of(t, true) else {
            return 0.0;
        };
        if var <= 0.0 {
            return 0.0;
        }
        let (mu0, mu1) = match self.model {
            EloModel::Logistic => (score_of_elo(self.elo0), score_of_elo(self.elo1)),
            EloModel::Normalized => {
                let k = if pairs { 2f64.sqrt() } else { 1.0 };
                let sigma = var.sqrt() * k;
                (
                    0.5 + self.elo0 / NELO_SCALE * sigma,
                    0.5 + self.elo1 / NELO_SCALE * sigma,
                )
            }
        };
        n * (mu1 - mu0) * (2.0 * mu - mu0 - mu1) / (2.0 * var)
    }

    pub fn verdict(&self, t: &Tally) -> Verdict {
        let llr = self.llr(t);
        let (lo, hi) = self.bounds();
        if llr >= hi {
            Verdict::H1
        } else if llr <= lo {
            Verdict::H0
        } else {
            Verdict::Continue
        }
    }
}

/// The error function (Abramowitz and Stegun 7.1.26, |error| < 1.5e-7).
pub fn erf(x: f64) -> f64 {
    let t = 1.0 / (1.0 + 0.327_591_1 * x.abs());
    let y = 1.0
        - (((((1.061_405_429 * t - 1.453_152_027) * t) + 1.421_413_741) * t - 0.284_496_736) * t
            + 0.254_829_592)
            * t
            * (-x * x).exp();
    if x >= 0.0 { y } else { -y }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64, tol: f64) -> bool {
        (a - b).abs() <= tol
    }

    #[test]
    fn logistic_elo_worked_examples() {
        // A 75% score is 400 log10(3) = 190.85 Elo; 50% is 0; 64% is about 100 (the
        // expected-score table of the Elo system).
        assert!(close(elo_of_score(0.75), 190.85, 0.01));
        assert!(close(elo_of_score(0.5), 0.0, 1e-9));
        assert!(close(score_of_elo(100.0), 0.64, 0.001));
        let t = Tally {
            wins: 3,
            draws: 0,
            losses: 1,
            penta: [0; 5],
        };
        assert!(close(t.elo().map_or(0.0, |e| e.0), 190.85, 0.01));
    }

    #[test]
    fn sprt_worked_examples() {
        // fastchess `--sprt 379 10170 21828 10640 343 elo0=0 elo1=2 model=normalized`
        // (fastchess pull request #783): normalized Elo 3.05 +/- 2.31, LLR 2.946, bounds
        // (-2.94, 2.94), H1 accepted.
        let t = Tally {
            wins: 0,
            draws: 0,
            losses: 0,
            penta: [379, 10170, 21828, 10640, 343],
        };
        let s = Sprt::parse("elo0=0 elo1=2 alpha=0.05 beta=0.05 model=normalized").expect("valid");
        let (nelo, err) = t.nelo().expect("games");
        assert!(
            close(nelo, 3.05, 0.005) && close(err, 2.31, 0.005),
            "{nelo} {err}"
        );
        assert!(close(s.llr(&t), 2.946, 0.002), "{}", s.llr(&t));
        let (lo, hi) = s.bounds();
        assert!(close(lo, -2.944, 0.001) && close(hi, 2.944, 0.001));
        assert_eq!(s.verdict(&t), Verdict::H1);
        // fastchess pull request #426, case 1, bounds [0, 2] normalized:
        // W 36433 L 36027 D 68692, Ptnml 365 16618 36229 16974 390: pentanomial LLR 2.25,
        // trinomial LLR 0.92.
        let p = Tally {
            wins: 0,
            draws: 0,
            losses: 0,
            penta: [365, 16618, 36229, 16974, 390],
        };
        assert!(close(s.llr(&p), 2.25, 0.005), "{}", s.llr(&p));
        let g = Tally {
            wins: 36433,
            draws: 68692,
            losses: 36027,
            penta: [0; 5],
        };
        assert!(close(s.llr(&g), 0.92, 0.005), "{}", s.llr(&g));
    }

    #[test]
    fn los_and_erf() {
        assert!(close(erf(1.0), 0.842_700_79, 1e-6));
        let t = Tally {
            wins: 10,
            draws: 0,
            losses: 10,
            penta: [0; 5],
        };
        assert!(close(t.los(), 0.5, 1e-9));
        assert!(Sprt::parse("elo0=5 elo1=0").is_err());
        assert!(Sprt::parse("alpha=x").is_err());
    }
}
