//! `keylab keys`: print generated ids, one per line, as they are stored (text as is, binary
//! as lowercase hex, integers in decimal).

use crate::args::{GenArgs, KeysArgs};
use anyhow::Result;
use keylab_keys::{GenConfig, KeyGen};
use std::io::{BufWriter, Write};

/// Runs `keylab keys`.
pub fn run(args: KeysArgs) -> Result<()> {
    let gen = KeyGen::new(args.variant, &gen_config(&args.gen));
    let mut out = BufWriter::new(std::io::stdout().lock());
    for key in gen.take(usize::try_from(args.count).unwrap_or(usize::MAX)) {
        writeln!(out, "{key}")?;
    }
    out.flush()?;
    Ok(())
}

/// The generator configuration the flags describe.
pub fn gen_config(args: &GenArgs) -> GenConfig {
    GenConfig {
        seed: args.seed,
        ids_per_ms: args.ids_per_ms,
        step_ms: args.step_ms,
        block: args.block,
        within_ms: args.within_ms,
        clock: args.clock,
        ..GenConfig::default()
    }
}
