//! Building the engine a command asked for: the simulator, a private server instance, or a
//! user's server at `--url`.

use crate::args::EngineArgs;
use crate::UsageError;
use anyhow::Result;
use keylab_core::{Engine, EngineInfo, EngineKind, EngineSettings, Sharding, SimModel};
use keylab_innodb_model::{PoolSettings, SimSettings};
use keylab_mariadb::{MariaDbEngine, ServerSettings, SpiderEngine};
use keylab_pg_server::{PgEngine, PgSettings};
use keylab_server_common::url::PASSWORD_ENV;
use keylab_server_common::{ServerError, ServerUrl};
use keylab_sim::{flavour, nbtree_settings, NbtreeEngine, ShardedSim, SimEngine, SpiderShape};

/// The engine `args` name, configured with `settings`. `check_every` turns on the
/// simulator's invariant checker.
pub fn make_engine(
    args: &EngineArgs,
    settings: &EngineSettings,
    check_every: Option<u64>,
) -> Result<Box<dyn Engine>> {
    if !args.model.is_empty() && args.engine != EngineKind::Sim {
        return Err(UsageError(format!(
            "--model {} chooses the server the simulator models, so it needs --engine sim; \
             --engine {} is measured on the server itself",
            args.model_list(),
            args.engine
        ))
        .into());
    }
    if args.sharding.is_some() && args.shards.or(settings.shards).is_none() {
        return Err(UsageError(
            "--sharding routes rows over shards: add --shards N (2 to 16)".into(),
        )
        .into());
    }
    // The command line's --shards and --sharding win over the scenario's.
    if let Some(shards) = args.shards.or(settings.shards) {
        return sharded_engine(args, settings, shards);
    }
    match args.engine {
        EngineKind::Sim => {
            if args.url.is_some() {
                return Err(UsageError(
                    "--url needs a server engine: add --engine mariadb, mysql or postgres".into(),
                )
                .into());
            }
            // The command line's --model wins over the scenario's.
            let model = args.model().or(settings.model).unwrap_or_default();
            let Some(flavour) = flavour(model) else {
                return Ok(Box::new(NbtreeEngine::new(nbtree_settings(settings, check_every))));
            };
            let pool =
                PoolSettings { page_cleaner: args.page_cleaner.rules(), ..Default::default() };
            let sim = SimSettings { check_every, flavour, pool, ..sim_settings(settings)? };
            Ok(Box::new(
                SimEngine::new(sim)
                    .with_autoinc_lock_mode(settings.autoinc_lock_mode)
                    .with_interleave(args.interleave.mix()),
            ))
        }
        EngineKind::Mariadb | EngineKind::Mysql => server_engine(args, settings),
        EngineKind::Postgres => pg_engine(args, settings),
    }
}

/// A PostgreSQL engine: a private instance started with `settings`, or the `--url` server.
/// InnoDB-only settings (page size, innodb_fill_factor, change buffering, performance_schema)
/// do not apply: the block size is PostgreSQL's compiled-in 8 KiB, and the index fillfactor
/// is set by the rebuild phase.
fn pg_engine(args: &EngineArgs, settings: &EngineSettings) -> Result<Box<dyn Engine>> {
    let defaults = PgSettings::default();
    let pg = PgSettings {
        shared_buffers_bytes: settings.buffer_pool_bytes.unwrap_or(defaults.shared_buffers_bytes),
        ..defaults
    };
    let mut engine = match &args.url {
        Some(url) => {
            // KEYLAB_PASSWORD, else libpq's PGPASSWORD: both keep it out of `ps`.
            let env_password =
                std::env::var(PASSWORD_ENV).ok().or_else(|| std::env::var("PGPASSWORD").ok());
            let url =
                ServerUrl::parse_postgres_with_env_password(url.expose(), env_password.as_deref())
                    .map_err(usage_if_refused)?;
            PgEngine::connect(&url, args.database.as_deref(), args.collation)
                .map_err(usage_if_refused)?
        }
        None => PgEngine::private(&pg, args.collation).map_err(usage_if_refused)?,
    };
    engine.set_checkpoint_every_rows(settings.checkpoint_every_rows);
    for table in engine.dropped_leftovers() {
        eprintln!(
            "keylab: dropped `{}`.`{table}` on {}, left half-done by an interrupted keylab run",
            engine.schema(),
            engine.target_name()
        );
    }
    Ok(Box::new(engine))
}

