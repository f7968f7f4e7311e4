//! Small text helpers shared by the renderers: number formatting, byte sizes, HTML escaping
//! and word wrapping. Hand-written because each is a few lines and must be byte-stable
//! (no locale, no terminal detection), which general-purpose crates do not promise.

/// `1234567` → `1,234,567`.
pub fn group_thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// A float with `places` decimals and thousands separators in the integer part.
pub fn decimal(value: f64, places: usize) -> String {
    let text = format!("{:.*}", places, value.abs());
    let (int, frac) = match text.split_once('.') {
        Some((i, f)) => (i, Some(f)),
        None => (text.as_str(), None),
    };
    let grouped = match int.parse::<u64>() {
        Ok(n) => group_thousands(n),
        Err(_) => int.to_string(),
    };
    // "-0.00" would read as a negative figure; only print the sign when something is shown.
    let sign =
        if value < 0.0 && text.chars().any(|c| c.is_ascii_digit() && c != '0') { "-" } else { "" };
    match frac {
        Some(f) => format!("{sign}{grouped}.{f}"),
        None => format!("{sign}{grouped}"),
    }
}

/// Bytes in binary units with one decimal: `5783552` → `5.5 MiB`.
pub fn human_bytes(bytes: u64) -> String {
    const UNITS: [&str; 6] = ["B", "KiB", "MiB", "GiB", "TiB", "PiB"];
    if bytes < 1024 {
        return format!("{bytes} B");
    }
    let mut value = bytes as f64;
    let mut unit = 0;
    while value >= 1024.0 && unit < UNITS.len() - 1 {
        value /= 1024.0;
        unit += 1;
    }
    format!("{value:.1} {}", UNITS[unit])
}

/// A ratio such as `1.91` → `1.9x`, keeping two decimals when one would read `1.0x`.
pub fn times(ratio: f64) -> String {
    if ratio < 1.05 {
        format!("{ratio:.2}x")
    } else {
        format!("{ratio:.1}x")
    }
}

/// Escapes text for HTML element content and attribute values (also used inside SVG).
pub fn escape_html(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            _ => out.push(c),
        }
    }
    out
}

/// Greedy word wrap at `width` characters; words longer than `width` stay whole.
pub fn wrap(text: &str, width: usize, indent: &str) -> String {
    let mut lines = Vec::new();
    let mut line = String::new();
    for word in text.split_whitespace() {
        let len = line.chars().count();
        if len > 0 && len + 1 + word.chars().count() > width {
            lines.push(std::mem::take(&mut line));
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(word);
    }
    if !line.is_empty() {
        lines.push(line);
    }
    lines.iter().map(|l| format!("{indent}{l}")).collect::<Vec<_>>().join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn groups_thousands() {
        assert_eq!(group_thousands(0), "0");
        assert_eq!(group_thousands(999), "999");
        assert_eq!(group_thousands(1000), "1,000");
        assert_eq!(group_thousands(11_059_200), "11,059,200");
    }

    #[test]
    fn decimals() {
        assert_eq!(decimal(1234.567, 1), "1,234.6");
        assert_eq!(decimal(81.16, 2), "81.16");
        assert_eq!(decimal(123456.4, 0), "123,456");
        assert_eq!(decimal(-0.001, 2), "0.00");
        assert_eq!(decimal(-2.5, 1), "-2.5");
    }

    #[test]
    fn bytes() {
        assert_eq!(human_bytes(512), "512 B");
        assert_eq!(human_bytes(5_783_552), "5.5 MiB");
        assert_eq!(human_bytes(11_059_200), "10.5 MiB");
        assert_eq!(human_bytes(16384), "16.0 KiB");
    }

    #[test]
    fn escapes() {
        assert_eq!(escape_html(r#"<a href="x">&'"#), "&lt;a href=&quot;x&quot;&gt;&amp;&#39;");
    }

    #[test]
    fn wraps() {
        assert_eq!(wrap("aa bb cc dd", 5, "  "), "  aa bb\n  cc dd");
        assert_eq!(times(1.91), "1.9x");
        assert_eq!(times(1.02), "1.02x");
    }
}
