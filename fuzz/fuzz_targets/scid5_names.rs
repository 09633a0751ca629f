//! Fuzz target `scid5_names`: the body is [`gamefs::fuzzing::scid5_names`], shared with tests/fuzz_corpus.rs.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| gamefs::fuzzing::scid5_names(data));
