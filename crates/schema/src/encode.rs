//! Text in a column's character set: the bytes a value takes in `latin1` (MariaDB's `latin1`
//! is Windows-1252, with the five bytes cp1252 leaves undefined mapped to U+0081, U+008D,
//! U+008F, U+0090 and U+009D), `ascii` or the UTF-8 family, and back to UTF-8 for a session
//! whose character set is utf8mb4. Hand-written: the 32-entry cp1252 table is all it needs,
//! where an encoding crate would bring every other encoding.

use crate::Charset;

/// Characters of bytes 0x80..=0x9F in MariaDB's `latin1` (`cp1252` with the undefined bytes
/// as the C1 controls of the same number, as `ctype-latin1.c` maps them).
const CP1252_80_9F: [char; 32] = [
    '\u{20AC}', '\u{0081}', '\u{201A}', '\u{0192}', '\u{201E}', '\u{2026}', '\u{2020}', '\u{2021}',
    '\u{02C6}', '\u{2030}', '\u{0160}', '\u{2039}', '\u{0152}', '\u{008D}', '\u{017D}', '\u{008F}',
    '\u{0090}', '\u{2018}', '\u{2019}', '\u{201C}', '\u{201D}', '\u{2022}', '\u{2013}', '\u{2014}',
    '\u{02DC}', '\u{2122}', '\u{0161}', '\u{203A}', '\u{0153}', '\u{009D}', '\u{017E}', '\u{0178}',
];

impl Charset {
    /// `text` as this character set stores it; `Err(c)` names the first character it cannot
    /// hold.
    pub fn encode(self, text: &str) -> Result<Vec<u8>, char> {
        match self {
            Charset::Utf8mb4 | Charset::Utf8mb4Bin => Ok(text.as_bytes().to_vec()),
            Charset::Utf8mb3 => match text.chars().find(|c| c.len_utf8() > 3) {
                Some(c) => Err(c),
                None => Ok(text.as_bytes().to_vec()),
            },
            Charset::Ascii => {
                text.chars().map(|c| if c.is_ascii() { Ok(c as u8) } else { Err(c) }).collect()
            }
            Charset::Latin1 => text
                .chars()
                .map(|c| match c as u32 {
                    0..=0x7f | 0xa0..=0xff => Ok(c as u8),
                    _ => CP1252_80_9F.iter().position(|&x| x == c).map(|i| 0x80 + i as u8).ok_or(c),
                })
                .collect(),
        }
    }

    /// True when values are stored in bytes other than their UTF-8 (`latin1`): such values
    /// go to a utf8mb4 session through [`Charset::to_utf8`].
    pub fn is_single_byte(self) -> bool {
        matches!(self, Charset::Latin1)
    }

    /// Bytes stored in this character set, as UTF-8 (unchanged for all but `latin1`).
    pub fn to_utf8(self, stored: &[u8]) -> Vec<u8> {
        if !self.is_single_byte() {
            return stored.to_vec();
        }
        let text: String = stored
            .iter()
            .map(|&b| match b {
                0x80..=0x9f => CP1252_80_9F[usize::from(b - 0x80)],
                _ => char::from(b),
            })
            .collect();
        text.into_bytes()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn latin1_is_cp1252_and_round_trips() {
        assert_eq!(Charset::Latin1.encode("aé€ÿ"), Ok(vec![b'a', 0xe9, 0x80, 0xff]));
        assert_eq!(Charset::Latin1.encode("a✓"), Err('✓'));
        assert_eq!(Charset::Latin1.to_utf8(&[b'a', 0xe9, 0x80, 0x81]), "aé€\u{81}".as_bytes());
        assert_eq!(Charset::Ascii.encode("é"), Err('é'));
        assert_eq!(Charset::Utf8mb3.encode("😀"), Err('😀'));
        assert_eq!(Charset::Utf8mb4.encode("😀"), Ok("😀".as_bytes().to_vec()));
    }
}
