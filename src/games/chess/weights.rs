//! Which evaluation a chess position plays with: PeSTO's tables, the tuned linear weights or a
//! network, and where the weights come from (built in, or an `EvalFile`). Weight files are told
//! apart by their shape (a network without a hidden layer is the tuned evaluation); loaded
//! weights live for the process, made once per distinct content (`crate::interned`).

use super::hce::{self, Hce};
use super::nnue::Net;

/// Chess's evaluations: PeSTO's published tables (`eval`), the tuned one (`hce`, `EvalFile
/// <hce>`) or a network (`nnue`: the embedded one is the default, others from `EvalFile`).
#[derive(Clone, Copy, Debug)]
pub enum Eval {
    Pesto,
    Tuned(&'static Hce),
    Net(&'static Net),
}

impl Eval {
    /// The evaluation a new position plays with: the weights built in (`build.rs`:
    /// `weights/chess-nnue.bin`, or the file given to `make EVALFILE=...`), else the tuned
    /// evaluation, else PeSTO's.
    pub fn default_eval() -> Eval {
        static BUILT_IN: std::sync::OnceLock<Option<Eval>> = std::sync::OnceLock::new();
        BUILT_IN
            .get_or_init(|| {
                Eval::from_bytes(include_bytes!(concat!(env!("OUT_DIR"), "/chess-eval.bin"))).ok()
            })
            .unwrap_or_else(|| hce::embedded().map_or(Eval::Pesto, Eval::Tuned))
    }

    /// A weight file (`EvalFile`): a network or tuned weights, told apart by their shape.
    pub fn load(path: &str) -> Result<Eval, String> {
        let bytes = std::fs::read(path).map_err(|e| format!("EvalFile '{path}': {e}"))?;
        Eval::from_bytes(&bytes).map_err(|e| format!("EvalFile '{path}': {e}"))
    }

    /// Weights from a file's bytes (kept for the life of the process).
    fn from_bytes(bytes: &[u8]) -> Result<Eval, String> {
        let linear = crate::learn::network::Network::from_bytes(bytes)
            .map(|n| n.hidden == 0)
            .unwrap_or(false);
        if linear {
            crate::interned::intern(bytes, Hce::from_bytes).map(Eval::Tuned)
        } else {
            crate::interned::intern(bytes, Net::from_bytes).map(Eval::Net)
        }
    }
}
