//! The settings that differ between two JSON headers (a journal's and this run's, a progress
//! file's and this generation's), one line each, so a refused resume names what changed instead
//! of printing both headers.

use serde_json::Value;

/// Every leaf that differs, as `path: OLD in the WHERE, NEW now` (`where_` names the file kind:
/// "journal", "progress file"); `label` turns a JSON path into the option a user gave
/// (`candidates.area` → `-area`).
pub fn differences(
    was: &Value,
    now: &Value,
    where_: &str,
    label: &dyn Fn(&str) -> String,
) -> Vec<String> {
    let mut out = Vec::new();
    walk("", was, now, &mut |path, a, b| {
        out.push(format!("{}: {a} in the {where_}, {b} now", label(path)))
    });
    out
}

fn walk(path: &str, a: &Value, b: &Value, out: &mut dyn FnMut(&str, &Value, &Value)) {
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            let keys: std::collections::BTreeSet<&String> = x.keys().chain(y.keys()).collect();
            for k in keys {
                let p = if path.is_empty() {
                    k.clone()
                } else {
                    format!("{path}.{k}")
                };
                // A setting one header lacks (written by another version) reads as null.
                let (u, v) = (x.get(k.as_str()), y.get(k.as_str()));
                walk(
                    &p,
                    u.unwrap_or(&Value::Null),
                    v.unwrap_or(&Value::Null),
                    out,
                );
            }
        }
        (Value::Array(x), Value::Array(y)) if x.len() == y.len() => {
            for (i, (u, v)) in x.iter().zip(y).enumerate() {
                walk(&format!("{path}[{i}]"), u, v, out);
            }
        }
        _ if a != b => out(path, a, b),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_leaves_that_differ_are_named() {
        let was = serde_json::json!({"a": 1, "b": {"c": [1, 2], "d": "x"}, "gone": true});
        let now = serde_json::json!({"a": 1, "b": {"c": [1, 3], "d": "x"}});
        let d = differences(&was, &now, "file", &|p| format!("<{p}>"));
        assert_eq!(
            d,
            vec![
                "<b.c[1]>: 2 in the file, 3 now",
                "<gone>: true in the file, null now"
            ]
        );
    }
}
