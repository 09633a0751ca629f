//! `gamefs demo`: mount a bundled sample database in the foreground and show what to try.

use std::path::Path;
use std::process::ExitCode;

use super::{DemoArgs, MountOptions};
use gamefs::collection::chess::append_pgn;
use gamefs::collection::import::OnBadGame;
use gamefs::store;
use gamefs::text::keep_all;

/// The sample games (contrib/sample/demo.pgn), built into a database with gamefs's own encoder.
const SAMPLE_PGN: &str = include_str!("../../contrib/sample/demo.pgn");

/// Build the sample database in a temporary folder and mount it on `args.mountpoint` until Ctrl-C.
pub(crate) fn run(args: &DemoArgs) -> Result<ExitCode, String> {
    let dir = std::env::temp_dir().join(format!("gamefs-demo-{}", std::process::id()));
    std::fs::create_dir_all(&dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let base = dir.join("demo");
    store::create(&base, store::Format::Scid).map_err(|e| e.to_string())?;
    {
        let db = store::open(&base, true).map_err(|e| e.to_string())?;
        append_pgn(
            &*db,
            SAMPLE_PGN.as_bytes(),
            OnBadGame::RefuseAll,
            false,
            &keep_all,
            &mut |_| {},
        )
        .map_err(|e| format!("building the sample database: {e}"))?;
    }
    let created = !args.mountpoint.exists();
    if created {
        std::fs::create_dir_all(&args.mountpoint)
            .map_err(|e| format!("cannot create {}: {e}", args.mountpoint.display()))?;
    }
    let options = MountOptions {
        foreground: true,
        options: args.options.clone(),
        ..MountOptions::default()
    };
    let result =
        super::mount::prepare_and_serve(&dir.join("demo"), &args.mountpoint, &options, tour);
    let _ = std::fs::remove_dir_all(&dir);
    if created {
        let _ = std::fs::remove_dir(&args.mountpoint);
    }
    result
}

fn tour(mountpoint: &Path) {
    println!(
        "\
gamefs demo: a sample SCID database is mounted on {}

Try, in another terminal:
  cd {0}
  ls games | head                  one PGN file per game
  cat \"games/$(ls games | head -1)\"
  grep -rl Morphy games            search every game as text
  ls players years eco             the same games grouped (symlinks into games/)
  less players/*/*                 pagers and editors follow the links

Press Ctrl-C here to unmount and quit.",
        mountpoint.display()
    );
}
