//! `cargo xtask handout --offline DIR`: a hand-out for a lab without
//! internet.
//!
//! A hand-out builds from crates.io: the first `cargo build` downloads
//! every dependency its `Cargo.lock` names. In a lab whose machines cannot
//! reach crates.io that first build is where the class stops. So the
//! offline hand-out carries its dependencies' sources with it:
//!
//! - `vendor/`: `cargo vendor`'s copy of every crate the hand-out's lock
//!   names, checked against the lock's checksums;
//! - `.cargo/config.toml`: cargo's source replacement, pointing crates.io
//!   at `vendor/` (and nothing else: cargo is not told it is offline, so
//!   `cargo install` and the rest still work where there is a network);
//! - `book/book/`: the book already built, since `mdbook` is one more
//!   download; the README says to open `book/book/index.html`.
//!
//! The Rust toolchain itself is not in it: each machine needs the version
//! `rust-toolchain.toml` pins installed beforehand (`rustup toolchain
//! install`), which the README says too.

use std::path::Path;
use std::process::Command;

use anyhow::{Context, Result, bail};

use crate::cargo;

/// Where the vendored sources go, inside the hand-out.
pub const VENDOR: &str = "vendor";

/// Vendors the dependencies of the hand-out at `out` (made by
/// [`super::write`]), points cargo at them, builds the book, says so in
/// the README and commits it all.
///
/// ```no_run
/// use std::path::Path;
///
/// let root = xtask::cargo::workspace_root();
/// let out = Path::new("/tmp/ladder-lab");
/// xtask::handout::write(&root, out)?;
/// xtask::handout::offline::make(out)?;
/// assert!(out.join("vendor").is_dir() && out.join("book/book/index.html").is_file());
/// # anyhow::Ok(())
/// ```
pub fn make(out: &Path) -> Result<()> {
    let vendor = cargo::command()
        .args(["vendor", "--locked", "--quiet", VENDOR])
        .current_dir(out)
        .output()
        .context("cannot run cargo vendor")?;
    if !vendor.status.success() {
        bail!(
            "cargo vendor failed in {} (it needs crates.io, or the crates in cargo's cache):\n{}",
            out.display(),
            String::from_utf8_lossy(&vendor.stderr)
        );
    }
    std::fs::create_dir_all(out.join(".cargo"))?;
    std::fs::write(out.join(".cargo/config.toml"), config())?;

    let book = Command::new("mdbook")
        .arg("build")
        .arg(out.join("book"))
        .output()
        .context("cannot run mdbook (cargo install --locked mdbook)")?;
    if !book.status.success() {
        bail!(
            "mdbook build failed in the hand-out:\n{}",
            String::from_utf8_lossy(&book.stderr)
        );
    }

    let readme = out.join("README.md");
    let text = std::fs::read_to_string(&readme)?;
    std::fs::write(&readme, text + README)?;
    commit(out)
}

/// The hand-out's cargo configuration: crates.io replaced by `vendor/`.
fn config() -> String {
    format!(
        "# crates.io's crates come from vendor/, copied there with the hand-out:\n\
         # this copy builds without a network.\n\
         [source.crates-io]\n\
         replace-with = \"vendored-sources\"\n\n\
         [source.vendored-sources]\n\
         directory = \"{VENDOR}\"\n"
    )
}

/// What the README says of an offline hand-out.
const README: &str = "\n## Without internet\n\n\
    This copy builds without a network: the crates it uses are in `vendor/`, and\n\
    `.cargo/config.toml` tells cargo to take them from there. Rust itself is not in it:\n\
    install the version `rust-toolchain.toml` names (`rustup toolchain install`) while\n\
    you still have a network. The book is built already: open book/book/index.html\n\
    in a browser.\n";

/// The vendored sources, the configuration and the built book (which
/// `.gitignore` leaves out of a hand-out with a network, hence `--force`)
/// join the hand-out's one commit: `cargo xtask grade` compares a copy
/// with its first commit, and must not count them as a student's changes.
fn commit(out: &Path) -> Result<()> {
    if !out.join(".git").exists() {
        return Ok(());
    }
    for args in [
        &["add", "--all"][..],
        &["add", "--force", "book/book"],
        &[
            "-c",
            "user.name=async-ladder",
            "-c",
            "user.email=handout@invalid",
            "commit",
            "--quiet",
            "--amend",
            "-m",
            "The async-ladder exercises, for a lab without internet: vendored crates, the built book",
        ],
    ] {
        let output = Command::new("git")
            .args(args)
            .current_dir(out)
            .output()
            .context("cannot run git")?;
        if !output.status.success() {
            bail!(
                "git {args:?} failed in the hand-out: {}",
                String::from_utf8_lossy(&output.stderr)
            );
        }
    }
    Ok(())
}

/// Checks that the hand-out at `out` resolves its dependencies from its
/// own folder: `cargo metadata` (which resolves every dependency and
/// needs each one's manifest) with an empty `CARGO_HOME` and cargo told it
/// has no network.
pub fn check(out: &Path) -> Result<()> {
    let home = std::env::temp_dir().join(format!("xtask-offline-home-{}", std::process::id()));
    if home.exists() {
        std::fs::remove_dir_all(&home)?;
    }
    std::fs::create_dir_all(&home)?;
    let output = cargo::command()
        .args(["metadata", "--format-version", "1", "--locked"])
        .env("CARGO_HOME", &home)
        .env("CARGO_NET_OFFLINE", "true")
        .current_dir(out)
        .output()
        .context("cannot run cargo metadata")?;
    std::fs::remove_dir_all(&home)?;
    if !output.status.success() {
        bail!(
            "the offline hand-out does not resolve its crates without a network (empty \
             CARGO_HOME, CARGO_NET_OFFLINE=true):\n{}",
            String::from_utf8_lossy(&output.stderr)
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cargo_takes_crates_io_from_vendor_and_is_not_told_it_is_offline() {
        let config = config();
        let lines: Vec<&str> = config.lines().filter(|l| !l.starts_with('#')).collect();
        assert_eq!(
            lines,
            [
                "[source.crates-io]",
                "replace-with = \"vendored-sources\"",
                "",
                "[source.vendored-sources]",
                "directory = \"vendor\"",
            ]
        );
        assert!(!config.contains("[net]"), "{config}");
    }
}
