//! The routes of `tabula serve` and their handlers: the page's files, `GET /api/config`
//! (with `resume=ID`, whether that game is open),
//! `GET /api/state` (the whole state; with `since`, once its version is past it, waiting at
//! most `LONG_POLL`), `GET /api/events` (`stream.rs`) and `POST /api/<action>` (a JSON body,
//! read within `BODY_TIME`, handed to `Registry::post`: on tokio's blocking pool for the slow
//! actions, at most `MAX_ACTIONS` at once; at once for the others, so that a move is
//! answered before the streams it wakes run). The Host header is checked first (DNS
//! rebinding). Invariant: no handler blocks the event loop for longer than a game's lock is
//! held (a change, or a snapshot made).

use super::super::registry::{Failure, Registry, bad};
use super::answer::{error, ok, ok_text, respond};
use super::ctx::{Ctx, QueryFields, fields};
use super::stream;
use axum::Router;
use axum::body::Body;
use axum::extract::{Path, Request, State};
use axum::http::{HeaderMap, header};
use axum::middleware::{self, Next};
use axum::response::Response;
use axum::routing::{get, post};
use http_body_util::LengthLimitError;
use serde_json::Value;
use std::sync::Arc;
use std::time::Duration;

const PAGE: &str = include_str!("../index.html");
const SCRIPT: &str = include_str!("../app.js");
const ANALYSIS: &str = include_str!("../analysis.js");

/// The largest request body read, in bytes.
pub const MAX_BODY: usize = 64 * 1024;
/// The longest a request body may take to arrive.
const BODY_TIME: Duration = Duration::from_secs(10);
/// The longest a state request waits for a change.
const LONG_POLL: Duration = Duration::from_secs(20);
/// Slow actions handled at once; more are answered 503.
const MAX_ACTIONS: usize = 128;
/// The actions that may take long (a new game starts its engine; a record is read or
/// written): run on the blocking pool. The others only change a game under its lock.
const SLOW_ACTIONS: [&str; 2] = ["new", "export"];

/// The routes, with the Host check.
pub fn router(app: Arc<Registry>, hosts: Vec<String>) -> Router {
    let ctx = Ctx::new(app, hosts, MAX_ACTIONS);
    let js = "text/javascript; charset=utf-8";
    Router::new()
        .route(
            "/",
            get(|| async { respond(PAGE, 200, "text/html; charset=utf-8") }),
        )
        .route(
            "/index.html",
            get(|| async { respond(PAGE, 200, "text/html; charset=utf-8") }),
        )
        .route(
            "/app.js",
            get(move || async move { respond(SCRIPT, 200, js) }),
        )
        .route(
            "/analysis.js",
            get(move || async move { respond(ANALYSIS, 200, js) }),
        )
        .route(
            "/plot.js",
            get(move || async move { respond(tabula::arena::report::html::PLOT_JS, 200, js) }),
        )
        .route(
            "/favicon.ico",
            get(|| async { respond("", 204, "text/plain") }),
        )
        .route("/api/config", get(config))
        .route("/api/state", get(state))
        .route("/api/events", get(stream::events))
        .route("/api/{action}", post(action))
        .method_not_allowed_fallback(|req: Request| async move {
            error((
                405,
                format!("{} is not allowed on {}", req.method(), req.uri().path()),
            ))
        })
        .fallback(
            |req: Request| async move { error((404, format!("nothing at {}", req.uri().path()))) },
        )
        .layer(middleware::from_fn_with_state(ctx.clone(), check_host))
        .with_state(ctx)
}

/// Answers 403 to a request whose Host is not the server's own loopback address.
async fn check_host(State(ctx): State<Ctx>, req: Request, next: Next) -> Response {
    if !ctx.hosts.is_empty() {
        let host = req
            .headers()
            .get(header::HOST)
            .and_then(|h| h.to_str().ok())
            .map(str::to_ascii_lowercase);
        if !host.is_some_and(|h| ctx.hosts.contains(&h)) {
            return error((
                403,
                "this server answers only to its own loopback address".into(),
            ));
        }
    }
    next.run(req).await
}

/// The server's configuration; with `resume=ID`, also `"open"`: whether game ID is still
/// open (a reloaded page asks, rather than meet a 404 for a game closed meanwhile).
async fn config(State(ctx): State<Ctx>, q: QueryFields) -> Response {
    let mut cfg = ctx.app.config();
    match fields(q) {
        Ok(q) => {
            if let Some(id) = q.get("resume") {
                cfg["open"] = ctx.app.session(id).is_ok().into();
            }
            ok(&cfg)
        }
        Err(e) => error(e),
    }
}

async fn state(State(ctx): State<Ctx>, q: QueryFields) -> Response {
    let answer = async {
        let q = fields(q)?;
        let id = q
            .get("id")
            .ok_or_else(|| bad("state: no id= in the query"))?;
        let since = match q.get("since") {
            Some(v) => Some(
                v.parse::<u64>()
                    .map_err(|_| bad(format!("since '{v}' is not a number")))?,
            ),
            None => None,
        };
        let session = ctx.app.session(id)?;
        if let Some(since) = since {
            let mut feed = session.feed();
            let _ =
                tokio::time::timeout(LONG_POLL, feed.wait_for(|f| f.version > since || f.closed))
                    .await;
        }
        Ok::<_, Failure>(session.event(None).data.to_string())
    };
    answer.await.map_or_else(error, ok_text)
}

/// The JSON object of a POST's body (`Content-Type: application/json`, which a page of
/// another origin cannot send without asking first).
async fn read_body(headers: &HeaderMap, body: Body) -> Result<Value, Failure> {
    let json_type = headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.to_ascii_lowercase().starts_with("application/json"));
    if !json_type {
        return Err(bad("a POST must have Content-Type: application/json"));
    }
    let bytes = match tokio::time::timeout(BODY_TIME, axum::body::to_bytes(body, MAX_BODY)).await {
        Err(_) => return Err((408, format!("the body took longer than {BODY_TIME:?}"))),
        Ok(Err(e)) => {
            let e = e.into_inner();
            let too_big = e.is::<LengthLimitError>()
                || e.source().is_some_and(|s| s.is::<LengthLimitError>());
            return Err(if too_big {
                (413, format!("the body is larger than {MAX_BODY} bytes"))
            } else {
                bad(format!("cannot read the body: {e}"))
            });
        }
        Ok(Ok(b)) => b,
    };
    let v: Value =
        serde_json::from_slice(&bytes).map_err(|e| bad(format!("the body is not JSON: {e}")))?;
    if !v.is_object() {
        return Err(bad("the body must be a JSON object"));
    }
    Ok(v)
}

async fn action(
    State(ctx): State<Ctx>,
    Path(action): Path<String>,
    headers: HeaderMap,
    body: Body,
) -> Response {
    let answer = async {
        let body = read_body(&headers, body).await?;
        if !SLOW_ACTIONS.contains(&action.as_str()) {
            // A moment under the game's lock: answered here, before the event streams it
            // wakes are run.
            return ctx.app.post(&action, &body);
        }
        let permit = ctx
            .actions
            .clone()
            .try_acquire_owned()
            .map_err(|_| (503, "the server is busy; try again".to_string()))?;
        let app = ctx.app.clone();
        tokio::task::spawn_blocking(move || {
            let _permit = permit;
            app.post(&action, &body)
        })
        .await
        .map_err(|e| (500, format!("the action failed: {e}")))?
    };
    answer.await.map_or_else(error, |v| ok(&v))
}
