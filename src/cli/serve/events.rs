//! The messages of a session's event stream, each made once per version however many streams
//! send it: the whole state (`snapshot`) or the small message of a small change (`live`), as
//! JSON text that every stream shares. Invariant: the message of version v is made under the
//! session's lock from the state of version v; a small message is only sent to a stream that
//! was last sent the state of the same `major`, so it always applies on top of what the page
//! has.

use super::board::View;
use super::engine::EngineChoice;
use super::snapshot::{live, snapshot};
use super::state::GameState;
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

/// The kind of message for a stream that was last sent the state of `sent_major`.
fn kind_for(major: u64, sent_major: Option<u64>) -> Kind {
    if sent_major == Some(major) {
        Kind::Live
    } else {
        Kind::State
    }
}

impl Cache {
    /// The message of version `version` (of major version `major`) if it is made already:
    /// the streams after the first take it without the session's lock.
    pub fn made(&self, version: u64, major: u64, sent_major: Option<u64>) -> Option<Event> {
        let kind = kind_for(major, sent_major);
        let slot = match kind {
            Kind::State => &self.state,
            Kind::Live => &self.live,
        };
        match slot {
            Some((v, d)) if *v == version => Some(Event {
                version,
                major,
                kind,
                data: d.clone(),
            }),
            _ => None,
        }
    }

    /// The message for a stream that was last sent the state of `sent_major` (None: nothing
    /// yet): the whole state where the major version has changed since, else a small one.
    pub fn event<G: View>(
        &mut self,
        id: &str,
        inner: &GameState<G>,
        engines: &[EngineChoice],
        sent_major: Option<u64>,
    ) -> Event {
        let version = inner.version;
        let kind = kind_for(inner.major, sent_major);
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