/// The simulator's settings for `settings` (`keylab_sim::sim_settings`); a page size InnoDB
/// does not have is the user's to fix (exit 2).
pub fn sim_settings(settings: &EngineSettings) -> Result<SimSettings, UsageError> {
    keylab_sim::sim_settings(settings).map_err(|e| UsageError(e.to_string()))
}

/// How the simulator's sharded result reads like the Spider run's: the server engine's window
/// count and SQL literals.
const SPIDER_SHAPE: SpiderShape = SpiderShape {
    windows: keylab_mariadb::HOTSPOT_WINDOWS,
    write_literal: keylab_mariadb::sql::write_literal,
};

/// The engines of a series of runs: one per distinct settings (a server restarts for a new
/// page size), the previous one stopped before the next starts, and all of them described as
/// one engine block.
pub struct EngineSeries<'a> {
    args: &'a EngineArgs,
    current: Option<(EngineSettings, Box<dyn Engine>)>,
    /// The engines already stopped, folded into one description.
    stopped: Option<EngineInfo>,
}

impl<'a> EngineSeries<'a> {
    /// No engine started yet.
    pub fn new(args: &'a EngineArgs) -> EngineSeries<'a> {
        EngineSeries { args, current: None, stopped: None }
    }

    /// The engine for `settings`: the current one if its settings are the same, else a new one
    /// (the current one is stopped first).
    pub fn engine_for(&mut self, settings: &EngineSettings) -> Result<&mut dyn Engine> {
        if self.current.as_ref().is_none_or(|(s, _)| s != settings) {
            if let Some((_, old)) = self.current.take() {
                let info = old.info();
                match &mut self.stopped {
                    Some(all) => all.absorb(&info),
                    None => self.stopped = Some(info),
                }
                drop(old); // stop the old server before starting the next
            }
            self.current = Some((*settings, make_engine(self.args, settings, None)?));
        }
        Ok(self.current.as_mut().expect("engine made above").1.as_mut())
    }

    /// Every engine so far as one description (read after each run: engines add notes while
    /// they run); `None` before the first engine.
    pub fn info(&self) -> Option<EngineInfo> {
        let current = self.current.as_ref().map(|(_, e)| e.info());
        match (self.stopped.clone(), current) {
            (Some(mut all), Some(now)) => {
                all.absorb(&now);
                Some(all)
            }
            (all, now) => all.or(now),
        }
    }
}

/// `--shards N`: a Spider head over N private MariaDB backends, or the simulator's N model
/// tables routed the same way. Refused (exit 2) with `--url` (keylab starts every shard
/// itself) and on engines without Spider.
fn sharded_engine(
    args: &EngineArgs,
    settings: &EngineSettings,
    shards: u32,
) -> Result<Box<dyn Engine>> {
    if args.url.is_some() {
        return Err(UsageError(
            "--shards starts N private backends and a Spider head itself, so it cannot be used \
             with --url (one server); drop --url, or drop --shards"
                .into(),
        )
        .into());
    }
    if !(2..=keylab_mariadb::MAX_SHARDS).contains(&shards) {
        return Err(UsageError(format!(
            "shards = {shards}: valid: 2 to {} (each shard is a private server or a model table)",
            keylab_mariadb::MAX_SHARDS
        ))
        .into());
    }
    let sharding = args.sharding.or(settings.sharding).unwrap_or(Sharding::Range);
    match args.engine {
        EngineKind::Mariadb => {}
        EngineKind::Sim => {
            let model = args.model().or(settings.model).unwrap_or_default();
            let Some(flavour) = flavour(model) else {
                return Err(UsageError(format!(
                    "--shards runs InnoDB model tables; --model {} has no sharded form (valid: {})",
                    model.token(),
                    [SimModel::Mariadb1011, SimModel::Mysql80].map(SimModel::token).join(", ")
                ))
                .into());
            };
            let pool =
                PoolSettings { page_cleaner: args.page_cleaner.rules(), ..Default::default() };
            let sim = SimSettings { flavour, pool, ..sim_settings(settings)? };
            return Ok(Box::new(ShardedSim::new(
                sim,
                settings.autoinc_lock_mode,
                shards,
                sharding,
                SPIDER_SHAPE,
            )));
        }
        other => {
            return Err(UsageError(format!(
                "--shards needs --engine mariadb (MariaDB's Spider engine shards the table) or \
                 --engine sim (its model of the same routing); --engine {other} has no sharding"
            ))
            .into())
        }
    }
    let server_settings = server_settings(settings);
    if !args.backends.is_empty() {
        // A scenario's existing backends; KEYLAB_PASSWORD for a URL without a password.
        let env_password = std::env::var(PASSWORD_ENV).ok();
        let urls = args
            .backends
            .iter()
            .enumerate()
            .map(|(k, u)| {
                ServerUrl::parse_with_env_password(u.expose(), env_password.as_deref())
                    .map_err(|e| UsageError(format!("[engine] backends, server {}: {e}", k + 1)))
            })
            .collect::<Result<Vec<_>, _>>()?;
        let engine = SpiderEngine::with_backends(
            &server_settings,
            args.database.as_deref(),
            &urls,
            sharding,
        )
        .map_err(usage_if_refused)?;
        return Ok(Box::new(engine));
    }
    let engine =
        SpiderEngine::private(&server_settings, args.database.as_deref(), shards, sharding)
            .map_err(usage_if_refused)?;
    Ok(Box::new(engine))
}

/// The start settings of a private server for `settings`.
fn server_settings(settings: &EngineSettings) -> ServerSettings {
    let defaults = ServerSettings::default();
    ServerSettings {
        page_size_bytes: settings.page_size_bytes,
        buffer_pool_bytes: settings.buffer_pool_bytes.unwrap_or(defaults.buffer_pool_bytes),
        fill_factor_pct: u32::from(settings.fill_factor_pct),
        change_buffering: settings
            .change_buffering
            .map(|on| if on { "all" } else { "none" }.into()),
        performance_schema: settings.performance_schema.unwrap_or(defaults.performance_schema),
        autoinc_lock_mode: settings.autoinc_lock_mode,
        extra: read_ahead_off(settings.buffer_pool_bytes),
        ..defaults
    }
}

/// A MariaDB/MySQL engine: a private instance started with `settings`, or the `--url` server.
fn server_engine(args: &EngineArgs, settings: &EngineSettings) -> Result<Box<dyn Engine>> {
    let server_settings = server_settings(settings);
    let engine = match &args.url {
        Some(url) => {
            // KEYLAB_PASSWORD keeps the password out of the command line (and `ps`).
            let env_password = std::env::var(PASSWORD_ENV).ok();
            let url = ServerUrl::parse_with_env_password(url.expose(), env_password.as_deref())
                .map_err(usage_if_refused)?;
            MariaDbEngine::connect(&url, args.database.as_deref(), Some(&server_settings))
                .map_err(usage_if_refused)?
        }
        None => MariaDbEngine::private_in(&server_settings, args.database.as_deref())
            .map_err(usage_if_refused)?,
    };
    for table in engine.dropped_leftovers() {
        eprintln!(
            "keylab: dropped `{}`.`{table}` on {}, left half-done by an interrupted keylab run",
            engine.database(),
            engine.target_name()
        );
    }
    let found = engine.info().kind;
    if found != args.engine.token() {
        let how = if args.url.is_some() { "the server at --url" } else { "the installed server" };
        return Err(UsageError(format!(
            "--engine {} asked for, but {how} is {found} ({}); use --engine {found}",
            args.engine,
            engine.info().version
        ))
        .into());
    }
    Ok(Box::new(engine))
}

/// With a buffer pool size asked for, a private server starts with read-ahead off, so that
/// every page it reads is a miss counted in `Innodb_buffer_pool_reads`, as the simulator (which
/// models no read-ahead) counts them: `innodb_read_ahead_threshold=0` turns linear read-ahead
/// off (`buf_read_ahead_linear` returns at once) and random read-ahead is off already (said
/// explicitly). `Innodb_buffer_pool_read_ahead` then stays 0.
fn read_ahead_off(buffer_pool_bytes: Option<u64>) -> Vec<(String, String)> {
    match buffer_pool_bytes {
        Some(_) => vec![
            ("innodb_read_ahead_threshold".into(), "0".into()),
            ("innodb_random_read_ahead".into(), "OFF".into()),
        ],
        None => Vec::new(),
    }
}

/// A bad `--url` or a database keylab must not touch is the user's to fix: exit 2.
fn usage_if_refused(err: ServerError) -> anyhow::Error {
    match err {
        ServerError::BadUrl(_) | ServerError::Refused(_) => UsageError(err.to_string()).into(),
        other => other.into(),
    }
}
