//! `GET /api/events?id=ID`: a game's live updates as server-sent events, one ordered stream
//! per page. It waits on the game's watch channel, so a burst of changes (the engine's `info`
//! lines) is sent as the latest state, never queued; each message is `state` (the whole
//! state: at the start, and after any change of the tree, the position or the settings) or
//! `live` (the engine, the solver and the nodes whose score changed, on top of the last
//! `state`), with the state's version as its id; `closed` ends the stream when the game is
//! closed. A page reconnecting with `Last-Event-ID` equal to the version now is sent nothing
//! until the next change; with any other, the whole state. Small messages are sent at most
//! every `LIVE_EVERY` on a stream (the engine's report is read by people), the whole state at
//! once. Invariant: versions on a stream only rise.

use super::super::events::Kind;
use super::super::registry::{Failure, Watch, bad};
use super::super::session::Session;
use super::super::state::Feed;
use super::answer::error;
use super::ctx::{Ctx, QueryFields, fields};
use axum::extract::State;
use axum::http::HeaderMap;
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use futures_util::stream;
use std::convert::Infallible;
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::sync::watch;

/// A comment line this often keeps proxies from closing a quiet stream, and finds a page
/// that has gone.
const KEEP_ALIVE: Duration = Duration::from_secs(15);
/// The least time between two small messages on a stream.
const LIVE_EVERY: Duration = Duration::from_millis(200);
/// How long the page's EventSource waits before it reconnects after a drop, in ms.
const RETRY_MS: u64 = 1000;

/// One page's stream.
struct Follower {
    session: Arc<dyn Session>,
    feed: watch::Receiver<Feed>,
    /// The version and the major version of the last message sent.
    sent: Option<(u64, u64)>,
    /// `retry:` is sent with the first message.
    first: bool,
    /// When the last small message was sent.
    last_live: Option<Instant>,
    done: bool,
    /// Counts this stream as a watcher of the game while it lives.
    _watch: Watch,
}

impl Follower {
    /// The next message: as soon as the version differs from the last one sent.
    async fn next(mut self) -> Option<(Result<Event, Infallible>, Follower)> {
        if self.done {
            return None;
        }
        loop {
            let feed = *self.feed.borrow_and_update();
            if feed.closed {
                self.done = true;
                let e = Event::default().event("closed").data("{}");
                return Some((Ok(e), self));
            }
            if self.sent.map(|s| s.0) != Some(feed.version) {
                // A small change soon after the last: wait, and send the latest.
                if self.sent.map(|s| s.1) == Some(feed.major)
                    && let Some(t) = self.last_live
                    && t.elapsed() < LIVE_EVERY
                {
                    tokio::time::sleep_until((t + LIVE_EVERY).into()).await;
                    continue;
                }
                let ev = self.session.event(self.sent.map(|s| s.1));
                self.sent = Some((ev.version, ev.major));
                if ev.kind == Kind::Live {
                    self.last_live = Some(Instant::now());
                }
                let mut e = Event::default()
                    .id(ev.version.to_string())
                    .event(match ev.kind {
                        Kind::State => "state",
                        Kind::Live => "live",
                    })
                    .data(&*ev.data);
                if std::mem::take(&mut self.first) {
                    e = e.retry(Duration::from_millis(RETRY_MS));
                }
                return Some((Ok(e), self));
            }
            if self.feed.changed().await.is_err() {
                return None;
            }
        }
    }
}

pub async fn events(State(ctx): State<Ctx>, headers: HeaderMap, q: QueryFields) -> Response {
    let opened = || -> Result<Follower, Failure> {
        let q = fields(q)?;
        let id = q
            .get("id")
            .ok_or_else(|| bad("events: no id= in the query"))?;
        let (session, watch) = ctx.app.watch(id)?;
        let feed = session.feed();
        let now = *feed.borrow();
        // A page that has the state of the version now needs nothing yet.
        let last = headers
            .get("last-event-id")
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.trim().parse::<u64>().ok());
        let sent = (last == Some(now.version)).then_some((now.version, now.major));
        Ok(Follower {
            session,
            feed,
            sent,
            first: true,
            last_live: None,
            done: false,
            _watch: watch,
        })
    };
    match opened() {
        Ok(f) => Sse::new(stream::unfold(f, Follower::next))
            .keep_alive(KeepAlive::new().interval(KEEP_ALIVE))
            .into_response(),
        Err(e) => error(e),
    }
}
