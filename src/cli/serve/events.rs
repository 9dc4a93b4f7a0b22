//! The messages of a session's event stream, each made once per version however many streams
//! send it: the whole state (`snapshot`) or the small message of a small change (`live`), as
//! JSON text that every stream shares. Invariant: the message of version v is made under the
//! session's lock from the state of version v; a small message is only sent to a stream that
//! was last sent the state of the same `major`, so it always applies on top of what the page
//! has.

use super::board::View;
use super::engine::EngineChoice;
use super::snapshot::{live, snapshot};
use super::state::Inner;
use std::sync::Arc;

/// The two kinds of message.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// The whole state.
    State,
    /// The engine, the solver and the changed nodes, on top of the state of `major`.
    Live,
}

/// One message of a stream.
#[derive(Clone, Debug)]
pub struct Event {
    pub version: u64,
    pub major: u64,
    pub kind: Kind,
    pub data: Arc<str>,
}

/// The latest message of each kind, with its version.
#[derive(Default)]
pub struct Cache {
    state: Option<(u64, Arc<str>)>,
    live: Option<(u64, Arc<str>)>,
}

impl Cache {
    /// The message for a stream that was last sent the state of `sent_major` (None: nothing
    /// yet): the whole state where the major version has changed since, else a small one.
    pub fn event<G: View>(
        &mut self,
        id: &str,
        inner: &Inner<G>,
        engines: &[EngineChoice],
        sent_major: Option<u64>,
    ) -> Event {
        let version = inner.version;
        let kind = if sent_major == Some(inner.major) {
            Kind::Live
        } else {
            Kind::State
        };
        let slot = match kind {
            Kind::State => &mut self.state,
            Kind::Live => &mut self.live,
        };
        let data = match slot {
            Some((v, d)) if *v == version => d.clone(),
            _ => {
                let d: Arc<str> = match kind {
                    Kind::State => snapshot(id, inner, engines),
                    Kind::Live => live(inner, engines),
                }
                .to_string()
                .into();
                *slot = Some((version, d.clone()));
                d
            }
        };
        Event {
            version,
            major: inner.major,
            kind,
            data,
        }
    }
}
