# gamefs developer recipes. `just` is optional: every recipe is a plain command you can run.

# Mount the bundled sample database at ./gamefs-demo (Ctrl-C quits).
demo:
    contrib/dev/demo

# The whole test suite (unit, real SCID and PGN readers, real mounts); what CI runs.
test:
    contrib/dev/test

# Formatting, lints and the duplicate-code check.
lint:
    cargo fmt --check
    cargo clippy --all-targets --all-features -- -D warnings
