//! The file cut into statements before sqlparser sees any of it: on the statement delimiter
//! (`;`, or what a MySQL client's `DELIMITER` line sets) outside strings, quoted names,
//! dollar quotes and comments, with every comment blanked (each character a space, newlines
//! kept, so sqlparser's lines and columns stay the file's). MySQL's rules are followed where
//! they differ from sqlparser's: `--` starts a comment when a space, a TAB, a newline or any
//! control character follows it (sqlparser wants a space, so a bare `--` line ate the next
//! statement), `#` starts one, and the text of a `/*!NNNNN ... */` conditional comment is
//! code (MySQL runs it). A `COPY ... FROM stdin` statement's data lines are skipped.
//!
//! It also masks the file for dialect detection (code only, strings and comments blanked).

use crate::Position;

/// One statement: its text (comments blanked) and where its first character is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Piece {
    pub text: String,
    pub at: Position,
}

/// How the dialect lexes.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Rules {
    /// MySQL: `#` comments, `--` needs whitespace or a control character after it,
    /// backslash escapes in strings, `/*!...*/` is code, `DELIMITER` lines.
    pub mysql: bool,
}

struct Scan<'a> {
    src: &'a [u8],
    i: usize,
    line: u64,
    column: u64,
    /// The statement being gathered, and where it starts.
    cur: Vec<u8>,
    cur_at: Position,
    has_code: bool,
    pieces: Vec<Piece>,
    /// Code outside strings and comments, lower case (for dialect detection).
    masked: Vec<u8>,
    in_conditional: bool,
    /// A MySQL conditional comment was seen.
    conditional_seen: bool,
}

fn is_char_start(b: u8) -> bool {
    b & 0xC0 != 0x80
}

impl Scan<'_> {
    fn at(&self, k: usize) -> Option<u8> {
        self.src.get(self.i + k).copied()
    }

    /// Moves past one byte, copying it into the statement (`keep`) or a space in its place.
    fn step(&mut self, keep: bool) {
        let b = self.src[self.i];
        if b == b'\n' {
            self.line += 1;
            self.column = 1;
        } else if is_char_start(b) {
            self.column += 1;
        }
        if keep || b == b'\n' || b == b'\r' {
            self.cur.push(b);
        } else if is_char_start(b) {
            self.cur.push(b' ');
        }
        self.i += 1;
    }

    fn blank_to_line_end(&mut self) {
        while self.i < self.src.len() && self.src[self.i] != b'\n' {
            self.step(false);
        }
    }

    fn finish(&mut self) {
        let text = String::from_utf8_lossy(&std::mem::take(&mut self.cur)).into_owned();
        if self.has_code {
            self.pieces.push(Piece { text, at: self.cur_at });
        }
        self.has_code = false;
        self.cur_at = Position { line: self.line, column: self.column };
        self.masked.extend_from_slice(b" ; ");
    }

    fn starts_with_ci(&self, word: &str) -> bool {
        let w = word.as_bytes();
        self.src.len() >= self.i + w.len()
            && self.src[self.i..self.i + w.len()].eq_ignore_ascii_case(w)
    }

    /// A quoted string or name from its opening quote to its closing one.
    fn quoted(&mut self, quote: u8, backslash: bool) {
        self.masked.push(quote);
        self.step(true);
        while let Some(b) = self.at(0) {
            if backslash && b == b'\\' && self.at(1).is_some() {
                self.step(true);
                self.step(true);
                continue;
            }
            self.step(true);
            if b == quote {
                if self.at(0) == Some(quote) {
                    self.step(true); // a doubled quote stands for itself
                    continue;
                }
                break;
            }
        }
        self.masked.push(quote);
        self.masked.push(b' ');
    }

    /// `$tag$ ... $tag$` (PostgreSQL), when one starts here; false if not.
    fn dollar_quoted(&mut self) -> bool {
        let rest = &self.src[self.i + 1..];
        let tag_len = rest.iter().take_while(|b| b.is_ascii_alphanumeric() || **b == b'_').count();
        if rest.get(tag_len) != Some(&b'$') || rest.first().is_some_and(u8::is_ascii_digit) {
            return false;
        }
        let tag = self.src[self.i..self.i + tag_len + 2].to_vec();
        for _ in 0..tag.len() {
            self.step(true);
        }
        while self.i < self.src.len() && !self.src[self.i..].starts_with(&tag) {
            self.step(true);
        }
        for _ in 0..tag.len().min(self.src.len() - self.i) {
            self.step(true);
        }
        self.masked.extend_from_slice(b" $$ ");
        true
    }

    fn block_comment(&mut self, nested: bool) {
        let mut depth = 0usize;
        while self.i < self.src.len() {
            if self.at(0) == Some(b'/') && self.at(1) == Some(b'*') {
                depth += 1;
                self.step(false);
                self.step(false);
                if !nested {
                    depth = 1;
                }
            } else if self.at(0) == Some(b'*') && self.at(1) == Some(b'/') {
                self.step(false);
                self.step(false);
                depth -= 1;
                if depth == 0 {
                    return;
                }
            } else {
                self.step(false);
            }
        }
    }

    /// After a `COPY ... FROM stdin` statement: its data lines up to `\.`.
    fn skip_copy_data(&mut self) {
        while self.i < self.src.len() {
            let end = self.src[self.i..]
                .iter()
                .position(|b| *b == b'\n')
                .map_or(self.src.len(), |p| self.i + p);
            let line = &self.src[self.i..end];
            let done = line.strip_suffix(b"\r").unwrap_or(line) == b"\\.";
            while self.i < end {
                self.step(false);
            }
            if self.i < self.src.len() {
                self.step(false);
            }
            if done {
                break;
            }
        }
        self.cur.clear();
        self.cur_at = Position { line: self.line, column: self.column };
    }
}

