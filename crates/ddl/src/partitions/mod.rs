//! Partitioning read from a statement's tokens (sqlparser reads none of it): MySQL/MariaDB's
//! `PARTITION BY RANGE|LIST [COLUMNS]|HASH|KEY (...) [PARTITIONS n] [(PARTITION ...)]` at the
//! end of a `CREATE TABLE`, PostgreSQL's `PARTITION BY RANGE|LIST|HASH (cols)` with its
//! partitions from `CREATE TABLE p PARTITION OF t FOR VALUES ...` and pg_dump's
//! `ALTER TABLE t ATTACH PARTITION p FOR VALUES ...`.
//!
//! What is read here is text with places ([`RawPartitioning`]); the builder resolves it
//! against the table's columns (`resolve`). It does not route rows.

mod postgres;
mod resolve;
#[cfg(test)]
mod tests;

pub(crate) use postgres::{read_attach, read_partition_of};
pub(crate) use resolve::resolve;

use crate::Position;
use keylab_schema::{PartitionFn, PartitionMethod};
use sqlparser::tokenizer::{Token, TokenWithSpan};

/// A literal of a bound as written.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum RawValue {
    Min,
    Max,
    Null,
    Number(String),
    Text(String),
    /// `TO_DAYS('2020-01-01')`, `UNIX_TIMESTAMP('...')`, `YEAR('...')`.
    Call(String, Box<RawValue>),
}

/// A partition's bound as written.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum RawBound {
    LessThan(Vec<RawValue>),
    FromTo(Vec<RawValue>, Vec<RawValue>),
    In(Vec<Vec<RawValue>>),
    Default,
    Remainder(u32, u32),
    Nth,
}

/// A partition as written.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct RawPartition {
    pub name: String,
    pub bound: RawBound,
    pub at: Position,
}

/// A `PARTITION BY` clause as written.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct RawPartitioning {
    pub method: PartitionMethod,
    pub columns_form: bool,
    /// Key columns, with the function of a one-column key (`YEAR`...).
    pub columns: Vec<String>,
    pub function: PartitionFn,
    /// `PARTITIONS n` when given.
    pub count: Option<u32>,
    pub partitions: Vec<RawPartition>,
    pub at: Position,
    pub postgres: bool,
}

pub(crate) type Refusal = (Position, String);

fn pos(t: &TokenWithSpan) -> Position {
    t.span.start.into()
}

fn word_of(t: &TokenWithSpan) -> Option<String> {
    match &t.token {
        Token::Word(w) => Some(w.value.clone()),
        _ => None,
    }
}

/// A cursor over the significant tokens of a statement.
struct Cursor<'a> {
    toks: Vec<&'a TokenWithSpan>,
    i: usize,
    end: Position,
}

impl<'a> Cursor<'a> {
    fn new(tokens: &'a [TokenWithSpan]) -> Self {
        let toks: Vec<&TokenWithSpan> = tokens
            .iter()
            .filter(|t| !matches!(t.token, Token::Whitespace(_) | Token::SemiColon | Token::EOF))
            .collect();
        let end = toks.last().map(|t| pos(t)).unwrap_or_default();
        Cursor { toks, i: 0, end }
    }
    fn peek(&self) -> Option<&'a TokenWithSpan> {
        self.toks.get(self.i).copied()
    }
    fn at(&self) -> Position {
        self.peek().map(pos).unwrap_or(self.end)
    }
    fn is(&self, w: &str) -> bool {
        self.peek().is_some_and(|t| matches!(&t.token, Token::Word(x) if x.quote_style.is_none() && x.value.eq_ignore_ascii_case(w)))
    }
    fn eat(&mut self, w: &str) -> bool {
        let yes = self.is(w);
        if yes {
            self.i += 1;
        }
        yes
    }
    fn eat_tok(&mut self, t: &Token) -> bool {
        let yes = self.peek().is_some_and(|x| &x.token == t);
        if yes {
            self.i += 1;
        }
        yes
    }
    fn expect_tok(&mut self, t: &Token, what: &str) -> Result<(), Refusal> {
        if self.eat_tok(t) {
            Ok(())
        } else {
            Err((self.at(), format!("expected `{t}` {what}")))
        }
    }
    fn expect(&mut self, w: &str, what: &str) -> Result<(), Refusal> {
        if self.eat(w) {
            Ok(())
        } else {
            Err((self.at(), format!("expected {w} {what}")))
        }
    }
    fn name(&mut self, what: &str) -> Result<String, Refusal> {
        let t = self.peek().ok_or((self.end, format!("expected {what}")))?;
        let mut n = word_of(t).ok_or((pos(t), format!("expected {what}")))?;
        self.i += 1;
        // A qualified name: its last part.
        while self.eat_tok(&Token::Period) {
            let t = self.peek().ok_or((self.end, format!("expected {what}")))?;
            n = word_of(t).ok_or((pos(t), format!("expected {what}")))?;
            self.i += 1;
        }
        Ok(n)
    }
    /// Skips tokens up to (not over) a `,` or `)` at this depth.
    fn skip_to_item_end(&mut self) {
        let mut depth = 0;
        while let Some(t) = self.peek() {
            match t.token {
                Token::LParen => depth += 1,
                Token::RParen if depth == 0 => return,
                Token::RParen => depth -= 1,
                Token::Comma if depth == 0 => return,
                _ => {}
            }
            self.i += 1;
        }
    }
}

