//! Fuzz target `scid5_chess960_record`: the body is [`gamefs::fuzzing::scid5_chess960_record`], shared with tests/fuzz_corpus.rs.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| gamefs::fuzzing::scid5_chess960_record(data));
