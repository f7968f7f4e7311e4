//! Partitioning read from a statement's tokens (sqlparser reads none of it): MySQL/MariaDB's
//! `PARTITION BY RANGE|LIST [COLUMNS]|HASH|KEY (...) [PARTITIONS n] [(PARTITION ...)]` at the
//! end of a `CREATE TABLE`, PostgreSQL's `PARTITION BY RANGE|LIST|HASH (cols)` with its
//! partitions from `CREATE TABLE p PARTITION OF t FOR VALUES ...` and pg_dump's
//! `ALTER TABLE t ATTACH PARTITION p FOR VALUES ...`.
//!
//! What is read here is text with places ([`RawPartitioning`]); the builder resolves it
//! against the table's columns (`resolve`). It does not route rows.

use crate::Position;
use keylab_schema::{
    parse_time_text, BoundValue, Column, ColumnType, Partition, PartitionBound, PartitionFn,
    PartitionMethod, Partitioning, TemporalKind, Value, DAY_S, TO_DAYS_EPOCH,
};
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

type Refusal = (Position, String);

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

/// PostgreSQL's partition bound: `FOR VALUES FROM (..) TO (..)`, `IN (..)`,
/// `WITH (MODULUS m, REMAINDER r)`, or `DEFAULT`; the cursor's tokens start at it.
fn read_for_values(c: &mut Cursor) -> Result<RawBound, Refusal> {
    if c.eat("default") {
        return Ok(RawBound::Default);
    }
    c.expect("for", "before the partition's bound")?;
    c.expect("values", "after FOR")?;
    if c.eat("from") {
        let from = read_tuple(c)?;
        c.expect("to", "after FROM (...)")?;
        let to = read_tuple(c)?;
        return Ok(RawBound::FromTo(from, to));
    }
    if c.eat("in") {
        c.expect_tok(&Token::LParen, "before the list's values")?;
        let mut out = Vec::new();
        loop {
            out.push(vec![read_value(c)?]);
            if !c.eat_tok(&Token::Comma) {
                break;
            }
        }
        c.expect_tok(&Token::RParen, "after the list's values")?;
        return Ok(RawBound::In(out));
    }
    if c.eat("with") {
        c.expect_tok(&Token::LParen, "after WITH")?;
        let mut nums = [0u32; 2];
        for (k, w) in ["modulus", "remainder"].iter().enumerate() {
            c.expect(w, "in WITH (MODULUS m, REMAINDER r)")?;
            let t = c.peek().ok_or((c.end, "expected a number".to_string()))?;
            nums[k] = match &t.token {
                Token::Number(n, _) => {
                    n.parse().map_err(|_| (pos(t), "expected a number".to_string()))?
                }
                _ => return Err((pos(t), "expected a number".into())),
            };
            c.i += 1;
            c.eat_tok(&Token::Comma);
        }
        c.expect_tok(&Token::RParen, "after REMAINDER r")?;
        return Ok(RawBound::Remainder(nums[0], nums[1]));
    }
    Err((c.at(), "expected FROM, IN or WITH after FOR VALUES".into()))
}

/// `CREATE TABLE p PARTITION OF t [(...)] FOR VALUES ...`: the parent, the partition.
pub(crate) fn read_partition_of(
    tokens: &[TokenWithSpan],
) -> Option<Result<(String, RawPartition), Refusal>> {
    let mut c = Cursor::new(tokens);
    let at = c.at();
    c.eat("create");
    c.eat("unlogged");
    if !c.eat("table") {
        return None;
    }
    if c.eat("if") {
        c.eat("not");
        c.eat("exists");
    }
    let name = c.name("a table name").ok()?;
    if !(c.eat("partition") && c.eat("of")) {
        return None;
    }
    Some((|| {
        let parent = c.name("the parent table")?;
        if c.peek().is_some_and(|t| t.token == Token::LParen) {
            // Constraints of the partition alone: its columns are the parent's.
            c.i += 1;
            c.skip_to_item_end();
            while c.eat_tok(&Token::Comma) {
                c.skip_to_item_end();
            }
            c.expect_tok(&Token::RParen, "after the partition's constraints")?;
        }
        let bound = read_for_values(&mut c)?;
        if c.is("partition") {
            return Err((
                c.at(),
                "a partition partitioned again (sub-partitioning) is not modelled".to_string(),
            ));
        }
        Ok((parent, RawPartition { name, bound, at }))
    })())
}

