//! Text made safe for the report's HTML: escaped for element content and quoted attributes, and
//! JSON that cannot close the `<script>` element holding it. Pure.

/// HTML-escape text for element content and quoted attribute values.
pub fn escape_text(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    push_escaped(&mut out, s);
    out
}

/// [`escape_text`] appended to `out` (the game list's hot loop, without a `String` a value).
pub fn push_escaped(out: &mut String, s: &str) {
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
}

/// JSON for inside a `<script>` element: `<`, `>`, `&` and the JavaScript line separators as
/// `\u` escapes (only string contents can hold them, so the JSON stays the same value).
pub fn script_json(json: &str) -> String {
    let mut out = String::with_capacity(json.len() + json.len() / 16);
    for c in json.chars() {
        match c {
            '<' => out.push_str("\\u003c"),
            '>' => out.push_str("\\u003e"),
            '&' => out.push_str("\\u0026"),
            '\u{2028}' => out.push_str("\\u2028"),
            '\u{2029}' => out.push_str("\\u2029"),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn script_json_cannot_close_the_script_and_stays_the_same_value() {
        let v =
            serde_json::json!({"name": "</script><script>alert(1)</script>", "x": "a&b\u{2028}"});
        let s = script_json(&v.to_string());
        assert!(!s.contains('<') && !s.contains('>') && !s.contains('&'));
        assert_eq!(serde_json::from_str::<serde_json::Value>(&s).unwrap(), v);
    }

    #[test]
    fn text_escaping_covers_markup_and_quotes() {
        assert_eq!(
            escape_text("<a href='x'>\"&\"</a>"),
            "&lt;a href=&#39;x&#39;&gt;&quot;&amp;&quot;&lt;/a&gt;"
        );
    }
}
