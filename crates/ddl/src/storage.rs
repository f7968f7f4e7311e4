//! PostgreSQL storage parameters of indexes (`WITH (fillfactor = N, ...)`): read from `CREATE
//! INDEX` (which sqlparser parses) and from the index parameters of a `PRIMARY KEY` or
//! `UNIQUE` constraint, which sqlparser does not parse and which are therefore taken out of
//! the statement's tokens here before it is parsed (`pg_dump` writes them as `ADD
//! CONSTRAINT t_pkey PRIMARY KEY (id) WITH (fillfactor='70')`).
//!
//! It only reads the parameters; which ones keylab applies is the builder's business.

use crate::Position;
use sqlparser::tokenizer::{Token, TokenWithSpan};

/// One `key = value` storage parameter.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct StorageOption {
    /// The key, lower case.
    pub key: String,
    /// The value without quotes.
    pub value: String,
    /// Where the key is.
    pub at: Position,
}

/// Whose index a constraint's `WITH (...)` belongs to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Owner {
    /// The primary key.
    PrimaryKey,
    /// A `UNIQUE` constraint, by its name when it has one.
    Unique(Option<String>),
    /// Some other constraint (an `EXCLUDE`).
    Other,
}

/// A constraint's index parameters, taken out of its statement.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ConstraintParameters {
    pub owner: Owner,
    pub options: Vec<StorageOption>,
    /// Where `WITH` is.
    pub at: Position,
}

fn significant(t: &TokenWithSpan) -> bool {
    !matches!(t.token, Token::Whitespace(_))
}

fn is_word(t: &Token, w: &str) -> bool {
    matches!(t, Token::Word(x) if x.value.eq_ignore_ascii_case(w))
}

/// The text of a value token without its quotes.
fn value_text(t: &Token) -> String {
    match t {
        Token::Word(w) => w.value.clone(),
        Token::Number(n, _) => n.clone(),
        Token::SingleQuotedString(s) | Token::DoubleQuotedString(s) => s.clone(),
        other => other.to_string(),
    }
}

/// `key = value, ...` from the tokens between a `WITH (` and its `)`.
fn options_of(inner: &[TokenWithSpan]) -> Vec<StorageOption> {
    let words: Vec<&TokenWithSpan> = inner.iter().filter(|t| significant(t)).collect();
    words
        .split(|t| t.token == Token::Comma)
        .filter_map(|part| match part {
            [k, eq, v, ..] if eq.token == Token::Eq => Some(StorageOption {
                key: value_text(&k.token).to_ascii_lowercase(),
                value: value_text(&v.token),
                at: k.span.start.into(),
            }),
            [k] => Some(StorageOption {
                key: value_text(&k.token).to_ascii_lowercase(),
                value: "true".into(),
                at: k.span.start.into(),
            }),
            _ => None,
        })
        .collect()
}

/// The constraint a `WITH` at `with` belongs to: the words back to the start of its table
/// element (a comma or the opening parenthesis at its depth) or of the statement.
fn owner_of(tokens: &[TokenWithSpan], with: usize) -> Owner {
    let mut depth = 0i32;
    let mut words: Vec<&Token> = Vec::new();
    for t in tokens[..with].iter().rev().filter(|t| significant(t)) {
        match t.token {
            Token::RParen => depth += 1,
            Token::LParen if depth == 0 => break,
            Token::LParen => depth -= 1,
            Token::Comma if depth == 0 => break,
            _ if depth == 0 => words.push(&t.token),
            _ => {}
        }
    }
    words.reverse();
    if words.iter().any(|w| is_word(w, "primary")) {
        return Owner::PrimaryKey;
    }
    if words.iter().any(|w| is_word(w, "unique")) {
        let name = words
            .windows(2)
            .find(|w| is_word(w[0], "constraint"))
            .map(|w| value_text(w[1]).trim_matches(['"', '`']).to_string());
        return Owner::Unique(name);
    }
    Owner::Other
}

/// Takes every constraint's `WITH ( ... )` out of a `CREATE TABLE` (inside its element list)
/// or an `ALTER TABLE` statement, returning the rest of the tokens and what was taken. A
/// `WITH (` at the top level of a `CREATE TABLE` is the table's own parameters and stays.
pub(crate) fn take_constraint_parameters(
    tokens: Vec<TokenWithSpan>,
    create_table: bool,
) -> (Vec<TokenWithSpan>, Vec<ConstraintParameters>) {
    let mut taken = Vec::new();
    let mut drop = vec![false; tokens.len()];
    let mut depth = 0i32;
    let mut i = 0;
    while i < tokens.len() {
        match tokens[i].token {
            Token::LParen => depth += 1,
            Token::RParen => depth -= 1,
            _ => {}
        }
        let inside = if create_table { depth >= 1 } else { true };
        if inside && is_word(&tokens[i].token, "with") {
            let open = (i + 1..tokens.len()).find(|&j| significant(&tokens[j]));
            if let Some(open) = open.filter(|&j| tokens[j].token == Token::LParen) {
                let mut d = 0i32;
                let close = (open..tokens.len()).find(|&j| {
                    match tokens[j].token {
                        Token::LParen => d += 1,
                        Token::RParen => d -= 1,
                        _ => {}
                    }
                    d == 0
                });
                if let Some(close) = close {
                    taken.push(ConstraintParameters {
                        owner: owner_of(&tokens, i),
                        options: options_of(&tokens[open + 1..close]),
                        at: tokens[i].span.start.into(),
                    });
                    drop[i..=close].iter_mut().for_each(|d| *d = true);
                    i = close + 1;
                    continue;
                }
            }
        }
        i += 1;
    }
    if taken.is_empty() {
        return (tokens, taken);
    }
    let kept = tokens.into_iter().zip(drop).filter(|(_, d)| !d).map(|(t, _)| t).collect();
    (kept, taken)
}