/// pg_dump's `ALTER TABLE [ONLY] t ATTACH PARTITION p FOR VALUES ...`: the parent, the
/// partition.
pub(crate) fn read_attach(
    tokens: &[TokenWithSpan],
) -> Option<Result<(String, RawPartition), Refusal>> {
    let mut c = Cursor::new(tokens);
    if !(c.eat("alter") && c.eat("table")) {
        return None;
    }
    c.eat("only");
    if c.eat("if") {
        c.eat("exists");
    }
    let parent = c.name("a table name").ok()?;
    let at = c.at();
    if !(c.eat("attach") && c.eat("partition")) {
        return None;
    }
    Some((|| {
        let name = c.name("the partition")?;
        let bound = read_for_values(&mut c)?;
        Ok((parent, RawPartition { name, bound, at }))
    })())
}

fn int_type(ty: &ColumnType) -> bool {
    matches!(ty, ColumnType::Int | ColumnType::BigInt { .. } | ColumnType::Integer { .. })
}

fn time_type(ty: &ColumnType) -> bool {
    matches!(
        ty,
        ColumnType::Date
            | ColumnType::Timestamp
            | ColumnType::DateTime
            | ColumnType::Temporal {
                kind: TemporalKind::DateTime | TemporalKind::Timestamp | TemporalKind::TimestampTz,
                ..
            }
    )
}

fn text_type(ty: &ColumnType) -> bool {
    matches!(ty, ColumnType::Char { .. } | ColumnType::VarChar { .. } | ColumnType::Text { .. })
}

/// A bound literal as a value of the key (column `col` under `function`).
fn value_of(
    v: &RawValue,
    col: &Column,
    function: PartitionFn,
    at: Position,
) -> Result<BoundValue, Refusal> {
    let bad = |what: String| (at, what);
    let number = |n: &str| {
        n.parse::<i64>()
            .map_err(|_| bad(format!("bound `{n}` is not an integer (column `{}`)", col.name)))
    };
    let time = |s: &str| {
        parse_time_text(s).ok_or_else(|| {
            bad(format!("bound '{s}' is not a date or time (column `{}`)", col.name))
        })
    };
    Ok(BoundValue::Value(match v {
        RawValue::Min => return Ok(BoundValue::MinValue),
        RawValue::Max => return Ok(BoundValue::MaxValue),
        RawValue::Null => Value::Null,
        RawValue::Call(f, inner) => {
            let RawValue::Text(s) = inner.as_ref() else {
                return Err(bad(format!("{f}(...) of something else than a quoted time")));
            };
            let s = time(s)?;
            match f.as_str() {
                "TO_DAYS" => Value::Int(s.div_euclid(DAY_S) + TO_DAYS_EPOCH),
                "UNIX_TIMESTAMP" => Value::Int(s),
                "YEAR" => PartitionFn::Year.apply(&Value::Time(s)).unwrap_or(Value::Null),
                _ => return Err(bad(format!("function {f}(...) in a bound is not read; valid: TO_DAYS, UNIX_TIMESTAMP, YEAR"))),
            }
        }
        _ if function != PartitionFn::Column => match v {
            RawValue::Number(n) => Value::Int(number(n)?),
            _ => return Err(bad("a bound of a partition function is an integer".into())),
        },
        RawValue::Number(n) if int_type(&col.ty) => Value::Int(number(n)?),
        RawValue::Text(s) if int_type(&col.ty) => Value::Int(number(s)?),
        RawValue::Text(s) if time_type(&col.ty) => Value::Time(time(s)?),
        RawValue::Text(s) | RawValue::Number(s) if text_type(&col.ty) => {
            Value::Bytes(s.as_bytes().to_vec())
        }
        _ => {
            return Err(bad(format!(
                "partition key column `{}` ({}): bounds are read for integer, date/time and \
                 text columns",
                col.name,
                col.ty.sql(keylab_schema::Dialect::Mariadb)
            )))
        }
    }))
}

