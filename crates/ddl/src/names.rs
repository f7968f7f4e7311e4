//! The table a statement names, read from its words alone: for statements sqlparser
//! rejects (a `CREATE TABLE` it cannot parse is still that table's, refused) and for notes
//! that belong on a table.

use sqlparser::tokenizer::{Token, TokenWithSpan};

/// One word of a statement: a name (quotes taken off) or one punctuation character.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Word {
    pub text: String,
    /// Written in quotes (never a keyword).
    pub quoted: bool,
}

impl Word {
    fn is(&self, keyword: &str) -> bool {
        !self.quoted && self.text.eq_ignore_ascii_case(keyword)
    }
}

/// The words of `text` (comments already blanked); a string literal is one word `'`.
pub(crate) fn words(text: &str) -> Vec<Word> {
    let mut out = Vec::new();
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            c if c.is_whitespace() => {}
            '`' | '"' | '\'' => {
                let mut w = String::new();
                while let Some(d) = chars.next() {
                    if d == c {
                        if chars.peek() == Some(&c) {
                            chars.next();
                        } else {
                            break;
                        }
                    }
                    w.push(d);
                }
                let text = if c == '\'' { "'".to_string() } else { w };
                out.push(Word { text, quoted: c != '\'' });
            }
            c if c.is_alphanumeric() || c == '_' || c == '$' => {
                let mut w = c.to_string();
                while let Some(&d) = chars.peek() {
                    if !(d.is_alphanumeric() || d == '_' || d == '$') {
                        break;
                    }
                    w.push(d);
                    chars.next();
                }
                out.push(Word { text: w, quoted: false });
            }
            c => out.push(Word { text: c.to_string(), quoted: false }),
        }
    }
    out
}

/// The words of tokens.
pub(crate) fn token_words(tokens: &[TokenWithSpan]) -> Vec<Word> {
    tokens
        .iter()
        .filter_map(|t| match &t.token {
            Token::Whitespace(_) => None,
            Token::Word(w) => Some(Word { text: w.value.clone(), quoted: w.quote_style.is_some() }),
            Token::SingleQuotedString(_) => Some(Word { text: "'".into(), quoted: false }),
            other => Some(Word { text: other.to_string(), quoted: false }),
        })
        .collect()
}

/// The last part of the (possibly qualified) name starting at `words[i]`.
fn name_at(words: &[Word], mut i: usize) -> Option<String> {
    let mut name = words
        .get(i)
        .filter(|w| {
            w.quoted || w.text.chars().all(|c| c.is_alphanumeric() || c == '_' || c == '$')
        })?
        .text
        .clone();
    while words.get(i + 1).is_some_and(|w| w.is(".")) {
        i += 2;
        name = words.get(i)?.text.clone();
    }
    Some(name)
}

/// Skips `IF [NOT] EXISTS` and `ONLY` from `i`.
fn skip_modifiers(words: &[Word], mut i: usize) -> usize {
    loop {
        match words.get(i) {
            Some(w) if w.is("if") => {
                i += 1;
                while words.get(i).is_some_and(|w| w.is("not") || w.is("exists")) {
                    i += 1;
                }
            }
            Some(w) if w.is("only") => i += 1,
            _ => return i,
        }
    }
}

/// The table a `CREATE [TEMPORARY|UNLOGGED|...] TABLE name` creates.
pub(crate) fn created_table(words: &[Word]) -> Option<String> {
    if !words.first()?.is("create") {
        return None;
    }
    let modifiers = ["or", "replace", "global", "local", "temporary", "temp", "unlogged"];
    let mut i = 1;
    while words.get(i).is_some_and(|w| modifiers.iter().any(|m| w.is(m))) {
        i += 1;
    }
    if !words.get(i)?.is("table") {
        return None;
    }
    name_at(words, skip_modifiers(words, i + 1))
}

/// The table a `CREATE TABLE`, `ALTER TABLE` or `CREATE [UNIQUE] INDEX ... ON` names.
pub(crate) fn named_table(words: &[Word]) -> Option<String> {
    if let Some(t) = created_table(words) {
        return Some(t);
    }
    let first = words.first()?;
    if first.is("alter") && words.get(1)?.is("table") {
        return name_at(words, skip_modifiers(words, 2));
    }
    if first.is("create") && words.iter().take(4).any(|w| w.is("index")) {
        let on = words.iter().position(|w| w.is("on"))?;
        return name_at(words, skip_modifiers(words, on + 1));
    }
    None
}

/// The table a tokenized statement names.
pub(crate) fn statement_table(tokens: &[TokenWithSpan]) -> Option<String> {
    named_table(&token_words(tokens))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_read_from_words() {
        let w = words("CREATE UNLOGGED TABLE IF NOT EXISTS public.\"Big\" (a int GARBAGE ::: ;");
        assert_eq!(created_table(&w).as_deref(), Some("Big"));
        let w = words("CREATE TABLE `s`.`t` LIKE x");
        assert_eq!(created_table(&w).as_deref(), Some("t"));
        let w = words("ALTER TABLE ONLY public.t ADD CONSTRAINT");
        assert_eq!(named_table(&w).as_deref(), Some("t"));
        let w = words("CREATE UNIQUE INDEX i ON ONLY s.t USING btree (a)");
        assert_eq!(named_table(&w).as_deref(), Some("t"));
        assert_eq!(created_table(&words("CREATE VIEW v AS SELECT 1")), None);
        assert_eq!(created_table(&words("CREATE TABLE (")), None);
    }
}
