//! Fuzz target `go9_scores`: the body is [`gamefs::fuzzing::go9_scores`], shared with tests/fuzz_corpus.rs.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| gamefs::fuzzing::go9_scores(data));
