//! Fuzz target `scid5_index`: the body is [`gamefs::fuzzing::scid5_index`], shared with tests/fuzz_corpus.rs.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| gamefs::fuzzing::scid5_index(data));
