//! Fuzz target `simplecdb_names`: the body is [`gamefs::fuzzing::simplecdb_names`], shared with tests/fuzz_corpus.rs.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| gamefs::fuzzing::simplecdb_names(data));