/// The index (in `chunk`) where a `PARTITION BY` at depth 0 starts, if any.
pub(crate) fn partition_by_at(chunk: &[TokenWithSpan]) -> Option<usize> {
    let mut depth = 0i32;
    let sig: Vec<usize> =
        (0..chunk.len()).filter(|&i| !matches!(chunk[i].token, Token::Whitespace(_))).collect();
    for (k, &i) in sig.iter().enumerate() {
        match &chunk[i].token {
            Token::LParen => depth += 1,
            Token::RParen => depth -= 1,
            Token::Word(w) if depth == 0 && w.value.eq_ignore_ascii_case("partition") => {
                let next = sig.get(k + 1).map(|&j| &chunk[j].token);
                if matches!(next, Some(Token::Word(b)) if b.value.eq_ignore_ascii_case("by")) {
                    return Some(i);
                }
            }
            _ => {}
        }
    }
    None
}

/// Reads a `PARTITION BY ...` clause (the tokens from `PARTITION` to the statement's end).
pub(crate) fn read_partition_by(
    tokens: &[TokenWithSpan],
    postgres: bool,
) -> Result<RawPartitioning, Refusal> {
    let mut c = Cursor::new(tokens);
    let at = c.at();
    c.expect("partition", "")?;
    c.expect("by", "after PARTITION")?;
    if c.is("linear") {
        return Err((
            c.at(),
            "PARTITION BY LINEAR HASH/KEY is not modelled (its powers-of-two routing is not \
             keylab's); valid: RANGE, LIST, HASH, KEY"
                .into(),
        ));
    }
    let method = match c.peek().and_then(word_of).map(|w| w.to_ascii_uppercase()).as_deref() {
        Some("RANGE") => PartitionMethod::Range,
        Some("LIST") => PartitionMethod::List,
        Some("HASH") => PartitionMethod::Hash,
        Some("KEY") if !postgres => PartitionMethod::Key,
        _ => {
            let valid = if postgres { "RANGE, LIST, HASH" } else { "RANGE, LIST, HASH, KEY" };
            return Err((c.at(), format!("unknown partitioning method; valid: {valid}")));
        }
    };
    c.i += 1;
    let columns_form = c.eat("columns");
    if method == PartitionMethod::Key && c.eat("algorithm") {
        c.eat_tok(&Token::Eq);
        c.i += 1;
    }
    c.expect_tok(&Token::LParen, "before the partition key")?;
    let mut columns = Vec::new();
    let mut function = PartitionFn::Column;
    loop {
        let key_at = c.at();
        let name = c.name("a partition key column")?;
        if c.eat_tok(&Token::LParen) {
            function = match name.to_ascii_uppercase().as_str() {
                "YEAR" => PartitionFn::Year,
                "TO_DAYS" => PartitionFn::ToDays,
                "UNIX_TIMESTAMP" => PartitionFn::UnixTimestamp,
                _ => {
                    return Err((
                        key_at,
                        format!(
                            "partition expression `{name}(...)` is not modelled; valid: a \
                             column, YEAR(col), TO_DAYS(col), UNIX_TIMESTAMP(col)"
                        ),
                    ))
                }
            };
            columns.push(c.name("a column")?);
            c.expect_tok(&Token::RParen, "after the function's column")?;
        } else {
            columns.push(name);
        }
        if matches!(
            c.peek().map(|t| &t.token),
            Some(Token::Word(_) | Token::Plus | Token::Minus | Token::Mul | Token::Div)
        ) {
            return Err((
                c.at(),
                "a partition key expression is not modelled; valid: columns, YEAR(col), \
                 TO_DAYS(col), UNIX_TIMESTAMP(col)"
                    .into(),
            ));
        }
        if !c.eat_tok(&Token::Comma) {
            break;
        }
    }
    c.expect_tok(&Token::RParen, "after the partition key")?;
    if function != PartitionFn::Column && columns.len() > 1 {
        return Err((at, "a partition function takes one column".into()));
    }
    let mut raw = RawPartitioning {
        method,
        columns_form,
        columns,
        function,
        count: None,
        partitions: Vec::new(),
        at,
        postgres,
    };
    if postgres {
        return Ok(raw);
    }
    if c.eat("partitions") {
        let t = c.peek().ok_or((c.end, "expected a number after PARTITIONS".to_string()))?;
        let n = match &t.token {
            Token::Number(n, _) => n.parse::<u32>().ok(),
            _ => None,
        };
        raw.count = Some(
            n.filter(|n| (1..=8192).contains(n))
                .ok_or((pos(t), "PARTITIONS takes a number of 1..=8192".to_string()))?,
        );
        c.i += 1;
    }
    if c.is("subpartition") {
        return Err((
            c.at(),
            "subpartitions are not modelled; valid: one level of partitions".into(),
        ));
    }
    if c.eat_tok(&Token::LParen) {
        loop {
            let p_at = c.at();
            c.expect("partition", "in the partition list")?;
            let name = c.name("a partition name")?;
            let bound = if c.eat("values") {
                if c.eat("less") {
                    c.expect("than", "after VALUES LESS")?;
                    if c.eat("maxvalue") {
                        RawBound::LessThan(vec![RawValue::Max])
                    } else {
                        RawBound::LessThan(read_tuple(&mut c)?)
                    }
                } else if c.eat("in") {
                    read_in_list(&mut c)?
                } else {
                    return Err((c.at(), "expected LESS THAN or IN after VALUES".into()));
                }
            } else if c.eat("default") {
                RawBound::Default
            } else {
                RawBound::Nth
            };
            raw.partitions.push(RawPartition { name, bound, at: p_at });
            // Partition options (ENGINE, COMMENT, DATA DIRECTORY...) change no page.
            c.skip_to_item_end();
            if !c.eat_tok(&Token::Comma) {
                break;
            }
        }
        c.expect_tok(&Token::RParen, "after the partition list")?;
    }
    if let Some(t) = c.peek() {
        return Err((pos(t), format!("`{}` after the partitioning is not read", t.token)));
    }
    Ok(raw)
}