/// The partitioning of a table of `columns` as declared; a refusal names what cannot be
/// modelled and where.
pub(crate) fn resolve(raw: &RawPartitioning, columns: &[Column]) -> Result<Partitioning, Refusal> {
    let mut cols = Vec::new();
    for name in &raw.columns {
        let Some(i) = columns.iter().position(|c| c.name.eq_ignore_ascii_case(name)) else {
            let valid: Vec<&str> = columns.iter().map(|c| c.name.as_str()).collect();
            return Err((
                raw.at,
                format!(
                    "partition key column `{name}` is not a column of the table; valid: {}",
                    valid.join(", ")
                ),
            ));
        };
        cols.push(i);
    }
    if raw.function != PartitionFn::Column && !time_type(&columns[cols[0]].ty) {
        return Err((
            raw.at,
            format!(
                "{:?}(`{}`) is modelled for date and time columns",
                raw.function, columns[cols[0]].name
            ),
        ));
    }
    if matches!(raw.method, PartitionMethod::Hash)
        && raw.function == PartitionFn::Column
        && !cols.iter().all(|&c| int_type(&columns[c].ty))
    {
        return Err((raw.at, "HASH partitioning is modelled on integer columns; valid: an integer key, or KEY(...) partitioning".into()));
    }
    let mut partitions = Vec::new();
    for p in &raw.partitions {
        let tuple = |vals: &[RawValue]| -> Result<Vec<BoundValue>, Refusal> {
            if vals.len() != cols.len() && vals != [RawValue::Max] {
                return Err((
                    p.at,
                    format!(
                        "partition `{}`: {} bound values for {} key columns",
                        p.name,
                        vals.len(),
                        cols.len()
                    ),
                ));
            }
            vals.iter()
                .enumerate()
                .map(|(k, v)| {
                    value_of(v, &columns[cols[k.min(cols.len() - 1)]], raw.function, p.at)
                })
                .collect()
        };
        let bound = match &p.bound {
            RawBound::LessThan(v) => PartitionBound::LessThan(tuple(v)?),
            RawBound::FromTo(a, b) => PartitionBound::FromTo(tuple(a)?, tuple(b)?),
            RawBound::In(list) => {
                PartitionBound::In(list.iter().map(|t| tuple(t)).collect::<Result<_, _>>()?)
            }
            RawBound::Default => PartitionBound::Default,
            RawBound::Remainder(m, r) => PartitionBound::Remainder { modulus: *m, remainder: *r },
            RawBound::Nth => PartitionBound::Nth,
        };
        let fits = match (raw.method, &bound) {
            (
                PartitionMethod::Range,
                PartitionBound::LessThan(_) | PartitionBound::FromTo(..) | PartitionBound::Default,
            ) => true,
            (PartitionMethod::List, PartitionBound::In(_) | PartitionBound::Default) => true,
            (PartitionMethod::Hash, PartitionBound::Remainder { .. }) => raw.postgres,
            (PartitionMethod::Hash | PartitionMethod::Key, PartitionBound::Nth) => !raw.postgres,
            _ => false,
        };
        if !fits {
            return Err((
                p.at,
                format!(
                    "partition `{}`: its bound does not suit {} partitioning",
                    p.name,
                    raw.method.sql()
                ),
            ));
        }
        partitions.push(Partition { name: p.name.clone(), bound });
    }
    if matches!(raw.method, PartitionMethod::Hash | PartitionMethod::Key)
        && !raw.postgres
        && partitions.is_empty()
    {
        let n = raw.count.unwrap_or(1);
        partitions = (0..n)
            .map(|k| Partition { name: format!("p{k}"), bound: PartitionBound::Nth })
            .collect();
    }
    if partitions.is_empty() {
        let why = if raw.postgres {
            "a partitioned table without partitions (no PARTITION OF or ATTACH PARTITION for it in the file) holds no row"
        } else {
            "RANGE and LIST partitioning need their partitions listed"
        };
        return Err((raw.at, why.into()));
    }
    Ok(Partitioning {
        method: raw.method,
        columns: cols,
        columns_form: raw.columns_form,
        function: raw.function,
        partitions,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use sqlparser::dialect::{MySqlDialect, PostgreSqlDialect};
    use sqlparser::tokenizer::Tokenizer;

    fn toks(sql: &str, pg: bool) -> Vec<TokenWithSpan> {
        if pg {
            Tokenizer::new(&PostgreSqlDialect {}, sql).tokenize_with_location().unwrap()
        } else {
            Tokenizer::new(&MySqlDialect {}, sql).tokenize_with_location().unwrap()
        }
    }

    #[test]
    fn mysql_range_with_functions_and_maxvalue() {
        let sql = "PARTITION BY RANGE (TO_DAYS(created)) (PARTITION p0 VALUES LESS THAN \
                   (TO_DAYS('2020-01-01')) ENGINE = InnoDB, PARTITION pmax VALUES LESS THAN MAXVALUE)";
        let raw = read_partition_by(&toks(sql, false), false).unwrap();
        assert_eq!(raw.function, PartitionFn::ToDays);
        assert_eq!(raw.columns, ["created"]);
        assert_eq!(raw.partitions.len(), 2);
        assert_eq!(raw.partitions[1].bound, RawBound::LessThan(vec![RawValue::Max]));
        let cols = vec![Column::new("created", ColumnType::DateTime, false)];
        let p = resolve(&raw, &cols).unwrap();
        assert_eq!(
            p.partitions[0].bound,
            PartitionBound::LessThan(vec![BoundValue::Value(Value::Int(737_790))])
        );
    }

    #[test]
    fn mysql_list_columns_hash_and_key() {
        let raw = read_partition_by(
            &toks("PARTITION BY LIST COLUMNS(region) (PARTITION pe VALUES IN ('eu','uk'), PARTITION pa VALUES IN ('us'))", false),
            false,
        )
        .unwrap();
        assert!(raw.columns_form);
        assert_eq!(
            raw.partitions[0].bound,
            RawBound::In(vec![
                vec![RawValue::Text("eu".into())],
                vec![RawValue::Text("uk".into())]
            ])
        );
        let raw =
            read_partition_by(&toks("PARTITION BY HASH (id) PARTITIONS 4", false), false).unwrap();
        let cols = vec![Column::new("id", ColumnType::Int, false)];
        assert_eq!(resolve(&raw, &cols).unwrap().partitions.len(), 4);
        let raw = read_partition_by(
            &toks("PARTITION BY KEY ALGORITHM=2 (id) PARTITIONS 3", false),
            false,
        )
        .unwrap();
        assert_eq!(raw.method, PartitionMethod::Key);
        let e =
            read_partition_by(&toks("PARTITION BY LINEAR HASH (id)", false), false).unwrap_err();
        assert!(e.1.contains("LINEAR"), "{}", e.1);
        let e = read_partition_by(
            &toks("PARTITION BY RANGE (id * 2) (PARTITION p VALUES LESS THAN (3))", false),
            false,
        )
        .unwrap_err();
        assert!(e.1.contains("expression"), "{}", e.1);
    }

    #[test]
    fn postgres_partition_of_and_attach() {
        let (parent, p) = read_partition_of(&toks(
            "CREATE TABLE m_2024 PARTITION OF public.m FOR VALUES FROM ('2024-01-01') TO ('2025-01-01')",
            true,
        ))
        .unwrap()
        .unwrap();
        assert_eq!((parent.as_str(), p.name.as_str()), ("m", "m_2024"));
        let (parent, p) = read_attach(&toks(
            "ALTER TABLE ONLY public.payment ATTACH PARTITION public.payment_p2022_03 FOR VALUES FROM ('2022-03-01 00:00:00+00') TO ('2022-04-01 01:00:00+01')",
            true,
        ))
        .unwrap()
        .unwrap();
        assert_eq!((parent.as_str(), p.name.as_str()), ("payment", "payment_p2022_03"));
        let raw = RawPartitioning {
            method: PartitionMethod::Range,
            columns_form: false,
            columns: vec!["d".into()],
            function: PartitionFn::Column,
            count: None,
            partitions: vec![p],
            at: Position::default(),
            postgres: true,
        };
        let cols = vec![Column::new(
            "d",
            ColumnType::Temporal { kind: TemporalKind::TimestampTz, fsp: 6 },
            false,
        )];
        let got = resolve(&raw, &cols).unwrap();
        assert_eq!(
            got.partitions[0].bound,
            PartitionBound::FromTo(
                vec![BoundValue::Value(Value::Time(1_646_092_800))],
                vec![BoundValue::Value(Value::Time(1_648_771_200))]
            )
        );
        let (_, h) = read_partition_of(&toks(
            "CREATE TABLE h1 PARTITION OF h FOR VALUES WITH (MODULUS 4, REMAINDER 1)",
            true,
        ))
        .unwrap()
        .unwrap();
        assert_eq!(h.bound, RawBound::Remainder(4, 1));
        assert!(read_partition_of(&toks("CREATE TABLE t (id int)", true)).is_none());
    }
}
