//! Fuzz target `simplecdb_index`: the body is [`gamefs::fuzzing::simplecdb_index`], shared with tests/fuzz_corpus.rs.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| gamefs::fuzzing::simplecdb_index(data));
