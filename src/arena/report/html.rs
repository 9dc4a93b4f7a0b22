//! The report page: `template.html` with the shared plotting script (`plot.js`), the page's
//! own script (`page.js`) and the data (JSON, in a `<script type="application/json">`) put
//! in; no network, nothing outside the one file. Written atomically: to `FILE.tmp`, then
//! renamed over `FILE`, so that a browser reloading mid-match never sees half a page.

use serde_json::Value;
use std::path::Path;

const TEMPLATE: &str = include_str!("template.html");
/// The plots (Elo with its interval, LLR with its bounds, lines of time): used by the report
/// and served to the browser board (`/plot.js`) for its "Watch a match" view.
pub const PLOT_JS: &str = include_str!("plot.js");
const PAGE_JS: &str = include_str!("page.js");
/// Seconds between reloads of a page whose match is still running.
const REFRESH_S: u32 = 5;

/// The id of the data's `<script>` element (tests read the data from it).
pub const DATA_ID: &str = "match-data";

/// JSON text that is safe inside `<script>`: `<`, `>` and `&` only occur inside strings of
/// JSON text, where their `\u` escapes mean the same.
fn script_json(v: &Value) -> String {
    v.to_string()
        .replace('<', "\\u003c")
        .replace('>', "\\u003e")
        .replace('&', "\\u0026")
}

/// The whole page for `data`; `running` adds a reload every `REFRESH_S` seconds.
pub fn page(data: &Value, running: bool) -> String {
    let refresh = if running {
        format!("<meta http-equiv=\"refresh\" content=\"{REFRESH_S}\">")
    } else {
        String::new()
    };
    // The data goes in last, so that nothing in it is taken for a placeholder.
    TEMPLATE
        .replace("{{refresh}}", &refresh)
        .replace("{{data_id}}", DATA_ID)
        .replace("{{plot_js}}", PLOT_JS)
        .replace("{{page_js}}", PAGE_JS)
        .replace("{{data}}", &script_json(data))
}

/// Writes `text` to `path.tmp` and renames it to `path`.
pub fn write_atomic(path: &Path, text: &str) -> Result<(), String> {
    let mut tmp = path.as_os_str().to_owned();
    tmp.push(".tmp");
    let tmp = std::path::PathBuf::from(tmp);
    std::fs::write(&tmp, text).map_err(|e| format!("cannot write {}: {e}", tmp.display()))?;
    std::fs::rename(&tmp, path).map_err(|e| format!("cannot write {}: {e}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn data_cannot_close_its_script() {
        let v = serde_json::json!({"name": "</script><script>alert(1)</script> & {{data}}"});
        let p = page(&v, false);
        assert_eq!(
            p.matches("</script>").count(),
            TEMPLATE.matches("</script>").count()
        );
        assert!(!p.contains("http-equiv=\"refresh\""));
        assert!(page(&v, true).contains("http-equiv=\"refresh\""));
        // The data reads back the same.
        let start = p
            .find(&format!("id=\"{DATA_ID}\">"))
            .map(|i| i + DATA_ID.len() + 6);
        let text = start.and_then(|s| p[s..].find("</script>").map(|e| &p[s..s + e]));
        let back: Option<Value> = text.and_then(|t| serde_json::from_str(t).ok());
        assert_eq!(back, Some(v));
        let empty = page(&serde_json::json!({}), false);
        for ph in [
            "{{refresh}}",
            "{{data_id}}",
            "{{plot_js}}",
            "{{page_js}}",
            "{{data}}",
        ] {
            assert!(!empty.contains(ph), "{ph} filled");
        }
    }
}
