//! keylab scenarios: the TOML format, the five published experiments built in, the matrix
//! expansion into runs, and the phase runner that turns one run on an
//! [`Engine`](keylab_core::Engine) into a
//! [`RunResult`](keylab_core::RunResult).
//!
//! What it does not do: build engines, print or export reports (the `keylab` binary does),
//! or estimate anything an engine does not give (a phase an engine cannot run is reported as
//! not applicable with the engine's reason).
//!
//! # The scenario format
//!
//! ```toml
//! name = "my-test"                      # required; written into the report
//! description = "one line for `keylab scenarios`"
//! variants = ["uuid4:text", "ulid:text"] # strategy[:encoding], as `keylab compare --keys`
//! placements = ["pk", "secondary"]       # default ["pk"]
//!
//! [[tables]]                             # one or more; runs use the first unless a matrix
//! name = "t"                             #   group names another (`table = [...]`)
//! row_format = "dynamic"                 # or "compact", "compressed" (DDL rules only on the model)
//! id = { name = "id" }                   # the id column: type from the variant, or
//!                                        #   type = "varchar(128)", charset = "ascii",
//!                                        #   unique = true (secondary placement: UNIQUE KEY)
//! surrogate = "pk"                       # the BIGINT AUTO_INCREMENT key in secondary placement
//! columns = [                            # after the id, in order (an inline table is one line)
//!   { name = "data", type = "varchar(255)", nullable = true, gen = { fixed = "data" } },
//! ]
//! indexes = [{ name = "k_data", columns = ["data"], unique = false }]
//!
//! [engine]                               # all optional
//! page_size = "16k"                      # 4k 8k 16k 32k 64k
//! buffer_pool = "128M"                   # bytes, or K/M/G
//! scale_buffer_pool = false              # --scale the pool too (keeps data/pool ratio)
//! fill_factor = 100                      # 10..100, innodb_fill_factor
//! merge_threshold = 50                   # 1..50, MERGE_THRESHOLD
//! change_buffering = true                # all (true) / none (false)
//! model = "mariadb-10.11"                # the simulator's model: mysql-8.0, postgres-15
//! autoinc_lock_mode = 1                  # 0 traditional, 1 consecutive, 2 interleaved
//! checkpoint_every_rows = 50_000         # PostgreSQL: a checkpoint every N rows inserted
//!                                        #   (scaled with --scale; model: postgres-15)
//! shards = 4                             # 2..16: Spider head + backends, or N model tables
//! sharding = "range"                     # or "hash" (PARTITION BY KEY)
//!
//! [generator]
//! ids_per_ms = 1                         # virtual clock rate
//! step_ms = 1                            # ms the clock advances per ids_per_ms ids
//! within_ms = "monotonic"                # or "random"
//! clock = "virtual"                      # or "wall"
//! node = 1                               # snowflake/tsid node
//! block = 50                             # values per round trip of sequence/table ids
//!
//! [[matrix]]                             # optional; each group is a product of its lists,
//! fill_factor = [100, 90]                #   the runs are the union of the groups; dims:
//! page_size = ["16k", "4k"]              #   table variants placements rows method batch
//!                                        #   writers page_size buffer_pool fill_factor
//!                                        #   merge_threshold change_buffering
//!                                        #   ids_per_ms within_ms (replace [generator]'s)
//!                                        #   autoinc_lock_mode sharding
//!
//! [[phases]]                             # in order; the first is a load
//! load = { rows = 100_000, method = "multi", batch = 1000, writers = 1, sample_every = 10_000 }
//!                                        # batch = "500..1500": varying shapes (multi, prepared)
//! [[phases]]
//! rebuild = { fill_factor = 90 }         # default: the run's engine fill factor
//! [[phases]]
//! restart = {}                          # server restart (cold pool); simulator: empty pool
//! [[phases]]
//! churn = { rounds = 20, inserts = 1000, deletes = 1000, measure_every = 5, insert_method = "multi", writers = 1, delete_method = "by_key" }
//!   # insert_method "row": one autocommitted INSERT per row from `writers` connections
//!   # (more than one: the server's insert order is its own); delete_method
//!   # "one_transaction": a round's deletes in one transaction (as DELETE ... ORDER BY RAND()
//!   # LIMIT n). keylab picks the deleted rows with its seed, uniformly, on every engine.
//! [[phases]]
//! queries = { runs = 20, point = 100, pk_range = 1000, id_prefix = "01J", full_scan = true }
//! # and/or id_share = 1.0 (a second query, `id_share`): a prefix (or, where no prefix
//! # comes within 5%, a BETWEEN range) chosen per run from the table's own ids to select
//! # that share of the rows
//! [[phases]]
//! ddl = { steps = [{ action = "add_column", column = "c", algorithm = "instant" }] }
//!                                        # add_column takes after = "col" (ADD ... AFTER col)
//!                                        # and type = "datetime" (default int; nullable);
//!   # a step takes lock = "none" | "shared" | "exclusive" (LOCK=); concurrent_writers = N
//!   # runs N connections inserting one row per statement while each statement runs, and
//!   # reports their longest stall and rows inserted during it (servers; the simulator
//!   # gives the rules' answer: accepted or refused, algorithm and lock used, whether
//!   # writers wait, times null). Under writers only columns an earlier step added can be
//!   # dropped.
//! # [[phases]]                           # last phase only; servers (the simulator: n/a)
//! # timed = { seconds = 10, threads = 64, interval_s = 1, max_rows = 1_000_000 }
//! #   threads insert one row per autocommitted statement for `seconds` (not scaled);
//! #   rows/s per interval with median, min and max; ends early when max_rows run out
//! ```
//!
//! Column types: `int`, `bigint`, `bigint unsigned`, `char(n)`, `varchar(n)`, `binary(n)`,
//! `text`, `timestamp`, `datetime`, `date`, `decimal(p,s)`. Generators (`gen`, required for
//! every column but the id): `{ fixed = "s" }`, `{ ascii = [min, max] }` (random letters
//! and digits), `{ uuid_prefix = n }` (`LEFT(UUID(), n)`: n characters of a UUID's text,
//! random hex digits with its dashes), `{ prefix_digit = "s" }` (`CONCAT('s',
//! FLOOR(RAND()*10))`), `{ seq = start }` or `{ seq = { start, every, cycle } }`, `{ int = [lo, hi] }`,
//! `{ timestamp = { start_unix_s, step_s, every, cycle } }`, `"null"`. A stepping generator
//! (`seq`, `timestamp`) gives each value to `every` rows (default 1) and, with `cycle`, starts
//! over after `cycle` values: `seq = { start = 1, every = 360 }` with `timestamp = { step_s =
//! 86_400, cycle = 360 }` is a grid of 360 days per id. Row order is generation order; the
//! same seed gives the same rows.
//!
//! Every value a generator makes must fit its column (integer and `decimal(p,s)` ranges,
//! `date`/`datetime` 1000-01-01 to 9999-12-31, `timestamp` 1970-01-01 00:00:01 to
//! 2038-01-19 03:14:07 UTC as on MariaDB 10.11, text lengths in characters, binary lengths
//! in bytes), over all of a run's rows at the `--scale` given: otherwise planning fails,
//! pointing at the generator, naming the column, the first row that would break it, its
//! value and the valid range.
//!
//! Every table refuses unknown fields. Errors name the file (or `builtin:NAME`), line and
//! column, and list the valid choices. `--scale F` multiplies every row count (load rows,
//! matrix rows, churn inserts and deletes, samples, pk ranges; at least 1 each); rounds,
//! query runs and point lookups are not row counts and stay.
//!
//! A run's phases each give a `PhaseResult` (see [`execute`]); the first is always
//! `settings` (the matrix cell and the engine settings asked for).

#![deny(missing_docs)]

mod builtin;
mod churn;
mod error;
mod execute;
mod plan;
mod ranges;
mod rows;
mod spec;
mod table;
pub mod validate;

pub use builtin::{
    builtin, builtin_names, load, validate_scenario, validate_shards_scenario, Builtin, BUILTINS,
    VALIDATE_SHARDS_TOML, VALIDATE_TOML,
};
pub use churn::{ChurnRound, LiveKeys};
pub use error::ScenarioError;
pub use execute::execute;
pub use plan::{scale_count, GeneratorSettings, PhasePlan, RunPlan, Scenario};
pub use rows::TableRows;
pub use table::{BuiltTable, ColumnGen, Steps};

#[cfg(test)]
mod ddl_type_tests;
#[cfg(test)]
mod repeat_tests;
#[cfg(test)]
mod tests;
