//! Weights that live for the whole process, made once per distinct file content. The
//! evaluations hold `&'static` weights (no reference count on the hot path), so a loaded file is
//! leaked; this table makes that leak happen once per content, however often a GUI sets the
//! same `EvalFile` (issue 49: 300 loads of one file grew the process by 250 MB).
//!
//! Invariant: for a given type `T` and byte content, `intern` returns the same `&'static T`
//! every time, and parses (and leaks) only on the first call that succeeds.

use std::any::{Any, TypeId};
use std::collections::HashMap;
use std::sync::{Mutex, OnceLock};

type Table = HashMap<(TypeId, Vec<u8>), &'static (dyn Any + Send + Sync)>;

fn table() -> &'static Mutex<Table> {
    static TABLE: OnceLock<Mutex<Table>> = OnceLock::new();
    TABLE.get_or_init(|| Mutex::new(HashMap::new()))
}

/// The weights parsed from `bytes` by `parse`, kept for the life of the process and shared with
/// every earlier call for the same type and content. A parse error is returned and nothing kept.
pub fn intern<T: Any + Send + Sync>(
    bytes: &[u8],
    parse: impl FnOnce(&[u8]) -> Result<T, String>,
) -> Result<&'static T, String> {
    let key = (TypeId::of::<T>(), bytes.to_vec());
    // A poisoned lock only means another thread panicked while holding it; the map is still
    // a valid map (inserts are single calls), so carry on with it.
    let mut map = table().lock().unwrap_or_else(|e| e.into_inner());
    if let Some(found) = map.get(&key).and_then(|v| v.downcast_ref::<T>()) {
        return Ok(found);
    }
    let leaked: &'static T = Box::leak(Box::new(parse(bytes)?));
    map.insert(key, leaked);
    Ok(leaked)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_same_content_is_parsed_once() {
        let mut parses = 0;
        let a = intern(b"weights-a", |b| {
            parses += 1;
            Ok(b.len())
        });
        let b = intern(b"weights-a", |b| {
            parses += 1;
            Ok(b.len())
        });
        let (a, b) = (a.ok(), b.ok());
        assert!(std::ptr::eq(a.unwrap(), b.unwrap()));
        assert_eq!(parses, 1);
        let c = intern(b"weights-c", |b| Ok(b.len() + 1)).ok();
        assert_eq!(c, Some(&10));
        let bad: Result<&usize, _> = intern(b"weights-d", |_| Err("bad".to_string()));
        assert!(bad.is_err());
        // Another type with the same bytes is its own entry.
        let s = intern(b"weights-a", |_| Ok(String::from("s"))).ok();
        assert_eq!(s.map(String::as_str), Some("s"));
    }
}
