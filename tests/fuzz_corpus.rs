//! Every fuzz target's body ([`gamefs::fuzzing`]) over its seed corpus `fuzz/corpus/<target>/`,
//! on stable without libFuzzer: the seeds, and every crash the fuzzer found (committed to the
//! corpus with its fix), are checked by the normal test suite.

use std::path::Path;

#[test]
fn every_target_runs_its_corpus_without_a_panic() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/corpus");
    let mut failures = Vec::new();
    for (name, body) in gamefs::fuzzing::TARGETS {
        let dir = root.join(name);
        let mut inputs: Vec<_> = std::fs::read_dir(&dir)
            .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
            .map(|e| e.expect("a directory entry").path())
            .collect();
        inputs.sort();
        assert!(!inputs.is_empty(), "{}: no seeds", dir.display());
        for input in inputs {
            let data = std::fs::read(&input).expect("a corpus file");
            if std::panic::catch_unwind(|| body(&data)).is_err() {
                failures.push(input.display().to_string());
            }
        }
    }
    assert!(
        failures.is_empty(),
        "targets panicked on these inputs (reproduce: cargo fuzz run TARGET FILE):\n{}",
        failures.join("\n")
    );
}

#[test]
fn every_target_has_a_fuzz_target_file() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz");
    let manifest = std::fs::read_to_string(root.join("Cargo.toml")).expect("fuzz/Cargo.toml");
    for (name, _) in gamefs::fuzzing::TARGETS {
        let file = root.join(format!("fuzz_targets/{name}.rs"));
        let text =
            std::fs::read_to_string(&file).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
        assert!(
            text.contains(&format!("gamefs::fuzzing::{name}(")),
            "{} does not call gamefs::fuzzing::{name}",
            file.display()
        );
        assert!(
            manifest.contains(&format!("name = \"{name}\"")),
            "fuzz/Cargo.toml has no [[bin]] {name}"
        );
    }
}
