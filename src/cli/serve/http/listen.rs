//! The accept loop: every connection served by hyper's HTTP/1.1 with the limits that keep a
//! hostile or broken client from holding the server: the request head must arrive within
//! `HEAD_TIME` (also between requests on a kept-alive connection, so an idle one is closed),
//! be at most `MAX_HEAD` bytes with at most `MAX_HEADERS` headers (431 past either). Out of
//! file descriptors (EMFILE) or any other failed accept, the loop waits a moment and goes on:
//! it never ends while the server runs.

use axum::Router;
use hyper::server::conn::http1;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::service::TowerToHyperService;
use std::time::Duration;
use tokio::net::TcpListener;

/// The longest a request's head may take to arrive, and a kept-alive connection may idle.
const HEAD_TIME: Duration = Duration::from_secs(10);
/// The largest request head (request line and headers), in bytes.
const MAX_HEAD: usize = 64 * 1024;
/// The most headers a request may have.
const MAX_HEADERS: usize = 100;
/// The wait after a failed accept (out of descriptors: until some close).
const ACCEPT_BACKOFF: Duration = Duration::from_millis(50);

/// Serves `router` on every connection `listener` accepts, for ever.
pub async fn serve(listener: TcpListener, router: Router) {
    let mut http = http1::Builder::new();
    http.timer(TokioTimer::new())
        .header_read_timeout(HEAD_TIME)
        .max_buf_size(MAX_HEAD)
        .max_headers(MAX_HEADERS)
        // A client may close its sending side and wait for the answer.
        .half_close(true);
    loop {
        let tcp = match listener.accept().await {
            Ok((tcp, _)) => tcp,
            Err(e) => {
                // A connection reset before it was accepted is nothing; anything else
                // (EMFILE, ENFILE, ENOMEM) waits for resources to come back.
                if !matches!(
                    e.kind(),
                    std::io::ErrorKind::ConnectionAborted | std::io::ErrorKind::ConnectionReset
                ) {
                    log::warn!("serve: accept: {e}");
                    tokio::time::sleep(ACCEPT_BACKOFF).await;
                }
                continue;
            }
        };
        let _ = tcp.set_nodelay(true);
        let conn =
            http.serve_connection(TokioIo::new(tcp), TowerToHyperService::new(router.clone()));
        tokio::spawn(async move {
            // A connection's errors (a bad request head, a client gone) end only it.
            let _ = conn.await;
        });
    }
}
