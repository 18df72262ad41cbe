//! xtask and cargo: the workspace's root, the folder cargo builds into,
//! and running cargo (or any command) so that a failure says what failed.
//!
//! Where cargo puts what it builds is cargo's to say, not xtask's to
//! guess: `CARGO_TARGET_DIR`, `build.target-dir` in a cargo config, or the
//! default `target/` under the root. `cargo metadata` answers with all of
//! them applied, so xtask asks it once and finds the binaries it built
//! where cargo put them.

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context, Result, bail};

/// The repository root: xtask lives one level below it.
pub fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("xtask is a folder inside the workspace")
        .to_path_buf()
}

/// A `cargo` command: the cargo that runs xtask (`$CARGO`, set by
/// `cargo xtask`), so that every build uses one toolchain; else the
/// `cargo` on the `PATH`.
pub fn command() -> Command {
    Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()))
}

/// The folder cargo builds the workspace at `root` into, as `cargo
/// metadata` reports it (so `CARGO_TARGET_DIR` and cargo's configuration
/// count); the binaries of a profile are in its `debug/` or `release/`.
///
/// ```
/// use xtask::cargo::{target_dir, workspace_root};
///
/// let target = target_dir(&workspace_root())?;
/// assert!(target.is_absolute());
/// # anyhow::Ok(())
/// ```
pub fn target_dir(root: &Path) -> Result<PathBuf> {
    target_dir_from(metadata(root))
}

/// `cargo metadata` for the workspace at `root`, without its dependencies
/// (which it would otherwise resolve, and might download).
fn metadata(root: &Path) -> Command {
    let mut metadata = command();
    metadata
        .args(["metadata", "--format-version", "1", "--no-deps"])
        .current_dir(root);
    metadata
}

/// The `target_directory` that a `cargo metadata` command prints.
fn target_dir_from(mut metadata: Command) -> Result<PathBuf> {
    let output = metadata
        .output()
        .with_context(|| format!("cannot start {metadata:?}"))?;
    if !output.status.success() {
        bail!(
            "{metadata:?} failed ({}):\n{}",
            output.status,
            String::from_utf8_lossy(&output.stderr)
        );
    }
    let json: serde_json::Value =
        serde_json::from_slice(&output.stdout).context("cargo metadata printed no JSON")?;
    let dir = json["target_directory"]
        .as_str()
        .context("cargo metadata names no target_directory")?;
    Ok(PathBuf::from(dir))
}

/// Runs a command, failing with its name if it does not succeed.
pub fn run(command: &mut Command) -> Result<()> {
    let status = command
        .status()
        .with_context(|| format!("cannot start {command:?}"))?;
    if !status.success() {
        bail!("{command:?} failed: {status}");
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_target_folder_is_where_cargo_target_dir_puts_it() -> Result<()> {
        let root = workspace_root();
        let elsewhere = std::env::temp_dir().join(format!("xtask-target-{}", std::process::id()));
        let mut metadata = metadata(&root);
        metadata.env("CARGO_TARGET_DIR", &elsewhere);
        assert_eq!(target_dir_from(metadata)?, elsewhere);
        Ok(())
    }

    #[test]
    fn by_default_the_target_folder_is_under_the_root() -> Result<()> {
        let root = workspace_root();
        let mut metadata = metadata(&root);
        metadata
            .env_remove("CARGO_TARGET_DIR")
            .env_remove("CARGO_BUILD_TARGET_DIR");
        assert_eq!(target_dir_from(metadata)?, root.join("target"));
        Ok(())
    }
}
