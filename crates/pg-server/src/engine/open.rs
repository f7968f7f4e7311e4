//! Opening a `PgEngine`: starting a private instance or connecting to a user's server at a
//! `--url`, claiming keylab's schema, installing the inspection extensions where allowed, and
//! the connection settings for either target.
//!
//! This module does not start the server process (see `crate::instance`) or decide what a
//! schema may hold (see `crate::owner`).

use super::{sql_err, PgEngine, Tally, Target, DEFAULT_SCHEMA};
use crate::connect::{connect_within, CONNECT_TIMEOUT};
use crate::instance::{PgInstance, PgSettings};
use crate::owner;
use crate::sql::{quote_ident, TextCollation};
use keylab_core::FillFactors;
use keylab_server_common::{ServerError, ServerUrl};
use postgres::Client;

impl PgEngine {
    /// A private instance started with `settings`, keylab's schema in database `keylab`.
    pub fn private(
        settings: &PgSettings,
        collation: TextCollation,
    ) -> Result<PgEngine, ServerError> {
        let instance = PgInstance::start(settings)?;
        let mut admin = connect_within(&instance.config("postgres"), CONNECT_TIMEOUT)
            .map_err(|e| ServerError::Connect(format!("cannot connect: {e}")))?;
        admin
            .batch_execute("CREATE DATABASE keylab")
            .map_err(|e| sql_err("CREATE DATABASE failed", e))?;
        let client = connect_within(&instance.config("keylab"), CONNECT_TIMEOUT)
            .map_err(|e| ServerError::Connect(format!("cannot connect: {e}")))?;
        PgEngine::set_up(Target::Private(Box::new(instance)), client, DEFAULT_SCHEMA, collation)
    }

    /// The server at `url`, keylab working only in `schema` (default `keylab`) of the URL's
    /// database, which it creates and marks, or refuses when it holds anything else.
    pub fn connect(
        url: &ServerUrl,
        schema: Option<&str>,
        collation: TextCollation,
    ) -> Result<PgEngine, ServerError> {
        let database = url.database.clone().ok_or_else(|| {
            ServerError::BadUrl(
                "a postgres:// --url must name the database to connect to \
                 (postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE); keylab works in a schema \
                 of its own inside it"
                    .into(),
            )
        })?;
        let schema = schema.unwrap_or(DEFAULT_SCHEMA);
        if !keylab_server_common::url::valid_identifier(schema) {
            return Err(ServerError::BadUrl(format!(
                "schema `{schema}` (--database): {}",
                keylab_server_common::url::IDENTIFIER_RULE
            )));
        }
        let target = Target::Url { url: url.clone(), database };
        let client = connect_to(&target)?;
        PgEngine::set_up(target, client, schema, collation)
    }

    pub(super) fn set_up(
        target: Target,
        mut client: Client,
        schema: &str,
        collation: TextCollation,
    ) -> Result<PgEngine, ServerError> {
        let where_ = target_name(&target);
        let claim = owner::claim_schema(&mut client, schema, &where_)?;
        let mut notes = Vec::new();
        let ext_schema = match &target {
            Target::Private(_) => "public".to_string(),
            Target::Url { .. } => quote_ident(schema),
        };
        let mut ext = |name: &str, client: &mut Client| {
            let ok = client
                .batch_execute(&format!(
                    "CREATE EXTENSION IF NOT EXISTS {name} SCHEMA {ext_schema}"
                ))
                .is_ok();
            if !ok {
                notes.push(format!(
                    "extension {name} is not available to keylab on {where_}: the figures it \
                     gives are null"
                ));
            }
            ok
        };
        let inspect = ext("pageinspect", &mut client) & ext("pgstattuple", &mut client);
        let fsm = ext("pg_freespacemap", &mut client);
        client
            .batch_execute(&format!("SET search_path = {}, public", quote_ident(schema)))
            .map_err(|e| sql_err("SET search_path failed", e))?;
        let version: String = client
            .query_one("SHOW server_version", &[])
            .map_err(|e| sql_err("reading the version failed", e))?
            .get(0);
        if matches!(target, Target::Url { .. }) {
            notes.push(
                "--url server: its WAL files are out of keylab's reach, so page splits, split \
                 records and full-page-image bytes are null; WAL records and full-page images \
                 come from pg_stat_wal, which counts the whole server"
                    .into(),
            );
        }
        Ok(PgEngine {
            target,
            client,
            schema: schema.to_string(),
            collation,
            version,
            inspect,
            fsm,
            tally: Tally::default(),
            notes,
            dropped_leftovers: claim.dropped_leftovers,
            current: None,
            checkpoint_every_rows: None,
            rows_loaded: 0,
            fill_factors: FillFactors::default(),
        })
    }
}

pub(super) fn target_name(target: &Target) -> String {
    match target {
        Target::Private(i) => format!("the private PostgreSQL on port {}", i.port()),
        Target::Url { url, database } => {
            format!("postgres://{}@{}/{database}", url.user, url.address())
        }
    }
}

/// The connection settings of `target`'s database.
pub(super) fn config_of(target: &Target) -> postgres::Config {
    match target {
        Target::Private(i) => i.config("keylab"),
        Target::Url { url, database } => {
            let mut c = postgres::Config::new();
            c.host(&url.host)
                .port(url.port)
                .user(&url.user)
                .dbname(database)
                // How a signal's cleanup finds this process's sessions to end them.
                .application_name(&crate::interrupted::application_name())
                .connect_timeout(CONNECT_TIMEOUT);
            if let Some(p) = &url.password {
                c.password(p);
            }
            c
        }
    }
}

pub(super) fn connect_to(target: &Target) -> Result<Client, ServerError> {
    connect_within(&config_of(target), CONNECT_TIMEOUT).map_err(|e| {
        ServerError::Connect(format!("cannot connect to {}: {e}", target_name(target)))
    })
}
