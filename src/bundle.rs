//! The specification bundled in the binary: the features, the target
//! profiles, the CRDs, the kind configurations, the controller's manifests
//! and the coverage catalogues, as they were when the binary was built
//! (`build.rs`).
//!
//! A spec file is read from disk when it exists there, and otherwise from
//! the bundle under the same relative path: in a checkout, `features/` is
//! the folder being edited; anywhere else, `kepspec run` runs the bundled
//! spec. `kepspec spec export DIR` writes the bundle out.

use std::borrow::Cow;
use std::io;
use std::path::{Component, Path, PathBuf};

/// Every bundled file: its path relative to the repository, its bytes.
pub static FILES: &[(&str, &[u8])] = include!(concat!(env!("OUT_DIR"), "/bundle.rs"));

/// A relative path as the bundle keys it: `/`-separated, with `.` dropped
/// and `..` resolved; None for an absolute path or one that leaves the root.
pub fn key(path: &Path) -> Option<String> {
    let mut parts: Vec<String> = Vec::new();
    for c in path.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                parts.pop()?;
            }
            Component::Normal(p) => parts.push(p.to_string_lossy().into_owned()),
            Component::RootDir | Component::Prefix(_) => return None,
        }
    }
    Some(parts.join("/"))
}

/// `path` with `.` dropped and `..` resolved against what precedes it,
/// without touching the file system.
pub fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                if !out.pop() {
                    out.push("..");
                }
            }
            other => out.push(other.as_os_str()),
        }
    }
    out
}

/// The bundled file at this relative path.
pub fn get(path: &Path) -> Option<&'static [u8]> {
    let key = key(path)?;
    FILES.iter().find(|(p, _)| *p == key).map(|(_, b)| *b)
}

/// The bundled files under this relative folder (`""` for all), sorted.
pub fn under(dir: &Path) -> Vec<PathBuf> {
    let Some(key) = key(dir) else {
        return Vec::new();
    };
    let prefix = if key.is_empty() {
        String::new()
    } else {
        format!("{key}/")
    };
    FILES
        .iter()
        .filter(|(p, _)| p.starts_with(&prefix))
        .map(|(p, _)| PathBuf::from(p))
        .collect()
}

/// Whether the path is served from the bundle: not on disk, but bundled
/// (as a file, or as a folder of bundled files).
pub fn serves(path: &Path) -> bool {
    !path.exists() && (get(path).is_some() || !under(path).is_empty())
}

/// Reads a spec file: from disk when it is there, else from the bundle.
pub fn read(path: &Path) -> io::Result<Cow<'static, [u8]>> {
    match std::fs::read(path) {
        Ok(bytes) => Ok(Cow::Owned(bytes)),
        Err(err) if err.kind() == io::ErrorKind::NotFound => match get(path) {
            Some(bytes) => Ok(Cow::Borrowed(bytes)),
            None => Err(err),
        },
        Err(err) => Err(err),
    }
}

/// [`read`] as UTF-8 text.
pub fn read_to_string(path: &Path) -> io::Result<String> {
    let bytes = read(path)?;
    String::from_utf8(bytes.into_owned())
        .map_err(|e| io::Error::new(io::ErrorKind::InvalidData, e.to_string()))
}

/// Writes every bundled file under `dir` (which may exist; files already
/// there are left alone unless `overwrite`). Returns the files written.
pub fn export(dir: &Path, overwrite: bool) -> io::Result<Vec<PathBuf>> {
    let mut written = Vec::new();
    for (rel, bytes) in FILES {
        let path = dir.join(rel);
        if path.exists() && !overwrite {
            return Err(io::Error::new(
                io::ErrorKind::AlreadyExists,
                format!("{} exists (--force overwrites it)", path.display()),
            ));
        }
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)?;
        }
        std::fs::write(&path, bytes)?;
        written.push(path);
    }
    Ok(written)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_bundle_holds_the_spec() {
        let features = under(Path::new("features"));
        assert!(features.len() > 50, "{features:?}");
        assert!(features.iter().all(|f| f.starts_with("features")));
        for needed in [
            "clusters/targets/upstream.yaml",
            "clusters/targets/openkruise-advanced-statefulset.yaml",
            "clusters/crds/apps.kruise.io_statefulsets.yaml",
            "clusters/kind/bundled.yaml",
            "clusters/manifests/controller.yaml",
            "coverage/promises.yaml",
            "spec/sources.yaml",
        ] {
            assert!(get(Path::new(needed)).is_some(), "{needed}");
        }
    }

    #[test]
    fn keys_resolve_dots() {
        assert_eq!(
            key(Path::new("./clusters/targets/../crds/x.yaml")).as_deref(),
            Some("clusters/crds/x.yaml")
        );
        assert_eq!(key(Path::new("../x")), None);
        assert_eq!(key(Path::new("/abs/x")), None);
        assert_eq!(
            normalize(Path::new("/a/b/../c/./d")),
            PathBuf::from("/a/c/d")
        );
        assert_eq!(normalize(Path::new("../a/../b")), PathBuf::from("../b"));
    }

    #[test]
    fn export_writes_every_file_and_refuses_to_overwrite() {
        let dir = tempfile::tempdir().unwrap();
        let written = export(dir.path(), false).unwrap();
        assert_eq!(written.len(), FILES.len());
        assert!(dir.path().join("features/recreate").is_dir());
        assert!(export(dir.path(), false).is_err());
        assert_eq!(export(dir.path(), true).unwrap().len(), FILES.len());
    }
}
