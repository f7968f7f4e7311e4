//! PostgreSQL's partitions: `CREATE TABLE p PARTITION OF t FOR VALUES ...` and pg_dump's
//! `ALTER TABLE t ATTACH PARTITION p FOR VALUES ...`, each one more partition of `t`.

use super::{pos, read_tuple, read_value, Cursor, RawBound, RawPartition, Refusal};
use sqlparser::tokenizer::{Token, TokenWithSpan};

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
