//! Fuzz target `scid_names`: the body is [`gamefs::fuzzing::scid_names`], shared with tests/fuzz_corpus.rs.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| gamefs::fuzzing::scid_names(data));
