//! The answers of the HTTP side: JSON with a status, the embedded page's files, errors as
//! `{"error": "..."}`, and the headers every answer carries (no caching, no type sniffing).
//! Invariant: nothing a client sends is echoed into a header.

use super::super::registry::Failure;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde_json::{Value, json};

/// An answer with a body of `content_type`.
pub fn respond(
    body: impl Into<axum::body::Body>,
    status: u16,
    content_type: &'static str,
) -> Response {
    let status = StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    (
        status,
        [(header::CONTENT_TYPE, HeaderValue::from_static(content_type))],
        body.into(),
    )
        .into_response()
}

pub fn ok(v: &Value) -> Response {
    respond(v.to_string(), 200, "application/json")
}

/// A JSON text made elsewhere (a cached state).
pub fn ok_text(text: String) -> Response {
    respond(text, 200, "application/json")
}

pub fn error((status, why): Failure) -> Response {
    respond(
        json!({ "error": why }).to_string(),
        status,
        "application/json",
    )
}

/// Adds the headers every answer carries.
pub async fn common_headers(mut r: Response) -> Response {
    let h = r.headers_mut();
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    h.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    r
}
