//! The HTTP side of `tabula serve`, and the only async code in tabula: a tokio runtime, the
//! accept loop (`listen.rs`: hyper's HTTP/1.1 with its head limits and timeouts), the routes
//! (`routes.rs`), the event streams (`stream.rs`), what they share (`ctx.rs`) and the
//! answers (`answer.rs`), under
//! tower-http's limits: a request body at most `MAX_BODY` bytes (413), and a whole request
//! answered within `REQUEST_TIME` (408; an event stream's body is not timed). The games
//! themselves (`Registry`, the sessions, their engine and solver threads) are blocking code below
//! this room: it calls them from the blocking pool, or for a moment under a lock; nothing
//! below imports from here.

mod answer;
mod ctx;
mod listen;
mod routes;
mod stream;

use super::heap;
use super::registry::Registry;
use axum::http::StatusCode;
use std::sync::Arc;
use std::time::Duration;
use tower_http::limit::RequestBodyLimitLayer;
use tower_http::timeout::TimeoutLayer;

/// The longest a request may take to be answered (a long poll waits at most 20 s of it).
const REQUEST_TIME: Duration = Duration::from_secs(30);
/// How often games nobody uses are looked for (and the heap's free pages given back).
const JANITOR: Duration = Duration::from_secs(30);

/// Serves `app` on `listener` until the process ends. `hosts`: the Host headers a request
/// may carry (empty: any).
pub fn serve(
    app: Arc<Registry>,
    listener: std::net::TcpListener,
    hosts: Vec<String>,
) -> Result<(), String> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .thread_name("serve")
        // Threads of the blocking pool (the actions) end soon after they have nothing to do.
        .thread_keep_alive(Duration::from_secs(2))
        .build()
        .map_err(|e| format!("serve: cannot start the runtime: {e}"))?;
    runtime.block_on(async move {
        listener
            .set_nonblocking(true)
            .map_err(|e| format!("serve: {e}"))?;
        let listener =
            tokio::net::TcpListener::from_std(listener).map_err(|e| format!("serve: {e}"))?;
        let janitor = app.clone();
        tokio::spawn(async move {
            let mut every = tokio::time::interval(JANITOR);
            loop {
                every.tick().await;
                let app = janitor.clone();
                let _ = tokio::task::spawn_blocking(move || {
                    app.expire();
                    heap::give_back_free_pages();
                })
                .await;
            }
        });
        let router = routes::router(app, hosts)
            .layer(axum::middleware::map_response(answer::common_headers))
            .layer(TimeoutLayer::with_status_code(
                StatusCode::REQUEST_TIMEOUT,
                REQUEST_TIME,
            ))
            .layer(RequestBodyLimitLayer::new(routes::MAX_BODY));
        listen::serve(listener, router).await;
        Ok(())
    })
}
