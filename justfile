# gamefs developer recipes. `just` is optional: every recipe is a plain command you can run.

# Mount the bundled sample database at ./gamefs-demo (Ctrl-C quits).
demo:
    contrib/dev/demo

# The whole test suite (unit, real SCID and PGN readers, real mounts); what CI runs.
test:
    contrib/dev/test

# Fuzz every target (fuzz/, cargo-fuzz) for `seconds` each, one after another; a crash fails.
fuzz seconds="60":
    contrib/dev/fuzz {{seconds}}

# The optimized (profile-guided) release binary, as installed and benchmarked; prints its path.
release out="":
    contrib/dev/release {{out}}

# Formatting, lints, unused dependencies (cargo-machete) and the duplicate-code check.
lint:
    contrib/dev/setup lint
    cargo fmt --check
    cargo clippy --all-targets --all-features -- -D warnings
    RUSTDOCFLAGS="-D warnings" cargo doc --no-deps
    cargo machete

# The Debian package (cargo-deb): builds the release binary, then target/debian/gamefs_*.deb;
# prints its path (`just deb --no-build` packages the target/release/gamefs already built).
deb *args:
    contrib/dev/deb {{args}}

# Build the user guide's site (target/book/index.html) and check every link and anchor.
docs:
    contrib/dev/docs

# Regenerate the man page and shell completions shipped in contrib/, and the guide's command
# and option reference (docs/guide/options.md), from the CLI definitions.
generated:
    mkdir -p contrib/man contrib/completions
    cargo run --quiet -- man > contrib/man/gamefs.1
    cargo run --quiet -- man --markdown > docs/guide/options.md
    cargo run --quiet -- completions bash > contrib/completions/gamefs.bash
    cargo run --quiet -- completions zsh > contrib/completions/_gamefs
    cargo run --quiet -- completions fish > contrib/completions/gamefs.fish

# Benchmark against Debian SCID: `just bench` 100 000 games; `just bench 1m` a million; `just bench
# 10m` ten million (on demand, hours); each run is a file of contrib/bench/runs/ (BENCHMARKS.md).
bench mode="full":
    contrib/bench/run.sh {{mode}}

# The 10 000-game benchmark (a couple of minutes; a smoke test, times not asserted).
bench-quick:
    contrib/bench/run.sh quick

# The crash-safety harness at full length: 1000 kill -9s during saves, creates, imports, deletes.
crash kills="1000":
    PATH="$PATH:/usr/games" GAMEFS_CRASH_KILLS={{kills}} cargo test --features mount-tests --test mount crash -- --nocapture
