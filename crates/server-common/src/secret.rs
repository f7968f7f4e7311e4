//! Secrets of private instances: a password generated per instance from the operating
//! system's random source, so that only keylab (which holds it in memory) can log in to the
//! servers it starts, and files that hand a secret to a server once, readable by its owner only.
//!
//! A [`Secret`] never shows itself: its `Debug` prints a mask. This module starts nothing.

use std::io::{self, Read, Write};
use std::os::unix::fs::OpenOptionsExt;
use std::path::Path;

/// Random bytes in a secret: 144 bits, far beyond guessing over a loopback port.
const SECRET_BYTES: usize = 18;

/// A password generated for one private instance (lowercase hex: safe inside SQL literals,
/// option files and URLs without quoting).
#[derive(Clone, PartialEq, Eq)]
pub struct Secret(String);

impl Secret {
    /// A new secret from `/dev/urandom`.
    pub fn generate() -> io::Result<Secret> {
        let mut bytes = [0u8; SECRET_BYTES];
        std::fs::File::open("/dev/urandom")?.read_exact(&mut bytes)?;
        Ok(Secret(bytes.iter().map(|b| format!("{b:02x}")).collect()))
    }

    /// The password itself, to give to a client library or a server's bootstrap.
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Debug for Secret {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Secret(***)")
    }
}

/// Writes `text` to a new file `path` with mode 0600 (refusing one that exists, so nothing
/// planted there first is reused), owned by `owner` (`uid`, `gid`) when given: how a secret
/// reaches a server's bootstrap without its command line or environment.
pub fn write_private_file(path: &Path, text: &str, owner: Option<(u32, u32)>) -> io::Result<()> {
    let mut file =
        std::fs::OpenOptions::new().write(true).create_new(true).mode(0o600).open(path)?;
    if let Some((uid, gid)) = owner {
        std::os::unix::fs::fchown(&file, Some(uid), Some(gid))?;
    }
    file.write_all(text.as_bytes())?;
    file.sync_all()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    #[test]
    fn secrets_are_hex_distinct_and_never_shown() {
        let a = Secret::generate().unwrap();
        let b = Secret::generate().unwrap();
        assert_ne!(a, b);
        assert_eq!(a.expose().len(), 2 * SECRET_BYTES);
        assert!(a.expose().bytes().all(|c| c.is_ascii_hexdigit() && !c.is_ascii_uppercase()));
        assert_eq!(format!("{a:?}"), "Secret(***)");
    }

    #[test]
    fn private_files_are_0600_and_never_reused() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("pw");
        write_private_file(&path, "x", None).unwrap();
        let mode = std::fs::metadata(&path).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
        assert!(write_private_file(&path, "y", None).is_err());
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "x");
    }
}
