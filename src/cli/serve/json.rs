//! A small JSON writer for the board's answers: objects built field by field, strings escaped
//! (quotes, backslashes, control characters), numbers and nested values written as given.

/// A JSON string literal of `s`.
pub fn str_lit(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 || c == '\u{2028}' || c == '\u{2029}' => {
                out.push_str(&format!("\\u{:04x}", c as u32))
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// A JSON array of values already written as JSON.
pub fn arr(items: impl IntoIterator<Item = String>) -> String {
    let v: Vec<String> = items.into_iter().collect();
    format!("[{}]", v.join(","))
}

/// A JSON object under construction.
pub struct Obj(Vec<String>);

impl Obj {
    pub fn new() -> Obj {
        Obj(Vec::new())
    }
    pub fn str(&mut self, k: &str, v: &str) {
        self.0.push(format!("{}:{}", str_lit(k), str_lit(v)));
    }
    pub fn num(&mut self, k: &str, v: i64) {
        self.0.push(format!("{}:{v}", str_lit(k)));
    }
    /// A field whose value is already JSON.
    pub fn raw(&mut self, k: &str, v: &str) {
        self.0.push(format!("{}:{v}", str_lit(k)));
    }
    pub fn done(self) -> String {
        format!("{{{}}}", self.0.join(","))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strings_are_escaped() {
        assert_eq!(str_lit("a\"b\\c\n\u{1}"), "\"a\\\"b\\\\c\\n\\u0001\"");
        let mut o = Obj::new();
        o.str("k", "v");
        o.num("n", -3);
        o.raw("a", &arr(["1".to_string(), "2".to_string()]));
        assert_eq!(o.done(), "{\"k\":\"v\",\"n\":-3,\"a\":[1,2]}");
    }
}