fn is_copy_from_stdin(text: &str) -> bool {
    let words: Vec<String> = text.split_whitespace().map(|w| w.to_ascii_lowercase()).collect();
    words.first().is_some_and(|w| w == "copy") && words.iter().rev().take(3).any(|w| w == "stdin")
}

/// The statements of `source`, and its code masked for detection (lower case, no strings
/// or comments; a MySQL conditional comment leaves `/*!` in it).
pub(crate) fn split(source: &str, rules: Rules) -> (Vec<Piece>, String) {
    let mut s = Scan {
        src: source.as_bytes(),
        i: 0,
        line: 1,
        column: 1,
        cur: Vec::new(),
        cur_at: Position { line: 1, column: 1 },
        has_code: false,
        pieces: Vec::new(),
        masked: Vec::new(),
        in_conditional: false,
        conditional_seen: false,
    };
    let mut delimiter: Vec<u8> = b";".to_vec();
    while let Some(b) = s.at(0) {
        // The mysql client's `DELIMITER $$` line: not SQL, it sets what ends a statement.
        if rules.mysql
            && !s.has_code
            && s.starts_with_ci("delimiter")
            && s.at(9).is_some_and(|c| c == b' ' || c == b'\t')
        {
            let end =
                s.src[s.i..].iter().position(|c| *c == b'\n').map_or(s.src.len(), |p| s.i + p);
            let new = String::from_utf8_lossy(&s.src[s.i + 9..end]).trim().to_string();
            if !new.is_empty() {
                delimiter = new.into_bytes();
            }
            s.blank_to_line_end();
            continue;
        }
        if s.src[s.i..].starts_with(&delimiter) {
            // The next statement's text starts with the delimiter, blanked.
            let copy = s.has_code && is_copy_from_stdin(&String::from_utf8_lossy(&s.cur));
            s.finish();
            for _ in 0..delimiter.len() {
                s.step(false);
            }
            if copy {
                s.skip_copy_data();
            }
            continue;
        }
        let next = s.at(1);
        match b {
            b'-' if next == Some(b'-') => {
                // MySQL: `--` then whitespace or a control character; PostgreSQL: any `--`.
                let after = s.at(2);
                if !rules.mysql || after.is_none_or(|c| c <= b' ' || c == 0x7f) {
                    s.blank_to_line_end();
                } else {
                    s.masked.push(b);
                    s.step(true);
                }
            }
            b'#' if rules.mysql => s.blank_to_line_end(),
            b'/' if next == Some(b'*') => {
                let conditional = rules.mysql
                    && (s.at(2) == Some(b'!') || (s.at(2) == Some(b'M') && s.at(3) == Some(b'!')));
                if conditional {
                    // The marker and its version number are blanked; the text is code.
                    s.conditional_seen = true;
                    s.in_conditional = true;
                    s.masked.extend_from_slice(b" /*! ");
                    while s.at(0).is_some_and(|c| c == b'/' || c == b'*' || c == b'!' || c == b'M')
                    {
                        s.step(false);
                    }
                    while s.at(0).is_some_and(|c| c.is_ascii_digit()) {
                        s.step(false);
                    }
                } else {
                    s.block_comment(!rules.mysql);
                }
            }
            b'*' if s.in_conditional && next == Some(b'/') => {
                s.in_conditional = false;
                s.step(false);
                s.step(false);
            }
            b'\'' => {
                // PostgreSQL: backslashes escape only in E'...' strings.
                let e_string = s.i > 0 && matches!(s.src[s.i - 1], b'e' | b'E');
                s.has_code = true;
                s.quoted(b'\'', rules.mysql || e_string);
            }
            b'"' => {
                s.has_code = true;
                s.quoted(b'"', rules.mysql);
            }
            b'`' => {
                s.has_code = true;
                s.quoted(b'`', false);
            }
            b'$' if !rules.mysql
                && !(s.i > 0
                    && (s.src[s.i - 1].is_ascii_alphanumeric() || s.src[s.i - 1] == b'_'))
                && s.dollar_quoted() =>
            {
                s.has_code = true;
            }
            _ => {
                if !b.is_ascii_whitespace() {
                    s.has_code = true;
                }
                s.masked.push(b.to_ascii_lowercase());
                s.step(true);
            }
        }
    }
    s.finish();
    if s.conditional_seen {
        s.masked.extend_from_slice(b" /*! ");
    }
    (s.pieces, String::from_utf8_lossy(&s.masked).into_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    const MYSQL: Rules = Rules { mysql: true };
    const PG: Rules = Rules { mysql: false };

    fn texts(src: &str, rules: Rules) -> Vec<String> {
        split(src, rules).0.into_iter().map(|p| p.text.trim().to_string()).collect()
    }

    #[test]
    fn mysql_dash_comments_end_at_the_line_whatever_follows_the_dashes() {
        // sqlparser's MySQL tokenizer wants `-- ` with a space; MySQL takes any whitespace
        // or control character, and a bare `--` line is the commonest comment of all.
        let src =
            "--\n-- Table\n--\tnote\nCREATE TABLE a (id INT);\n--\r\nCREATE TABLE b (id INT);";
        assert_eq!(texts(src, MYSQL), ["CREATE TABLE a (id INT)", "CREATE TABLE b (id INT)"]);
        // `--1` is no comment in MySQL: minus minus one.
        assert_eq!(texts("SELECT 1--1;", MYSQL), ["SELECT 1--1"]);
    }

    #[test]
    fn places_are_the_files() {
        let (pieces, _) = split("SET x = 1;\n  CREATE TABLE t (a INT);", MYSQL);
        assert_eq!(pieces[1].at, Position { line: 1, column: 10 });
        assert_eq!(pieces[1].text, " \n  CREATE TABLE t (a INT)");
    }

    #[test]
    fn delimiter_blocks_are_one_statement_each() {
        let src = "DELIMITER ;;\nCREATE TRIGGER x BEFORE INSERT ON t FOR EACH ROW BEGIN\n  SET NEW.a = 1;\nEND;;\nDELIMITER ;\nCREATE TABLE t (a INT);";
        let t = texts(src, MYSQL);
        assert_eq!(t.len(), 2, "{t:?}");
        assert!(t[0].starts_with("CREATE TRIGGER") && t[0].ends_with("END"), "{t:?}");
        assert_eq!(t[1], "CREATE TABLE t (a INT)");
    }

    #[test]
    fn conditional_comments_are_code_and_plain_ones_are_not() {
        let t =
            texts("/*!40101 SET NAMES utf8 */;\n/* a; b */ # c; d\nSELECT 'x;y', `a;b`;", MYSQL);
        assert_eq!(t, ["SET NAMES utf8", "SELECT 'x;y', `a;b`"]);
    }

    #[test]
    fn dollar_quotes_hide_their_semicolons() {
        let src = "CREATE FUNCTION f() RETURNS int AS $body$ BEGIN; RETURN 1; END $body$ LANGUAGE plpgsql;\nCREATE TABLE t (a int);";
        let t = texts(src, PG);
        assert_eq!(t.len(), 2, "{t:?}");
        assert_eq!(texts("SELECT E'a\\';b';", PG), ["SELECT E'a\\';b'"]);
        assert_eq!(texts("SELECT 'a\\';b';", PG), ["SELECT 'a\\'", "b';"]);
    }

    #[test]
    fn copy_data_is_skipped() {
        let t = texts("COPY t (a) FROM stdin;\n1;2\n\\.\nCREATE TABLE u (a int);", PG);
        assert_eq!(t, ["COPY t (a) FROM stdin", "CREATE TABLE u (a int)"]);
    }

    #[test]
    fn the_mask_keeps_code_only() {
        let (_, m) = split("-- `x`\nCREATE TABLE t (a int DEFAULT '`');", PG);
        assert!(!m.contains('`'), "{m}");
    }
}
