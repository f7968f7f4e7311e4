//! Column syntax sqlparser does not read, rewritten in a statement's tokens before it is
//! parsed, with where each was so that the builder can apply what it meant:
//! PostgreSQL 18's `GENERATED ALWAYS AS (...) VIRTUAL` (read as `STORED`, then left out of
//! the stored columns), MySQL's `VARCHAR(n) BINARY` (the `_bin` collation of the column's
//! character set; the word is taken out) and `COMMENT "..."` in double quotes (made a
//! single-quoted string), and PostgreSQL's `DEFAULT (expr)::type` (sqlparser reads a
//! parenthesized default alone; the cast after it is taken out, since no default changes a
//! stored byte of the rows keylab generates).

use crate::{Kind, Position};
use sqlparser::tokenizer::{Token, TokenWithSpan, Word};

/// Where each rewrite was made, in file places.
#[derive(Debug, Default, Clone)]
pub(crate) struct Fixes {
    /// `VIRTUAL` of PostgreSQL's virtual generated columns.
    pub virtual_at: Vec<Position>,
    /// MySQL's `BINARY` attribute of a character column.
    pub binary_at: Vec<Position>,
}

impl Fixes {
    /// Whether one of `places` lies in the column that starts at `from` (and ends before
    /// `to`, the next column's start).
    pub(crate) fn within(places: &[Position], from: Position, to: Option<Position>) -> bool {
        let key = |p: &Position| (p.line, p.column);
        places.iter().any(|p| key(p) >= key(&from) && to.is_none_or(|t| key(p) < key(&t)))
    }
}

fn word(t: &TokenWithSpan) -> Option<&Word> {
    match &t.token {
        Token::Word(w) if w.quote_style.is_none() => Some(w),
        _ => None,
    }
}

fn is(t: &TokenWithSpan, w: &str) -> bool {
    word(t).is_some_and(|x| x.value.eq_ignore_ascii_case(w))
}

const CHAR_TYPES: [&str; 9] = [
    "char",
    "varchar",
    "text",
    "tinytext",
    "mediumtext",
    "longtext",
    "character",
    "nchar",
    "nvarchar",
];

/// Whether the column definition the tokens `before` end in has `GENERATED` (back to the
/// comma or parenthesis that starts it).
fn in_generated(chunk: &[TokenWithSpan], before: &[usize]) -> bool {
    let mut depth = 0i32;
    for &j in before.iter().rev() {
        match &chunk[j].token {
            Token::RParen => depth += 1,
            Token::LParen if depth == 0 => return false,
            Token::LParen => depth -= 1,
            Token::Comma if depth == 0 => return false,
            _ if depth == 0 && is(&chunk[j], "generated") => return true,
            _ => {}
        }
    }
    false
}

/// `chunk` with the rewrites made, and where.
pub(crate) fn apply(mut chunk: Vec<TokenWithSpan>, kind: &Kind) -> (Vec<TokenWithSpan>, Fixes) {
    let mut fixes = Fixes::default();
    if !matches!(kind, Kind::CreateTable | Kind::AlterTable) {
        return (chunk, fixes);
    }
    let significant: Vec<usize> = chunk
        .iter()
        .enumerate()
        .filter(|(_, t)| !matches!(t.token, Token::Whitespace(_)))
        .map(|(i, _)| i)
        .collect();
    let mut drop = Vec::new();
    for (k, &i) in significant.iter().enumerate() {
        let back = |n: usize| k.checked_sub(n).map(|j| &chunk[significant[j]]);
        let at: Position = chunk[i].span.start.into();
        if is(&chunk[i], "virtual") && back(1).is_some_and(|t| t.token == Token::RParen) {
            // GENERATED ALWAYS AS (expr) VIRTUAL: only PostgreSQL's form fails to parse
            // (MySQL's is read as written), so only a GENERATED column's is rewritten.
            if let (true, Some(w)) = (in_generated(&chunk, &significant[..k]), word(&chunk[i])) {
                let mut stored = w.clone();
                stored.value = "STORED".into();
                stored.keyword = sqlparser::keywords::Keyword::STORED;
                chunk[i].token = Token::Word(stored);
                fixes.virtual_at.push(at);
            }
        } else if is(&chunk[i], "binary") {
            let after_type = match (back(1), back(2), back(3), back(4)) {
                (Some(t), ..)
                    if word(t).is_some_and(|w| {
                        CHAR_TYPES.iter().any(|c| w.value.eq_ignore_ascii_case(c))
                    }) =>
                {
                    true
                }
                (Some(r), Some(n), Some(l), Some(t)) => {
                    r.token == Token::RParen
                        && matches!(n.token, Token::Number(..))
                        && l.token == Token::LParen
                        && word(t).is_some_and(|w| {
                            CHAR_TYPES.iter().any(|c| w.value.eq_ignore_ascii_case(c))
                        })
                }
                _ => false,
            };
            if after_type {
                drop.push(i);
                fixes.binary_at.push(at);
            }
        } else if is(&chunk[i], "key") && back(1).is_some_and(|t| is(t, "drop")) {
            // MySQL's `DROP KEY k` is its `DROP INDEX k`; sqlparser reads a column `KEY`.
            if let Some(w) = word(&chunk[i]) {
                let mut index = w.clone();
                index.value = "INDEX".into();
                index.keyword = sqlparser::keywords::Keyword::INDEX;
                chunk[i].token = Token::Word(index);
            }
        } else if let Token::DoubleQuotedString(text) = &chunk[i].token {
            if back(1).is_some_and(|t| is(t, "comment")) {
                chunk[i].token = Token::SingleQuotedString(text.clone());
            }
        }
    }
    drop.extend(casts_after_parenthesized_defaults(&chunk, &significant));
    drop.sort_unstable();
    drop.dedup();
    for i in drop.into_iter().rev() {
        chunk.remove(i);
    }
    (chunk, fixes)
}

