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

fn main() {
    let manifest = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets it"));
    let mut files = Vec::new();
    for root in ROOTS {
        println!("cargo:rerun-if-changed={root}");
        walk(&manifest.join(root), &mut files);
    }
    files.sort();
    let mut table = String::from("&[\n");
    for file in &files {
        let rel = file
            .strip_prefix(&manifest)
            .expect("under the manifest folder")
            .to_string_lossy()
            .replace('\\', "/");
        let abs = file.to_string_lossy().replace('\\', "/");
        writeln!(table, "    ({rel:?}, include_bytes!({abs:?}) as &[u8]),").expect("write");
    }
    table.push(']');
    let out = PathBuf::from(std::env::var("OUT_DIR").expect("cargo sets it")).join("bundle.rs");
    std::fs::write(out, table).expect("write bundle table");
}
