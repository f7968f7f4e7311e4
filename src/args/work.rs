//! `compare`'s reads and mixed-workload flags (issue 28): `--reads` (a reads phase after the
//! load) and `--mix` (a mixed workload after that), parsed with keylab-core's spec parsers, so
//! a bad spec exits 2 naming the flag and the valid choices.
//!
//! Not for: running them (`cmd/compare.rs` hands them to `keylab_core::run_variant_with`).

use clap::Args;
use keylab_core::{MixSpec, PoolSize, ReadSpec, WorkPlan};

/// Reads and a mixed workload after the load.
#[derive(Debug, Clone, Default, Args)]
pub struct WorkArgs {
    /// After the load and its measurement, run reads on each table, comma-separated
    /// `KIND:COUNT[:DISTRIBUTION]`: KIND point, secondary (through the table's secondary index,
    /// then the row), range=ROWS, time-range=ROWS; DISTRIBUTION uniform (default),
    /// latest=PCT% (the rows inserted last), zipf=S. Reports page requests per read, misses
    /// per 1,000 reads (with --buffer-pool) and each index's working set.
    ///
    /// Example: --reads point:100000:latest=5%,point:100000:uniform
    #[arg(long, value_name = "SPEC,...", value_delimiter = ',', value_parser = parse_read)]
    pub reads: Vec<ReadSpec>,
    /// After the reads, a mixed workload `SHARE:KIND:OPS[:DISTRIBUTION]`: OPS operations, SHARE
    /// of them inserts of new rows (spread evenly), the others reads among the rows present
    /// at that moment.
    ///
    /// Example: --mix 10%:point:1000000:latest=5%
    #[arg(long, value_name = "SHARE:KIND:OPS[:DIST]", value_parser = parse_mix)]
    pub mix: Option<MixSpec>,
    /// Simulator, with --reads: also run the load and the reads on one more table per pool
    /// size, comma-separated shares of the table (`1/32`, `25%`) or sizes (`64M`), and show
    /// misses per 1,000 reads against cache size, and per variant the pool --hit-target needs
    /// [default with --hit-target: 1/32,1/16,1/8,1/4,1/2,1,2, then on InnoDB 2 on top of the
    /// free pages MariaDB's page cleaner keeps (innodb_lru_scan_depth, 1,536 pages: 24 MiB
    /// at 16k), which pools under about 2,300 pages cannot hold other pages in].
    #[arg(long, value_name = "SIZE,...", value_delimiter = ',', value_parser = parse_size)]
    pub pool_sizes: Vec<PoolSize>,
    /// With the curve (--pool-sizes): the hit ratio, percent, whose pool is reported per
    /// variant and read spec, interpolated from the curve [default: 99].
    #[arg(long, value_name = "PCT", value_parser = parse_target)]
    pub hit_target: Option<f64>,
}

impl WorkArgs {
    /// The plan of reads and mix under `seed`.
    pub fn plan(&self, seed: u64) -> WorkPlan {
        WorkPlan { reads: self.reads.clone(), mix: self.mix, seed }
    }

    /// The pool sizes of the reads curve, if one is asked for (`--pool-sizes`, or
    /// `--hit-target` alone: the default curve).
    pub fn curve(&self) -> Option<Vec<PoolSize>> {
        match (&self.pool_sizes[..], self.hit_target) {
            ([], None) => None,
            ([], Some(_)) => Some(PoolSize::default_curve()),
            (sizes, _) => Some(sizes.to_vec()),
        }
    }

    /// The target hit ratio, 0..1.
    pub fn hit_ratio_target(&self) -> f64 {
        self.hit_target.unwrap_or(99.0) / 100.0
    }
}

pub(crate) fn parse_size(s: &str) -> Result<PoolSize, String> {
    keylab_core::parse_pool_size(s, super::parse_byte_size)
}

pub(crate) fn parse_target(s: &str) -> Result<f64, String> {
    match s.trim().trim_end_matches('%').parse::<f64>() {
        Ok(p) if p > 0.0 && p < 100.0 => Ok(p),
        _ => Err(format!("hit target `{s}` is not valid; valid: a percentage, 0 < PCT < 100 (99)")),
    }
}

fn parse_read(s: &str) -> Result<ReadSpec, String> {
    s.parse()
}

fn parse_mix(s: &str) -> Result<MixSpec, String> {
    s.parse()
}

#[cfg(test)]
mod tests {
    use crate::args::{Cli, Command};
    use clap::Parser;

    #[test]
    fn reads_and_mix_parse_and_bad_specs_name_the_valid_choices() {
        let cli = Cli::try_parse_from([
            "keylab",
            "compare",
            "--reads",
            "point:1000:latest=5%,secondary:10",
            "--mix",
            "10%:point:500:zipf=0.99",
        ])
        .unwrap();
        let Command::Compare(args) = cli.command else { panic!("compare") };
        assert_eq!(args.work.reads.len(), 2);
        assert_eq!(args.work.mix.unwrap().inserts(), 50);
        let e = Cli::try_parse_from(["keylab", "compare", "--reads", "scan:5"]).unwrap_err();
        assert_eq!(e.exit_code(), 2);
        let text = e.to_string();
        assert!(text.contains("--reads") && text.contains("valid: point, secondary"), "{text}");
        let e = Cli::try_parse_from(["keylab", "compare", "--mix", "150%:point:5"]).unwrap_err();
        assert!(e.to_string().contains("--mix") && e.to_string().contains("0 <= share < 1"));
    }
}
