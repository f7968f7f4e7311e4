//! Control characters shown escaped, never raw. A report carries text that came from input
//! (a DDL file's or a user's server's table, column and index names, notes and errors quoting
//! them); a name holding `ESC [2J` printed raw would clear the terminal, and one holding
//! `ESC ] ... BEL` retitle it. Every text renderer draws the report through [`escaped`], and
//! `src/main.rs` prints errors through [`escape_controls`], so no C0 control, DEL or C1
//! control reaches a terminal, a Markdown or CSV file or the HTML report raw. JSON escapes
//! C0 itself; [`json_ascii_controls`] writes DEL and C1 as `\u00XX` too.

use keylab_core::Report;
use std::borrow::Cow;

/// A C0 control, DEL or a C1 control.
fn is_control(c: char) -> bool {
    c.is_control()
}

/// `text` with every control character written out: `\x1b` (C0 and DEL), `\u{9b}` (C1).
/// Line breaks are kept when `keep_newlines` (multi-line error text); text without control
/// characters comes back as it is.
pub fn escape_controls(text: &str, keep_newlines: bool) -> Cow<'_, str> {
    let escape = |c: char| is_control(c) && !(keep_newlines && c == '\n');
    if !text.chars().any(escape) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if !escape(c) {
            out.push(c);
        } else if (c as u32) < 0x80 {
            out.push_str(&format!("\\x{:02x}", c as u32));
        } else {
            out.push_str(&format!("\\u{{{:x}}}", c as u32));
        }
    }
    Cow::Owned(out)
}

/// `report` with the control characters of every text in it escaped, or `None` when it has
/// none (then it is drawn as it is, so the output of a report without any is unchanged).
pub(crate) fn escaped(report: &Report) -> Option<Report> {
    let mut value = serde_json::to_value(report).ok()?;
    if !escape_in(&mut value) {
        return None;
    }
    // Through a Value, numbers keep their exact bits: only the texts change.
    serde_json::from_value(value).ok()
}

/// Escapes the control characters of every text (and object key) in `value`, in place;
/// whether there were any.
fn escape_in(value: &mut serde_json::Value) -> bool {
    use serde_json::Value;
    match value {
        Value::String(s) => match escape_controls(s, false) {
            Cow::Owned(clean) => {
                *s = clean;
                true
            }
            Cow::Borrowed(_) => false,
        },
        Value::Array(items) => items.iter_mut().fold(false, |f, v| escape_in(v) | f),
        Value::Object(map) => {
            let found_in_keys = map.keys().any(|k| k.chars().any(is_control));
            if found_in_keys {
                let old = std::mem::take(map);
                for (k, v) in old {
                    map.insert(escape_controls(&k, false).into_owned(), v);
                }
            }
            map.values_mut().fold(found_in_keys, |f, v| escape_in(v) | f)
        }
        _ => false,
    }
}

/// serde_json's text with DEL and the C1 controls inside strings written as `\u00XX` (it
/// escapes only C0). Outside strings JSON is ASCII, so every such character is in a string,
/// and the escape reads back as the same character.
pub(crate) fn json_ascii_controls(json: String) -> String {
    if !json.chars().any(is_control_above_c0) {
        return json;
    }
    let mut out = String::with_capacity(json.len() + 8);
    for c in json.chars() {
        if is_control_above_c0(c) {
            out.push_str(&format!("\\u{:04x}", c as u32));
        } else {
            out.push(c);
        }
    }
    out
}

fn is_control_above_c0(c: char) -> bool {
    is_control(c) && c as u32 >= 0x7f
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn controls_are_written_out_and_other_text_is_kept() {
        assert_eq!(
            escape_controls("t\u{1b}[2J\u{7}x\u{9b}y\u{7f}", false),
            "t\\x1b[2J\\x07x\\u{9b}y\\x7f"
        );
        assert!(matches!(escape_controls("plain `ü` ×1.4 — ok", false), Cow::Borrowed(_)));
        assert_eq!(escape_controls("a\nb\tc", true), "a\nb\\x09c");
        assert_eq!(escape_controls("a\nb", false), "a\\x0ab");
    }

    #[test]
    fn json_keeps_its_meaning_without_raw_controls() {
        let text = serde_json::to_string(&"a\u{1b}b\u{9b}c\u{7f}").unwrap();
        let out = json_ascii_controls(text);
        assert!(!out.chars().any(char::is_control), "{out}");
        assert_eq!(serde_json::from_str::<String>(&out).unwrap(), "a\u{1b}b\u{9b}c\u{7f}");
    }

    #[test]
    fn a_report_without_controls_is_left_as_it_is() {
        let mut report = crate::test_report(vec![crate::test_run(serde_json::json!({}))]);
        assert!(escaped(&report).is_none());
        report.runs[0].variant = "v\u{1b}[2J".into();
        let clean = escaped(&report).unwrap();
        assert_eq!(clean.runs[0].variant, "v\\x1b[2J");
        assert_eq!(clean.runs[0].rows, report.runs[0].rows);
    }
}
