//! Fuzz target `scid_index`: the body is [`gamefs::fuzzing::scid_index`], shared with tests/fuzz_corpus.rs.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| gamefs::fuzzing::scid_index(data));