/// `(v, ...)` of a bound.
fn read_tuple(c: &mut Cursor) -> Result<Vec<RawValue>, Refusal> {
    c.expect_tok(&Token::LParen, "before the bound's values")?;
    let mut out = Vec::new();
    loop {
        out.push(read_value(c)?);
        if !c.eat_tok(&Token::Comma) {
            break;
        }
    }
    c.expect_tok(&Token::RParen, "after the bound's values")?;
    Ok(out)
}

/// `IN (v, (a, b), ...)` of a LIST bound (`DEFAULT` alone is the default partition).
fn read_in_list(c: &mut Cursor) -> Result<RawBound, Refusal> {
    c.expect_tok(&Token::LParen, "before the list's values")?;
    if c.eat("default") {
        c.expect_tok(&Token::RParen, "after DEFAULT")?;
        return Ok(RawBound::Default);
    }
    let mut out = Vec::new();
    loop {
        if c.peek().is_some_and(|t| t.token == Token::LParen) {
            out.push(read_tuple(c)?);
        } else {
            out.push(vec![read_value(c)?]);
        }
        if !c.eat_tok(&Token::Comma) {
            break;
        }
    }
    c.expect_tok(&Token::RParen, "after the list's values")?;
    Ok(RawBound::In(out))
}

fn read_value(c: &mut Cursor) -> Result<RawValue, Refusal> {
    let t = c.peek().ok_or((c.end, "expected a bound value".to_string()))?;
    let at = pos(t);
    c.i += 1;
    let v = match &t.token {
        Token::Minus => match read_value(c)? {
            RawValue::Number(n) => RawValue::Number(format!("-{n}")),
            _ => return Err((at, "`-` before a value that is not a number".into())),
        },
        Token::Number(n, _) => RawValue::Number(n.clone()),
        Token::SingleQuotedString(s) => RawValue::Text(s.clone()),
        Token::Word(w) if w.quote_style.is_none() => match w.value.to_ascii_uppercase().as_str() {
            "MAXVALUE" => RawValue::Max,
            "MINVALUE" => RawValue::Min,
            "NULL" => RawValue::Null,
            // `timestamp '2020-01-01'`: the literal after the type's name.
            "DATE" | "TIMESTAMP" | "TIMESTAMPTZ" if c.peek().is_some_and(|t| matches!(t.token, Token::SingleQuotedString(_))) => {
                read_value(c)?
            }
            f if c.eat_tok(&Token::LParen) => {
                let inner = read_value(c)?;
                c.expect_tok(&Token::RParen, "after the function's argument")?;
                RawValue::Call(f.to_string(), Box::new(inner))
            }
            other => return Err((at, format!("bound value `{other}` is not read; valid: numbers, quoted text and times, MAXVALUE, MINVALUE"))),
        },
        other => return Err((at, format!("bound value `{other}` is not read; valid: numbers, quoted text and times, MAXVALUE, MINVALUE"))),
    };
    // `'2020-01-01'::timestamp with time zone`: the cast changes no bound keylab reads.
    if c.eat_tok(&Token::DoubleColon) {
        c.i += 1;
        let more = ["with", "without", "time", "zone", "varying", "precision"];
        while more.iter().any(|w| c.is(w)) {
            c.i += 1;
        }
    }
    Ok(v)
}