/// Words a PostgreSQL type name of several words goes on with (`character varying`,
/// `timestamp without time zone`).
const TYPE_WORDS: [&str; 8] =
    ["varying", "precision", "with", "without", "time", "zone", "character", "double"];

/// The tokens of each `::type` cast that follows a parenthesized `DEFAULT (...)`.
fn casts_after_parenthesized_defaults(
    chunk: &[TokenWithSpan],
    significant: &[usize],
) -> Vec<usize> {
    let mut out = Vec::new();
    let tok = |k: usize| significant.get(k).map(|&i| &chunk[i]);
    let mut k = 0;
    while k < significant.len() {
        let default = tok(k).is_some_and(|t| is(t, "default"));
        if !(default && tok(k + 1).is_some_and(|t| t.token == Token::LParen)) {
            k += 1;
            continue;
        }
        // Past the parenthesized default.
        let mut depth = 0i32;
        let mut j = k + 1;
        while let Some(t) = tok(j) {
            match t.token {
                Token::LParen => depth += 1,
                Token::RParen => depth -= 1,
                _ => {}
            }
            j += 1;
            if depth == 0 {
                break;
            }
        }
        // `::type`, any number of times: the cast, its type's words, `(n)` and `[]`.
        while tok(j).is_some_and(|t| t.token == Token::DoubleColon) {
            out.push(significant[j]);
            j += 1;
            if tok(j).is_some_and(|t| word(t).is_some()) {
                out.push(significant[j]);
                j += 1;
            }
            while tok(j).is_some_and(|t| TYPE_WORDS.iter().any(|w| is(t, w))) {
                out.push(significant[j]);
                j += 1;
            }
            if tok(j).is_some_and(|t| t.token == Token::LParen) {
                while let Some(t) = tok(j) {
                    out.push(significant[j]);
                    j += 1;
                    if t.token == Token::RParen {
                        break;
                    }
                }
            }
            while tok(j).is_some_and(|t| t.token == Token::LBracket)
                && tok(j + 1).is_some_and(|t| t.token == Token::RBracket)
            {
                out.extend([significant[j], significant[j + 1]]);
                j += 2;
            }
        }
        k = j;
    }
    out
}

/// What an `ALTER TABLE ... ENGINE [=] name` that sqlparser rejects does.
pub(crate) enum EngineChange {
    /// To another engine than InnoDB: noted on the table (where, what keylab does instead).
    Other(Position, String),
    /// `ENGINE=InnoDB` and nothing else: a rebuild, nothing modelled changes.
    InnodbOnly,
}

/// What keylab does with a table of another engine than InnoDB: the question is which key
/// the table should have, and a MyISAM/Aria/MEMORY table being rekeyed is one being moved to
/// InnoDB (MariaDB's and MySQL's default), so it is advised as that InnoDB table, and said.
pub(crate) fn other_engine_note(engine: &str) -> String {
    format!(
        "ENGINE={engine}: keylab models InnoDB only, so the table is advised as the InnoDB table \
         it would be (ENGINE=InnoDB); {engine}'s own pages are not modelled"
    )
}

/// The engine change of an `ALTER TABLE`, if it makes one.
pub(crate) fn engine_change(chunk: &[TokenWithSpan]) -> Option<EngineChange> {
    let words: Vec<&TokenWithSpan> =
        chunk.iter().filter(|t| !matches!(t.token, Token::Whitespace(_))).collect();
    let i = words.iter().position(|t| is(t, "engine"))?;
    let mut j = i + 1;
    if words.get(j).is_some_and(|t| t.token == Token::Eq) {
        j += 1;
    }
    let engine = word(words.get(j)?)?.value.clone();
    if !engine.eq_ignore_ascii_case("innodb") {
        let why = other_engine_note(&engine);
        return Some(EngineChange::Other(words[i].span.start.into(), why));
    }
    // Nothing after it: `ALTER TABLE name ENGINE=InnoDB`.
    (j + 1 == words.len()).then_some(EngineChange::InnodbOnly)
}
