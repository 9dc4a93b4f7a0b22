//! `tabula train`: fits the game's model (`network`) to self-play data, on the CPU, in
//! floats, with Adam, and writes it quantised.
//!
//! A linear model (`Features::LINEAR`: chess's tuned evaluation, Othello's patterns) is a weight
//! per input and bucket plus a bias per bucket, summed over the side to move's active inputs,
//! and, where `Features::bucket` gives a share below 1, mixed with bucket + 1's (tapering).
//!
//! The model: for each side an accumulator `b1 + sum of w1 rows of its active inputs`
//! (`Learn::features`), SCReLU `clamp(x, 0, 1)^2`, the output `w2 . [act(us), act(them)] + b2`
//! of the position's bucket. It is trained as a win-probability logit: the loss is
//! `(sigmoid(out) - target)^2` with `target = lambda * result + (1 - lambda) *
//! sigmoid(score / SCALE)` (result 1, 0.5, 0 from the label's sign). Weights are clipped to
//! +-1.98 so that they quantise into i16 (see `network`). Beside it, a linear psqt term per
//! input and bucket (`network`'s `TABULAN2`): the output gains half the side to move's sum of
//! its active inputs' weights less half the other side's (clipped to +-7.9 logits a weight).
//!
//! Where the label is a margin (`Learn::MARGIN_UNIT > 0`, Othello's final disc difference) the
//! model predicts it directly: the loss is `(out - target)^2` in label units with `target =
//! lambda * label + (1 - lambda) * score / MARGIN_UNIT`; exact (solver) labels equal both.
//!
//! The held-out set is every 50th game (`game % 50 == 0`), so that no position of a held-out
//! game is trained on. The network written is the one of the epoch with the lowest held-out
//! loss (rewritten whenever an epoch improves on it).

use super::format::{Data, FLAG_EXACT};
use super::network::{Network, QLOGIT, SCALE, linear_q};
use super::rng::Rng;
use super::{Features, Learn};
use crate::bits::mix;
use std::path::PathBuf;
use std::time::Instant;

mod model;

#[cfg(test)]
use model::descend;
use model::{Example, Model, forward, sigmoid, step};

#[derive(Clone, Debug)]
pub struct Config {
    pub data: Vec<PathBuf>,
    pub out: PathBuf,
    pub hidden: usize,
    pub epochs: usize,
    pub batch: usize,
    pub lr: f32,
    /// Weight of the game result in the target (the rest is the search score).
    pub lambda: f32,
    pub threads: usize,
    pub seed: u64,
    /// Start from this network instead of random weights.
    pub init: Option<PathBuf>,
    /// Stop after this many training positions per epoch (0: all).
    pub limit: usize,
    /// Decoupled weight decay (AdamW): each step shrinks every weight by `lr * decay` of
    /// itself, so that weights the data rarely touches stay near zero.
    pub decay: f32,
}

const CLIP: f32 = 1.98;
/// The psqt term's weights, within what i16 holds at `QLOGIT` per logit (a margin model's: at
/// `QL` per label unit, as its linear weights, `psqt_clip`).
const PSQT_CLIP: f32 = 7.9;

/// The psqt term's clip where its weights quantise at `ql` per unit (`linear_q`).
fn psqt_clip(ql: i32) -> f32 {
    if ql == QLOGIT {
        PSQT_CLIP
    } else {
        32000.0 / ql as f32
    }
}
/// The psqt term's learning rate, as a multiple of the network's.
const PSQT_LR: f32 = 10.0;

fn example<G: Learn, F: Features<G>>(data: &Data, i: usize, lambda: f32, ex: &mut Example) {
    let r = data.record(i);
    F::features(r.position, &mut ex.us, &mut ex.them);
    let (bucket, share) = F::bucket(r.position);
    ex.bucket = bucket.min(F::BUCKETS - 1);
    // A share for bucket + 1 only where there is one.
    ex.share = if ex.bucket + 1 < F::BUCKETS {
        share.clamp(0.0, 1.0)
    } else {
        1.0
    };
    if G::MARGIN_UNIT > 0 {
        ex.target =
            lambda * r.label as f32 + (1.0 - lambda) * r.score as f32 / G::MARGIN_UNIT as f32;
        return;
    }
    let result = match r.label.signum() {
        1 => 1.0,
        0 => 0.5,
        _ => 0.0,
    };
    ex.target = lambda * result + (1.0 - lambda) * sigmoid(r.score as f32 / SCALE as f32);
}

