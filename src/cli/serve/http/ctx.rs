//! What every handler of the HTTP side shares (`Ctx`: the games, the Host headers allowed,
//! the permits of the slow actions), and the reading of a query string into its fields.
//! Below the routes and the streams; imports neither.

use super::super::registry::{Failure, Registry, bad};
use axum::extract::Query;
use axum::extract::rejection::QueryRejection;
use std::collections::HashMap;
use std::sync::Arc;
use tokio::sync::Semaphore;

/// What the handlers share.
#[derive(Clone)]
pub struct Ctx {
    pub app: Arc<Registry>,
    /// The Host headers a request may carry; empty: any.
    pub hosts: Arc<Vec<String>>,
    /// Slow actions at once: one permit each.
    pub actions: Arc<Semaphore>,
}

impl Ctx {
    pub fn new(app: Arc<Registry>, hosts: Vec<String>, max_actions: usize) -> Ctx {
        Ctx {
            app,
            hosts: Arc::new(hosts),
            actions: Arc::new(Semaphore::new(max_actions)),
        }
    }
}

/// A query string as the handlers take it (its rejection is theirs to answer).
pub type QueryFields = Result<Query<HashMap<String, String>>, QueryRejection>;

/// The query's fields, or a 400.
pub fn fields(q: QueryFields) -> Result<HashMap<String, String>, Failure> {
    q.map(|Query(m)| m)
        .map_err(|e| bad(format!("a bad query: {e}")))
}