/// What an `ALTER INDEX` statement does, as far as keylab reads it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum AlterIndex {
    /// `ALTER INDEX [IF EXISTS] name SET (key = value, ...)`.
    Set { index: String, options: Vec<StorageOption> },
    /// Anything else (a rename, a tablespace, `RESET`, ...), from where.
    Other(Position),
}

/// Reads an `ALTER INDEX` statement's tokens.
pub(crate) fn alter_index(tokens: &[TokenWithSpan]) -> AlterIndex {
    let words: Vec<&TokenWithSpan> = tokens.iter().filter(|t| significant(t)).collect();
    let start = words.first().map(|t| t.span.start.into()).unwrap_or_default();
    // ALTER INDEX [IF EXISTS] [schema .] name SET ( ... )
    let mut i = 2;
    if words.get(i).is_some_and(|t| is_word(&t.token, "if")) {
        i += 2;
    }
    let mut name = None;
    while let Some(t) = words.get(i) {
        match &t.token {
            Token::Word(w) if !w.value.eq_ignore_ascii_case("set") || name.is_none() => {
                name = Some(w.value.clone());
                i += 1;
            }
            Token::Period => i += 1,
            _ => break,
        }
    }
    let set = words.get(i).is_some_and(|t| is_word(&t.token, "set"));
    let open = words.get(i + 1).is_some_and(|t| t.token == Token::LParen);
    let close = words.last().is_some_and(|t| t.token == Token::RParen);
    match name {
        Some(index) if set && open && close && words.len() > i + 3 => {
            let inner: Vec<TokenWithSpan> =
                words[i + 2..words.len() - 1].iter().map(|t| (*t).clone()).collect();
            AlterIndex::Set { index, options: options_of(&inner) }
        }
        _ => AlterIndex::Other(start),
    }
}

/// `fillfactor`'s value as a percentage, or why it is not one.
pub(crate) fn fill_factor_pct(o: &StorageOption) -> Result<u8, (Position, String)> {
    o.value.parse().ok().filter(|f| (10..=100).contains(f)).ok_or_else(|| {
        (o.at, format!("fillfactor {} is not a percentage; valid: 10..=100", o.value))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use sqlparser::dialect::PostgreSqlDialect;
    use sqlparser::tokenizer::Tokenizer;

    fn tokens(s: &str) -> Vec<TokenWithSpan> {
        Tokenizer::new(&PostgreSqlDialect {}, s).tokenize_with_location().unwrap()
    }

    fn text(t: &[TokenWithSpan]) -> String {
        t.iter().map(|t| t.token.to_string()).collect()
    }

    #[test]
    fn alter_index_set_is_read() {
        let s = "ALTER INDEX IF EXISTS public.t_e SET (fillfactor = 60)";
        match alter_index(&tokens(s)) {
            AlterIndex::Set { index, options } => {
                assert_eq!(index, "t_e");
                assert_eq!(
                    (options[0].key.as_str(), options[0].value.as_str()),
                    ("fillfactor", "60")
                );
            }
            other => panic!("{other:?}"),
        }
        for odd in ["ALTER INDEX", "ALTER INDEX SET (", "ALTER INDEX x SET ()", "ALTER INDEX x SET"]
        {
            assert!(matches!(alter_index(&tokens(odd)), AlterIndex::Other(_)), "{odd}");
        }
        let s = "ALTER INDEX t_e RENAME TO t_f";
        assert_eq!(alter_index(&tokens(s)), AlterIndex::Other(Position { line: 1, column: 1 }));
    }

    #[test]
    fn a_primary_keys_parameters_are_taken_out() {
        let s = "ALTER TABLE ONLY t ADD CONSTRAINT t_pkey PRIMARY KEY (id) WITH (fillfactor='70')";
        let (rest, taken) = take_constraint_parameters(tokens(s), false);
        assert_eq!(text(&rest).trim(), "ALTER TABLE ONLY t ADD CONSTRAINT t_pkey PRIMARY KEY (id)");
        assert_eq!(taken.len(), 1);
        assert_eq!(taken[0].owner, Owner::PrimaryKey);
        assert_eq!(taken[0].options[0].key, "fillfactor");
        assert_eq!(taken[0].options[0].value, "70");
        assert_eq!(taken[0].options[0].at, Position { line: 1, column: 65 });
    }

    #[test]
    fn in_create_table_only_the_elements_parameters_are_taken() {
        let s = "CREATE TABLE t (id int PRIMARY KEY WITH (fillfactor=60), e text, \
                 CONSTRAINT t_e UNIQUE (e) WITH (fillfactor = 50, deduplicate_items = off)) \
                 WITH (fillfactor=80)";
        let (rest, taken) = take_constraint_parameters(tokens(s), true);
        let rest = text(&rest);
        assert!(rest.contains("PRIMARY KEY , e text"), "{rest}");
        assert!(rest.contains("UNIQUE (e) )"), "{rest}");
        assert!(rest.ends_with("WITH (fillfactor=80)"), "{rest}");
        assert_eq!(taken[0].owner, Owner::PrimaryKey);
        assert_eq!(taken[1].owner, Owner::Unique(Some("t_e".into())));
        let keys: Vec<&str> = taken[1].options.iter().map(|o| o.key.as_str()).collect();
        assert_eq!(keys, ["fillfactor", "deduplicate_items"]);
        assert_eq!(fill_factor_pct(&taken[1].options[0]), Ok(50));
        assert!(fill_factor_pct(&taken[1].options[1]).is_err());
    }
}
