//! Mount tests: filled in below.
