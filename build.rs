//! Embeds the specification in the binary: every file under `features/`,
//! `clusters/`, `coverage/` and `spec/` becomes an entry of `bundle::FILES`, so an
//! installed `kepspec` runs the spec from any folder.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

const ROOTS: [&str; 4] = ["features", "clusters", "coverage", "spec"];

fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            walk(&path, out);
        } else {
            out.push(path);
        }
    }
}

/// A Rust array expression of `(relative path, include_...!(absolute path))`
/// for the files, sorted; `entry` writes one element from the two paths.
fn table(manifest: &Path, files: &mut [PathBuf], entry: impl Fn(&str, &str) -> String) -> String {
    files.sort();
    let mut table = String::from("&[\n");
    for file in files.iter() {
        let rel = file
            .strip_prefix(manifest)
            .expect("under the manifest folder")
            .to_string_lossy()
            .replace('\\', "/");
        let abs = file.to_string_lossy().replace('\\', "/");
        writeln!(table, "    {},", entry(&rel, &abs)).expect("write");
    }
    table.push(']');
    table
}

fn main() {
    let manifest = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets it"));
    let out_dir = PathBuf::from(std::env::var("OUT_DIR").expect("cargo sets it"));
    let mut files = Vec::new();
    for root in ROOTS {
        println!("cargo:rerun-if-changed={root}");
        walk(&manifest.join(root), &mut files);
    }
    let bundle = table(&manifest, &mut files, |rel, abs| {
        format!("({rel:?}, include_bytes!({abs:?}) as &[u8])")
    });
    std::fs::write(out_dir.join("bundle.rs"), bundle).expect("write bundle table");

    // The step definitions' sources, for the step catalogue
    // (`kepspec steps`): the phrases are read from their attributes.
    println!("cargo:rerun-if-changed=steps");
    let mut steps = Vec::new();
    walk(&manifest.join("steps"), &mut steps);
    steps.retain(|p| p.extension().is_some_and(|e| e == "rs"));
    let sources = table(&manifest, &mut steps, |rel, abs| {
        format!("({rel:?}, include_str!({abs:?}))")
    });
    std::fs::write(out_dir.join("step_sources.rs"), sources).expect("write step sources");
}