/// Mean loss over `set` (no gradient), on `threads` threads.
fn evaluate<G: Learn, F: Features<G>>(
    m: &Model,
    data: &Data,
    set: &[u32],
    lambda: f32,
    threads: usize,
) -> f64 {
    if set.is_empty() {
        return 0.0;
    }
    let chunk = set.len().div_ceil(threads.max(1));
    let total: f64 = std::thread::scope(|s| {
        let handles: Vec<_> = set
            .chunks(chunk)
            .map(|part| {
                s.spawn(move || {
                    let mut ex = Example::default();
                    let mut acc = vec![0.0; 2 * m.hidden];
                    part.iter()
                        .map(|&i| {
                            example::<G, F>(data, i as usize, lambda, &mut ex);
                            step(m, &ex, &mut acc, None, G::MARGIN_UNIT > 0) as f64
                        })
                        .sum::<f64>()
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap_or(0.0)).sum()
    });
    total / set.len() as f64
}

/// A margin model's mean absolute error in label units (discs) against the label, over
/// `set` and over its exactly labelled (solver) positions: (all, exact, exact count).
fn margin_errors<G: Learn, F: Features<G>>(
    m: &Model,
    data: &Data,
    set: &[u32],
) -> (f64, f64, usize) {
    let (mut all, mut exact, mut n_exact) = (0.0f64, 0.0f64, 0usize);
    let mut ex = Example::default();
    let mut acc = vec![0.0; 2 * m.hidden];
    for &i in set {
        example::<G, F>(data, i as usize, 1.0, &mut ex);
        let err = (forward(m, &ex, &mut acc) - ex.target).abs() as f64;
        all += err;
        if data.record(i as usize).flags & FLAG_EXACT != 0 {
            exact += err;
            n_exact += 1;
        }
    }
    (
        all / set.len().max(1) as f64,
        exact / n_exact.max(1) as f64,
        n_exact,
    )
}

/// Trains and writes the network; `report` receives one line per epoch (and the set sizes).
pub fn run<G: Learn, F: Features<G>>(
    start: &G,
    cfg: &Config,
    report: &dyn Fn(&str),
) -> Result<Network, String> {
    let ql = linear_q(G::MARGIN_UNIT > 0);
    let data = load_data(start, &cfg.data, report)?;
    let mut rng = Rng::new(cfg.seed);
    let (mut train, held) = split_held_out(&data);
    let mut m = initial_model::<G, F>(cfg, ql, &mut rng, report)?;
    report(&format!(
        "{} positions: {} to train on, {} held out (every 50th game); {}x{}x2x{} network",
        data.len(),
        train.len(),
        held.len(),
        m.inputs,
        m.hidden,
        m.buckets
    ));
    let threads = cfg.threads.max(1);
    let mut adam = Adam::new(&m, threads, ql);
    let mut best = F::export(m.quantise(G::NAME, ql));
    let mut best_loss = f64::INFINITY;
    for epoch in 1..=cfg.epochs {
        let began = Instant::now();
        rng.shuffle(&mut train);
        let lr = epoch_lr(cfg, epoch);
        let used = if cfg.limit > 0 {
            cfg.limit.min(train.len())
        } else {
            train.len()
        };
        let loss = train_epoch::<G, F>(&mut m, &mut adam, &data, &train[..used], cfg, epoch, lr);
        let train_loss = loss / used as f64;
        let held_loss = evaluate::<G, F>(&m, &data, &held, cfg.lambda, threads);
        let errors = held_out_errors::<G, F>(&m, &data, &held);
        report(&format!(
            "epoch {epoch}/{}: train loss {train_loss:.6}, held-out loss {held_loss:.6}{errors}, lr {lr:.5}, {:.1} s",
            cfg.epochs,
            began.elapsed().as_secs_f64()
        ));
        // Keep the network that does best on the held-out games (early stopping).
        if held_loss <= best_loss || held.is_empty() {
            best_loss = held_loss;
            best = F::export(m.quantise(G::NAME, ql));
            std::fs::write(&cfg.out, best.to_bytes())
                .map_err(|e| format!("cannot write {}: {e}", cfg.out.display()))?;
        }
    }
    report(&format!("kept the network of held-out loss {best_loss:.6}"));
    Ok(best)
}

/// Reads the data files into one set; they must hold the game's data, all of one board size.
/// Their damaged games are reported.
fn load_data<G: Learn>(
    start: &G,
    paths: &[PathBuf],
    report: &dyn Fn(&str),
) -> Result<Data, String> {
    let mut data: Option<Data> = None;
    for path in paths {
        let d = super::game_data::read(path, start)?;
        // Damaged games are skipped, never silently: the count and where, per file.
        for note in d.damage.notes(path) {
            report(&note);
        }
        if d.header.game != G::NAME || d.header.packed != G::PACKED {
            return Err(format!(
                "{} holds {} data, not {}",
                path.display(),
                d.header.game,
                G::NAME
            ));
        }
        match &mut data {
            None => data = Some(d),
            Some(all) => {
                if all.header != d.header {
                    return Err(format!("{}: another board size", path.display()));
                }
                all.bytes.extend_from_slice(&d.bytes);
            }
        }
    }
    let data = data.ok_or("no data files given")?;
    if data.is_empty() {
        return Err("the data files hold no positions".into());
    }
    Ok(data)
}

/// The record indices to train on and those held out (every 50th game's); where nothing is
/// left to train on, all are trained on and none held out.
fn split_held_out(data: &Data) -> (Vec<u32>, Vec<u32>) {
    let (mut train, mut held): (Vec<u32>, Vec<u32>) = (Vec::new(), Vec::new());
    for i in 0..data.len() {
        if data.record(i).game.is_multiple_of(50) {
            held.push(i as u32);
        } else {
            train.push(i as u32);
        }
    }
    if train.is_empty() {
        std::mem::swap(&mut train, &mut held);
    }
    (train, held)
}

/// The model to start from: `cfg.init`'s network (checked to be the game's model, widened
/// to `cfg.hidden` where that is wider), else random weights.
fn initial_model<G: Learn, F: Features<G>>(
    cfg: &Config,
    ql: i32,
    rng: &mut Rng,
    report: &dyn Fn(&str),
) -> Result<Model, String> {
    let Some(p) = &cfg.init else {
        let hidden = if F::LINEAR { 0 } else { cfg.hidden };
        return Ok(Model::new(F::INPUTS, hidden, F::BUCKETS, rng));
    };
    let bytes = std::fs::read(p).map_err(|e| format!("{}: {e}", p.display()))?;
    let net = Network::from_bytes(&bytes).map_err(|e| format!("{}: {e}", p.display()))?;
    let net = F::upgrade(net);
    if net.game != G::NAME
        || net.inputs != F::INPUTS
        || net.buckets != F::BUCKETS
        || (net.hidden == 0) != F::LINEAR
    {
        return Err(format!(
            "{}: not a {} {} model",
            p.display(),
            G::NAME,
            F::MODEL
        ));
    }
    let m = Model::from_network(&net, ql);
    if !F::LINEAR && cfg.hidden > m.hidden {
        report(&format!(
            "widening the network from {} to {} cells a side",
            m.hidden, cfg.hidden
        ));
        Ok(m.widen(cfg.hidden, rng))
    } else {
        Ok(m)
    }
}

/// The epoch's learning rate: `cfg.lr`, 0.3 of it after 60% of the epochs, 0.1 after 90%.
fn epoch_lr(cfg: &Config, epoch: usize) -> f32 {
    cfg.lr
        * if epoch * 10 > cfg.epochs * 9 {
            0.1
        } else if epoch * 10 > cfg.epochs * 6 {
            0.3
        } else {
            1.0
        }
}

/// A margin model's held-out errors as the epoch line writes them (empty for other models
/// or without a held-out set).
fn held_out_errors<G: Learn, F: Features<G>>(m: &Model, data: &Data, held: &[u32]) -> String {
    if G::MARGIN_UNIT > 0 && !held.is_empty() {
        let (all, exact, n) = margin_errors::<G, F>(m, data, held);
        format!(", held-out error {all:.2} (solver-labelled: {exact:.2} over {n})")
    } else {
        String::new()
    }
}

/// One pass over `train` (in batches of `cfg.batch`) at learning rate `lr`; returns the
/// summed loss.
fn train_epoch<G: Learn, F: Features<G>>(
    m: &mut Model,
    adam: &mut Adam,
    data: &Data,
    train: &[u32],
    cfg: &Config,
    epoch: usize,
    lr: f32,
) -> f64 {
    let mut loss = 0.0f64;
    for batch in train.chunks(cfg.batch.max(1)) {
        let (l, used_threads) =
            batch_gradients::<G, F>(m, data, batch, &mut adam.grads, cfg, epoch);
        loss += l;
        adam.update(m, lr, cfg.decay, used_threads);
    }
    loss
}

/// A batch's gradients (scaled by 1 / its size) on one thread per buffer of `grads`, each
/// buffer zeroed first; returns the batch's summed loss and how many buffers it used.
/// Examples are mirrored at random (by record and epoch).
fn batch_gradients<G: Learn, F: Features<G>>(
    model: &Model,
    data: &Data,
    batch: &[u32],
    grads: &mut [Vec<f32>],
    cfg: &Config,
    epoch: usize,
) -> (f64, usize) {
    let scale = 1.0 / batch.len() as f32;
    let part = batch.len().div_ceil(grads.len());
    let loss = std::thread::scope(|s| {
        let hs: Vec<_> = grads
            .iter_mut()
            .zip(batch.chunks(part))
            .map(|(g, chunk)| {
                s.spawn(move || {
                    g.iter_mut().for_each(|v| *v = 0.0);
                    let mut ex = Example::default();
                    let mut acc = vec![0.0; 2 * model.hidden];
                    let mut l = 0.0f64;
                    for &i in chunk {
                        example::<G, F>(data, i as usize, cfg.lambda, &mut ex);
                        if mix(u64::from(i) ^ (epoch as u64) << 40) & 1 == 1 {
                            F::mirror(&mut ex.us, &mut ex.them);
                        }
                        let margin = G::MARGIN_UNIT > 0;
                        l += step(model, &ex, &mut acc, Some((g, scale)), margin) as f64;
                    }
                    l
                })
            })
            .collect();
        hs.into_iter().map(|h| h.join().unwrap_or(0.0)).sum::<f64>()
    });
    (loss, batch.chunks(part).count())
}

/// Adam's state over the model's parameters, with one gradient buffer a thread.
struct Adam {
    am: Vec<f32>,
    av: Vec<f32>,
    /// Steps taken.
    t: i32,
    grads: Vec<Vec<f32>>,
    /// Where the output bias and the psqt term start in the parameters.
    b2_start: usize,
    psqt_start: usize,
    linear: bool,
    /// A linear model's quantisation, per unit.
    ql: i32,
}

impl Adam {
    const B1: f32 = 0.9;
    const B2: f32 = 0.999;

    fn new(m: &Model, threads: usize, ql: i32) -> Adam {
        let n = m.len();
        Adam {
            am: vec![0.0; n],
            av: vec![0.0; n],
            t: 0,
            grads: (0..threads).map(|_| vec![0.0; n]).collect(),
            b2_start: m.b2(),
            psqt_start: m.psqt_at(),
            linear: m.linear(),
            ql,
        }
    }

    /// One step (AdamW) with the sum of the first `used_threads` gradient buffers, each
    /// weight then clipped to what it quantises into.
    fn update(&mut self, m: &mut Model, lr: f32, decay: f32, used_threads: usize) {
        let (b1a, b2a) = (Self::B1, Self::B2);
        let (psqt_start, b2_start, ql) = (self.psqt_start, self.b2_start, self.ql);
        let pclip = psqt_clip(ql);
        self.t += 1;
        let c1 = 1.0 - b1a.powi(self.t);
        let c2 = 1.0 - b2a.powi(self.t);
        let (am, av) = (&mut self.am, &mut self.av);
        for i in 0..am.len() {
            let g: f32 = self.grads[..used_threads].iter().map(|g| g[i]).sum();
            am[i] = b1a * am[i] + (1.0 - b1a) * g;
            av[i] = b2a * av[i] + (1.0 - b2a) * g * g;
            // The psqt term steps as a linear model does (ten times the network's rate):
            // a queen is worth about 2.5 logits, out of reach of a network's steps.
            let lr = if i >= psqt_start { lr * PSQT_LR } else { lr };
            let upd = lr * (am[i] / c1) / ((av[i] / c2).sqrt() + 1e-8);
            let v = m.p[i] - upd - lr * decay * m.p[i];
            // Everything but the output bias must quantise into i16.
            m.p[i] = if i >= psqt_start {
                v.clamp(-pclip, pclip)
            } else if i >= b2_start {
                v
            } else if self.linear {
                // Within what i16 holds at `ql` per unit.
                v.clamp(-32000.0 / ql as f32, 32000.0 / ql as f32)
            } else {
                v.clamp(-CLIP, CLIP)
            };
        }
    }
}

#[cfg(test)]
mod tests;
