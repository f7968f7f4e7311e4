//! The checks of a scenario that do not depend on a matrix cell: a name, variants,
//! placements, tables (names, payload columns), the generator's node, `[engine] backends`
//! (their form; errors mask passwords), and a load as the first phase.
//!
//! Not for: checks of one cell's values (the matrix, the phases, the generators' ranges),
//! which planning makes per run.

use crate::error::ScenarioError;
use crate::spec::{PhaseSpec, ScenarioSpec};
use crate::table::{self, Ctx};

/// Checks that do not depend on a cell.
pub(super) fn check_top(cx: &Ctx, spec: &ScenarioSpec) -> Result<(), ScenarioError> {
    if spec.name.get_ref().trim().is_empty() {
        return Err(cx.err(spec.name.span(), "the scenario needs a name"));
    }
    if spec.variants.get_ref().is_empty() {
        return Err(cx.err(spec.variants.span(), "`variants` needs at least one key variant"));
    }
    if let Some(p) = &spec.placements {
        if p.get_ref().is_empty() {
            return Err(cx.err(p.span(), "`placements` needs at least one of pk, secondary"));
        }
    }
    let tables = spec.tables.get_ref();
    if tables.is_empty() {
        return Err(cx.err(spec.tables.span(), "`tables` needs at least one table"));
    }
    for (i, t) in tables.iter().enumerate() {
        if t.name.get_ref().is_empty()
            || !t.name.get_ref().chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        {
            return Err(cx.err(t.name.span(), "a table name needs letters, digits and `_` only"));
        }
        if tables[..i].iter().any(|o| o.name.get_ref() == t.name.get_ref()) {
            return Err(
                cx.err(t.name.span(), format!("table `{}` is defined twice", t.name.get_ref()))
            );
        }
        table::check_payload(cx, t)?;
    }
    let node = &spec.generator.node;
    if *node.get_ref() > keylab_keys::MAX_NODE {
        return Err(cx.err(
            node.span(),
            format!("node {} does not fit 10 bits; valid: 0 to 1023", node.get_ref()),
        ));
    }
    check_backends(cx, spec)?;
    let phases = spec.phases.get_ref();
    match phases.first() {
        None => return Err(cx.err(spec.phases.span(), "`phases` needs at least a load phase")),
        Some(p) if !matches!(p.get_ref(), PhaseSpec::Load(_)) => {
            return Err(cx.err(p.span(), "the first phase must be a load"))
        }
        Some(_) => {}
    }
    Ok(())
}

/// `[engine] backends`: 2 to 16 MySQL URLs, agreeing with `shards` when both are given. The
/// URLs are parsed in full when the engine connects (keylab-mariadb); here their form. (The
/// quoted line of any scenario error shows their passwords masked: see `ScenarioError::at`.)
fn check_backends(cx: &Ctx, spec: &ScenarioSpec) -> Result<(), ScenarioError> {
    let Some(list) = &spec.engine.backends else { return Ok(()) };
    let n = list.get_ref().len();
    if !(2..=16).contains(&n) {
        return Err(cx.err(
            list.span(),
            format!("`backends` lists {n} servers; valid: 2 to 16 (one per shard)"),
        ));
    }
    if let Some(shards) = spec.engine.shards.filter(|&s| s as usize != n) {
        return Err(cx.err(
            list.span(),
            format!("`shards = {shards}` but `backends` lists {n} servers; drop `shards`"),
        ));
    }
    let mut seen: Vec<String> = Vec::new();
    for url in list.get_ref() {
        let text = url.get_ref();
        let ok = ["mysql://", "mariadb://"]
            .iter()
            .any(|s| text.strip_prefix(s).is_some_and(|rest| !rest.is_empty()));
        if !ok {
            // Never echo the text: it may hold a password.
            return Err(cx.err(
                url.span(),
                "a backend is a MariaDB URL: mysql://USER[:PASSWORD]@HOST[:PORT][/DATABASE] (or \
                 mariadb://)",
            ));
        }
        let server = host_port(text);
        if let Some(first) = seen.iter().position(|s| *s == server) {
            return Err(cx.err(
                url.span(),
                format!(
                    "backend {} is {server} again, as backend {}: each shard needs a server of \
                     its own (two shards on one server share keylab's database there, and one's \
                     table replaces the other's); valid: distinct HOST:PORT",
                    seen.len() + 1,
                    first + 1
                ),
            ));
        }
        seen.push(server);
    }
    Ok(())
}

/// `host:port` of a backend URL (lower case; port 3306 when none is written), without its
/// user or password.
fn host_port(url: &str) -> String {
    let rest = url.split_once("://").map_or(url, |(_, r)| r);
    let authority = rest.split('/').next().unwrap_or(rest);
    let host = authority.rsplit_once('@').map_or(authority, |(_, h)| h).to_ascii_lowercase();
    let has_port = host.rsplit_once(':').is_some_and(|(_, p)| !p.contains(']'));
    if has_port {
        host
    } else {
        format!("{host}:3306")
    }
}
