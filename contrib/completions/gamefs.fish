# Print an optspec for argparse to handle cmd's options that are independent of any subcommand.
function __fish_gamefs_global_optspecs
    string join \n log-level= h/help V/version
end

function __fish_gamefs_needs_command
    # Figure out if the current invocation already has a command.
    set -l cmd (commandline -opc)
    set -e cmd[1]
    argparse -s (__fish_gamefs_global_optspecs) -- $cmd 2>/dev/null
    or return
    if set -q argv[1]
        # Also print the command, so this can be used to figure out what it is.
        echo $argv[1]
        return 1
    end
    return 0
end

function __fish_gamefs_using_subcommand
    set -l cmd (__fish_gamefs_needs_command)
    test -z "$cmd"
    and return 1
    contains -- $cmd[1] $argv
end

complete -c gamefs -n "__fish_gamefs_needs_command" -l log-level -d 'Log level (error, warn, info, debug, trace); RUST_LOG overrides it' -r
complete -c gamefs -n "__fish_gamefs_needs_command" -s h -l help -d 'Print help'
complete -c gamefs -n "__fish_gamefs_needs_command" -s V -l version -d 'Print version'
complete -c gamefs -n "__fish_gamefs_needs_command" -f -a "mount" -d 'Mount a database as a folder of PGN files (detaches once the mount is ready)'
complete -c gamefs -n "__fish_gamefs_needs_command" -f -a "export" -d 'Write every game of a database as one PGN stream'
complete -c gamefs -n "__fish_gamefs_needs_command" -f -a "demo" -d 'Mount a bundled sample database and show what to try'
complete -c gamefs -n "__fish_gamefs_needs_command" -f -a "create" -d 'Create a new, empty database'
complete -c gamefs -n "__fish_gamefs_needs_command" -f -a "import" -d 'Append the games of PGN files to a database (as SCID\'s import does)'
complete -c gamefs -n "__fish_gamefs_needs_command" -f -a "compact" -d 'Drop deleted games and unused bytes (as SCID\'s compaction does); not while mounted'
complete -c gamefs -n "__fish_gamefs_needs_command" -f -a "convert" -d 'Copy the games of a database into a new one of another format (SCID 4, SCID 5, Simple Chess Database); deleted games are not copied'
complete -c gamefs -n "__fish_gamefs_needs_command" -f -a "info" -d 'Show what a database holds: format, games, deleted, names, years, reclaimable bytes'
complete -c gamefs -n "__fish_gamefs_needs_command" -f -a "check" -d 'List every problem of a database (damage, games that do not decode, index fields that do not match); exit status 1 if there is any'
complete -c gamefs -n "__fish_gamefs_needs_command" -f -a "twins" -d 'List the twin games of a chess database as SCID\'s twin detection finds them (its default settings), or with --delete mark deleted the copies SCID\'s "delete twin games" deletes'
complete -c gamefs -n "__fish_gamefs_needs_command" -f -a "go9" -d 'Darren Cook\'s 9x9 Go position databases: view, histogram, merge, diff-scores, import…'
complete -c gamefs -n "__fish_gamefs_needs_command" -f -a "completions" -d 'Print a shell completion script (bash, zsh, fish, elvish, powershell)'
complete -c gamefs -n "__fish_gamefs_needs_command" -f -a "man" -d 'Print the manual page (roff), e.g. `gamefs man | man -l -`'
complete -c gamefs -n "__fish_gamefs_needs_command" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c gamefs -n "__fish_gamefs_using_subcommand mount" -s o -d 'Mount options, comma-separated (see --help)' -r
complete -c gamefs -n "__fish_gamefs_using_subcommand mount" -l log-file -d 'Write the log to this file (otherwise: stderr in the foreground, syslog when detached)' -r -F
complete -c gamefs -n "__fish_gamefs_using_subcommand mount" -l log-level -d 'Log level (error, warn, info, debug, trace); RUST_LOG overrides it' -r
complete -c gamefs -n "__fish_gamefs_using_subcommand mount" -s f -l foreground -d 'Stay in the foreground (for systemd and debugging); Ctrl-C unmounts'
complete -c gamefs -n "__fish_gamefs_using_subcommand mount" -s r -l read-only -d 'Mount read-only (same as -o ro)'
complete -c gamefs -n "__fish_gamefs_using_subcommand mount" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c gamefs -n "__fish_gamefs_using_subcommand export" -s o -l output -d 'Write to this file instead of standard output (`-` is standard output)' -r -F
complete -c gamefs -n "__fish_gamefs_using_subcommand export" -l log-level -d 'Log level (error, warn, info, debug, trace); RUST_LOG overrides it' -r
complete -c gamefs -n "__fish_gamefs_using_subcommand export" -l include-deleted -d 'Include games marked deleted'
complete -c gamefs -n "__fish_gamefs_using_subcommand export" -s q -l quiet -d 'No progress output (progress shows only on a terminal, when writing to a file)'
complete -c gamefs -n "__fish_gamefs_using_subcommand export" -s h -l help -d 'Print help'
complete -c gamefs -n "__fish_gamefs_using_subcommand demo" -s o -d 'Mount options, as for `gamefs mount -o`' -r
complete -c gamefs -n "__fish_gamefs_using_subcommand demo" -l log-level -d 'Log level (error, warn, info, debug, trace); RUST_LOG overrides it' -r
complete -c gamefs -n "__fish_gamefs_using_subcommand demo" -s h -l help -d 'Print help'
complete -c gamefs -n "__fish_gamefs_using_subcommand create" -l format -d 'The format (default: from the path\'s extension, else SCID)' -r -f -a "scid\t'SCID 4: .si4, .sn4, .sg4'
scid5\t'SCID 5: .si5, .sn5, .sg5'
simplecdb\t'Simple Chess Database: .dci, .dcn, .dcs, .dce, .dcg'"
complete -c gamefs -n "__fish_gamefs_using_subcommand create" -l log-level -d 'Log level (error, warn, info, debug, trace); RUST_LOG overrides it' -r
complete -c gamefs -n "__fish_gamefs_using_subcommand create" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c gamefs -n "__fish_gamefs_using_subcommand import" -l format -d 'The format to create with --create (default: from the path\'s extension, else SCID)' -r -f -a "scid\t'SCID 4: .si4, .sn4, .sg4'
scid5\t'SCID 5: .si5, .sn5, .sg5'
simplecdb\t'Simple Chess Database: .dci, .dcn, .dcs, .dce, .dcg'"
complete -c gamefs -n "__fish_gamefs_using_subcommand import" -l rejects -d 'Write the text of every game left out, and of every game stored cut short or salvaged (SCID keeps the moves before a bad one, drops a NAG before a line\'s first move, …), as it was in the input, to this file (created, or replaced): a PGN file to mend and import again' -r -F
complete -c gamefs -n "__fish_gamefs_using_subcommand import" -l report -d 'Write the report of every game left out (file, game, line, reason) to this file (default: a new file under $XDG_STATE_HOME/gamefs/, named in the summary line)' -r -F
complete -c gamefs -n "__fish_gamefs_using_subcommand import" -l log-level -d 'Log level (error, warn, info, debug, trace); RUST_LOG overrides it' -r
complete -c gamefs -n "__fish_gamefs_using_subcommand import" -l create -d 'Create the database first if it does not exist'
complete -c gamefs -n "__fish_gamefs_using_subcommand import" -l lossy -d 'Simple Chess Database: store what the format cannot hold (long names, comments, variations, extra tags) as closely as it can, logging each loss, instead of refusing'
complete -c gamefs -n "__fish_gamefs_using_subcommand import" -l strict -d 'Store nothing of a file in which a game cannot be stored (by default such games are left out and reported, and the others stored)'
complete -c gamefs -n "__fish_gamefs_using_subcommand import" -s q -l quiet -d 'No progress or summary output (games left out are still named)'
complete -c gamefs -n "__fish_gamefs_using_subcommand import" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c gamefs -n "__fish_gamefs_using_subcommand compact" -l log-level -d 'Log level (error, warn, info, debug, trace); RUST_LOG overrides it' -r
complete -c gamefs -n "__fish_gamefs_using_subcommand compact" -s q -l quiet -d 'No summary output'
complete -c gamefs -n "__fish_gamefs_using_subcommand compact" -s h -l help -d 'Print help'
complete -c gamefs -n "__fish_gamefs_using_subcommand convert" -l format -d 'The target\'s format (default: from its extension, else SCID 4)' -r -f -a "scid\t'SCID 4: .si4, .sn4, .sg4'
scid5\t'SCID 5: .si5, .sn5, .sg5'
simplecdb\t'Simple Chess Database: .dci, .dcn, .dcs, .dce, .dcg'"
complete -c gamefs -n "__fish_gamefs_using_subcommand convert" -l log-level -d 'Log level (error, warn, info, debug, trace); RUST_LOG overrides it' -r
complete -c gamefs -n "__fish_gamefs_using_subcommand convert" -s q -l quiet -d 'No summary output (games left out are still named)'
complete -c gamefs -n "__fish_gamefs_using_subcommand convert" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c gamefs -n "__fish_gamefs_using_subcommand info" -l log-level -d 'Log level (error, warn, info, debug, trace); RUST_LOG overrides it' -r
complete -c gamefs -n "__fish_gamefs_using_subcommand info" -l json -d 'Print JSON for scripts instead of text'
complete -c gamefs -n "__fish_gamefs_using_subcommand info" -s q -l quiet -d 'No progress output'
complete -c gamefs -n "__fish_gamefs_using_subcommand info" -s h -l help -d 'Print help'
complete -c gamefs -n "__fish_gamefs_using_subcommand check" -l log-level -d 'Log level (error, warn, info, debug, trace); RUST_LOG overrides it' -r
complete -c gamefs -n "__fish_gamefs_using_subcommand check" -l json -d 'Print JSON for scripts instead of text'
complete -c gamefs -n "__fish_gamefs_using_subcommand check" -s q -l quiet -d 'No progress output'
complete -c gamefs -n "__fish_gamefs_using_subcommand check" -s h -l help -d 'Print help'
complete -c gamefs -n "__fish_gamefs_using_subcommand twins" -l log-level -d 'Log level (error, warn, info, debug, trace); RUST_LOG overrides it' -r
complete -c gamefs -n "__fish_gamefs_using_subcommand twins" -l delete -d 'Mark deleted the copies SCID\'s "delete twin games" deletes (the shorter of each pair, never a game with comments or variations), and only those; refused for a format gamefs only reads'
complete -c gamefs -n "__fish_gamefs_using_subcommand twins" -s q -l quiet -d 'No progress or summary output'
complete -c gamefs -n "__fish_gamefs_using_subcommand twins" -s h -l help -d 'Print help'
complete -c gamefs -n "__fish_gamefs_using_subcommand go9; and not __fish_seen_subcommand_from view histogram merge diff-scores import sgf add rm help" -l log-level -d 'Log level (error, warn, info, debug, trace); RUST_LOG overrides it' -r
complete -c gamefs -n "__fish_gamefs_using_subcommand go9; and not __fish_seen_subcommand_from view histogram merge diff-scores import sgf add rm help" -s h -l help -d 'Print help'
complete -c gamefs -n "__fish_gamefs_using_subcommand go9; and not __fish_seen_subcommand_from view histogram merge diff-scores import sgf add rm help" -f -a "view" -d 'Print positions as ASCII boards (all, or the given ids), with their scores'
complete -c gamefs -n "__fish_gamefs_using_subcommand go9; and not __fish_seen_subcommand_from view histogram merge diff-scores import sgf add rm help" -f -a "histogram" -d 'Count positions by number of stones on the board'
complete -c gamefs -n "__fish_gamefs_using_subcommand go9; and not __fish_seen_subcommand_from view histogram merge diff-scores import sgf add rm help" -f -a "merge" -d 'Join position files into one, dropping duplicate PositionIDs (first kept)'
complete -c gamefs -n "__fish_gamefs_using_subcommand go9; and not __fish_seen_subcommand_from view histogram merge diff-scores import sgf add rm help" -f -a "diff-scores" -d 'Compare two scored-position files; exit status 1 when they differ'
complete -c gamefs -n "__fish_gamefs_using_subcommand go9; and not __fish_seen_subcommand_from view histogram merge diff-scores import sgf add rm help" -f -a "import" -d 'Append ASCII board positions (9 rows of #, O, .) to a database'
complete -c gamefs -n "__fish_gamefs_using_subcommand go9; and not __fish_seen_subcommand_from view histogram merge diff-scores import sgf add rm help" -f -a "sgf" -d 'Print positions as SGF, as the mount shows them'
complete -c gamefs -n "__fish_gamefs_using_subcommand go9; and not __fish_seen_subcommand_from view histogram merge diff-scores import sgf add rm help" -f -a "add" -d 'Save SGF files into a database (the final position of each main line)'
complete -c gamefs -n "__fish_gamefs_using_subcommand go9; and not __fish_seen_subcommand_from view histogram merge diff-scores import sgf add rm help" -f -a "rm" -d 'Remove positions by id (rewrites the position file atomically)'
complete -c gamefs -n "__fish_gamefs_using_subcommand go9; and not __fish_seen_subcommand_from view histogram merge diff-scores import sgf add rm help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c gamefs -n "__fish_gamefs_using_subcommand go9; and __fish_seen_subcommand_from view" -l positions -d 'The position file, when the directory holds several or it lives elsewhere' -r -F
complete -c gamefs -n "__fish_gamefs_using_subcommand go9; and __fish_seen_subcommand_from view" -l zobrist -d 'The zobrist table (default: DIR/zobrist_board_81.dat)' -r -F
complete -c gamefs -n "__fish_gamefs_using_subcommand go9; and __fish_seen_subcommand_from view" -l scored -d 'A scored-position file (repeatable; default: every <program>_<ruleset>.dat in DIR)' -r -F
complete -c gamefs -n "__fish_gamefs_using_subcommand go9; and __fish_seen_subcommand_from view" -l log-level -d 'Log level (error, warn, info, debug, trace); RUST_LOG overrides it' -r
complete -c gamefs -n "__fish_gamefs_using_subcommand go9; and __fish_seen_subcommand_from view" -s h -l help -d 'Print help'
complete -c gamefs -n "__fish_gamefs_using_subcommand go9; and __fish_seen_subcommand_from histogram" -l positions -d 'The position file, when the directory holds several or it lives elsewhere' -r -F
complete -c gamefs -n "__fish_gamefs_using_subcommand go9; and __fish_seen_subcommand_from histogram" -l zobrist -d 'The zobrist table (default: DIR/zobrist_board_81.dat)' -r -F
complete -c gamefs -n "__fish_gamefs_using_subcommand go9; and __fish_seen_subcommand_from histogram" -l scored -d 'A scored-position file (repeatable; default: every <program>_<ruleset>.dat in DIR)' -r -F
complete -c gamefs -n "__fish_gamefs_using_subcommand go9; and __fish_seen_subcommand_from histogram" -l log-level -d 'Log level (error, warn, info, debug, trace); RUST_LOG overrides it' -r
complete -c gamefs -n "__fish_gamefs_using_subcommand go9; and __fish_seen_subcommand_from histogram" -s h -l help -d 'Print help'
complete -c gamefs -n "__fish_gamefs_using_subcommand go9; and __fish_seen_subcommand_from merge" -s o -l output -d 'The merged position file (written atomically; may be one of the inputs)' -r -F
complete -c gamefs -n "__fish_gamefs_using_subcommand go9; and __fish_seen_subcommand_from merge" -l log-level -d 'Log level (error, warn, info, debug, trace); RUST_LOG overrides it' -r
complete -c gamefs -n "__fish_gamefs_using_subcommand go9; and __fish_seen_subcommand_from merge" -s h -l help -d 'Print help'
complete -c gamefs -n "__fish_gamefs_using_subcommand go9; and __fish_seen_subcommand_from diff-scores" -l log-level -d 'Log level (error, warn, info, debug, trace); RUST_LOG overrides it' -r
complete -c gamefs -n "__fish_gamefs_using_subcommand go9; and __fish_seen_subcommand_from diff-scores" -s h -l help -d 'Print help'
complete -c gamefs -n "__fish_gamefs_using_subcommand go9; and __fish_seen_subcommand_from import" -l positions -d 'The position file, when the directory holds several or it lives elsewhere' -r -F
complete -c gamefs -n "__fish_gamefs_using_subcommand go9; and __fish_seen_subcommand_from import" -l zobrist -d 'The zobrist table (default: DIR/zobrist_board_81.dat)' -r -F
complete -c gamefs -n "__fish_gamefs_using_subcommand go9; and __fish_seen_subcommand_from import" -l scored -d 'A scored-position file (repeatable; default: every <program>_<ruleset>.dat in DIR)' -r -F
complete -c gamefs -n "__fish_gamefs_using_subcommand go9; and __fish_seen_subcommand_from import" -l to-play -d 'Player to move for boards without a `who=` line' -r -f -a "B\t''
W\t''"
complete -c gamefs -n "__fish_gamefs_using_subcommand go9; and __fish_seen_subcommand_from import" -l log-level -d 'Log level (error, warn, info, debug, trace); RUST_LOG overrides it' -r
complete -c gamefs -n "__fish_gamefs_using_subcommand go9; and __fish_seen_subcommand_from import" -l create -d 'Create DIR/positions.dat when the directory has no position file'
complete -c gamefs -n "__fish_gamefs_using_subcommand go9; and __fish_seen_subcommand_from import" -s h -l help -d 'Print help'
complete -c gamefs -n "__fish_gamefs_using_subcommand go9; and __fish_seen_subcommand_from sgf" -l positions -d 'The position file, when the directory holds several or it lives elsewhere' -r -F
complete -c gamefs -n "__fish_gamefs_using_subcommand go9; and __fish_seen_subcommand_from sgf" -l zobrist -d 'The zobrist table (default: DIR/zobrist_board_81.dat)' -r -F
complete -c gamefs -n "__fish_gamefs_using_subcommand go9; and __fish_seen_subcommand_from sgf" -l scored -d 'A scored-position file (repeatable; default: every <program>_<ruleset>.dat in DIR)' -r -F
complete -c gamefs -n "__fish_gamefs_using_subcommand go9; and __fish_seen_subcommand_from sgf" -l log-level -d 'Log level (error, warn, info, debug, trace); RUST_LOG overrides it' -r
complete -c gamefs -n "__fish_gamefs_using_subcommand go9; and __fish_seen_subcommand_from sgf" -s h -l help -d 'Print help'
complete -c gamefs -n "__fish_gamefs_using_subcommand go9; and __fish_seen_subcommand_from add" -l positions -d 'The position file, when the directory holds several or it lives elsewhere' -r -F
complete -c gamefs -n "__fish_gamefs_using_subcommand go9; and __fish_seen_subcommand_from add" -l zobrist -d 'The zobrist table (default: DIR/zobrist_board_81.dat)' -r -F
complete -c gamefs -n "__fish_gamefs_using_subcommand go9; and __fish_seen_subcommand_from add" -l scored -d 'A scored-position file (repeatable; default: every <program>_<ruleset>.dat in DIR)' -r -F
complete -c gamefs -n "__fish_gamefs_using_subcommand go9; and __fish_seen_subcommand_from add" -l replace -d 'Put the (single) file\'s position in place of this position id' -r
complete -c gamefs -n "__fish_gamefs_using_subcommand go9; and __fish_seen_subcommand_from add" -l log-level -d 'Log level (error, warn, info, debug, trace); RUST_LOG overrides it' -r
complete -c gamefs -n "__fish_gamefs_using_subcommand go9; and __fish_seen_subcommand_from add" -l create -d 'Create DIR/positions.dat when the directory has no position file'
complete -c gamefs -n "__fish_gamefs_using_subcommand go9; and __fish_seen_subcommand_from add" -s h -l help -d 'Print help'
complete -c gamefs -n "__fish_gamefs_using_subcommand go9; and __fish_seen_subcommand_from rm" -l positions -d 'The position file, when the directory holds several or it lives elsewhere' -r -F
complete -c gamefs -n "__fish_gamefs_using_subcommand go9; and __fish_seen_subcommand_from rm" -l zobrist -d 'The zobrist table (default: DIR/zobrist_board_81.dat)' -r -F
complete -c gamefs -n "__fish_gamefs_using_subcommand go9; and __fish_seen_subcommand_from rm" -l scored -d 'A scored-position file (repeatable; default: every <program>_<ruleset>.dat in DIR)' -r -F
complete -c gamefs -n "__fish_gamefs_using_subcommand go9; and __fish_seen_subcommand_from rm" -l log-level -d 'Log level (error, warn, info, debug, trace); RUST_LOG overrides it' -r
complete -c gamefs -n "__fish_gamefs_using_subcommand go9; and __fish_seen_subcommand_from rm" -s h -l help -d 'Print help'
complete -c gamefs -n "__fish_gamefs_using_subcommand go9; and __fish_seen_subcommand_from help" -f -a "view" -d 'Print positions as ASCII boards (all, or the given ids), with their scores'
complete -c gamefs -n "__fish_gamefs_using_subcommand go9; and __fish_seen_subcommand_from help" -f -a "histogram" -d 'Count positions by number of stones on the board'
complete -c gamefs -n "__fish_gamefs_using_subcommand go9; and __fish_seen_subcommand_from help" -f -a "merge" -d 'Join position files into one, dropping duplicate PositionIDs (first kept)'
complete -c gamefs -n "__fish_gamefs_using_subcommand go9; and __fish_seen_subcommand_from help" -f -a "diff-scores" -d 'Compare two scored-position files; exit status 1 when they differ'
complete -c gamefs -n "__fish_gamefs_using_subcommand go9; and __fish_seen_subcommand_from help" -f -a "import" -d 'Append ASCII board positions (9 rows of #, O, .) to a database'
complete -c gamefs -n "__fish_gamefs_using_subcommand go9; and __fish_seen_subcommand_from help" -f -a "sgf" -d 'Print positions as SGF, as the mount shows them'
complete -c gamefs -n "__fish_gamefs_using_subcommand go9; and __fish_seen_subcommand_from help" -f -a "add" -d 'Save SGF files into a database (the final position of each main line)'
complete -c gamefs -n "__fish_gamefs_using_subcommand go9; and __fish_seen_subcommand_from help" -f -a "rm" -d 'Remove positions by id (rewrites the position file atomically)'
complete -c gamefs -n "__fish_gamefs_using_subcommand go9; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c gamefs -n "__fish_gamefs_using_subcommand completions" -l log-level -d 'Log level (error, warn, info, debug, trace); RUST_LOG overrides it' -r
complete -c gamefs -n "__fish_gamefs_using_subcommand completions" -s h -l help -d 'Print help'
complete -c gamefs -n "__fish_gamefs_using_subcommand man" -l log-level -d 'Log level (error, warn, info, debug, trace); RUST_LOG overrides it' -r
complete -c gamefs -n "__fish_gamefs_using_subcommand man" -l markdown -d 'Print the guide\'s command and option reference (Markdown, docs/guide/options.md) instead of the man page'
complete -c gamefs -n "__fish_gamefs_using_subcommand man" -s h -l help -d 'Print help'
complete -c gamefs -n "__fish_gamefs_using_subcommand help; and not __fish_seen_subcommand_from mount export demo create import compact convert info check twins go9 completions man help" -f -a "mount" -d 'Mount a database as a folder of PGN files (detaches once the mount is ready)'
complete -c gamefs -n "__fish_gamefs_using_subcommand help; and not __fish_seen_subcommand_from mount export demo create import compact convert info check twins go9 completions man help" -f -a "export" -d 'Write every game of a database as one PGN stream'
complete -c gamefs -n "__fish_gamefs_using_subcommand help; and not __fish_seen_subcommand_from mount export demo create import compact convert info check twins go9 completions man help" -f -a "demo" -d 'Mount a bundled sample database and show what to try'
complete -c gamefs -n "__fish_gamefs_using_subcommand help; and not __fish_seen_subcommand_from mount export demo create import compact convert info check twins go9 completions man help" -f -a "create" -d 'Create a new, empty database'
complete -c gamefs -n "__fish_gamefs_using_subcommand help; and not __fish_seen_subcommand_from mount export demo create import compact convert info check twins go9 completions man help" -f -a "import" -d 'Append the games of PGN files to a database (as SCID\'s import does)'
complete -c gamefs -n "__fish_gamefs_using_subcommand help; and not __fish_seen_subcommand_from mount export demo create import compact convert info check twins go9 completions man help" -f -a "compact" -d 'Drop deleted games and unused bytes (as SCID\'s compaction does); not while mounted'
complete -c gamefs -n "__fish_gamefs_using_subcommand help; and not __fish_seen_subcommand_from mount export demo create import compact convert info check twins go9 completions man help" -f -a "convert" -d 'Copy the games of a database into a new one of another format (SCID 4, SCID 5, Simple Chess Database); deleted games are not copied'
complete -c gamefs -n "__fish_gamefs_using_subcommand help; and not __fish_seen_subcommand_from mount export demo create import compact convert info check twins go9 completions man help" -f -a "info" -d 'Show what a database holds: format, games, deleted, names, years, reclaimable bytes'
complete -c gamefs -n "__fish_gamefs_using_subcommand help; and not __fish_seen_subcommand_from mount export demo create import compact convert info check twins go9 completions man help" -f -a "check" -d 'List every problem of a database (damage, games that do not decode, index fields that do not match); exit status 1 if there is any'
complete -c gamefs -n "__fish_gamefs_using_subcommand help; and not __fish_seen_subcommand_from mount export demo create import compact convert info check twins go9 completions man help" -f -a "twins" -d 'List the twin games of a chess database as SCID\'s twin detection finds them (its default settings), or with --delete mark deleted the copies SCID\'s "delete twin games" deletes'
complete -c gamefs -n "__fish_gamefs_using_subcommand help; and not __fish_seen_subcommand_from mount export demo create import compact convert info check twins go9 completions man help" -f -a "go9" -d 'Darren Cook\'s 9x9 Go position databases: view, histogram, merge, diff-scores, import…'
complete -c gamefs -n "__fish_gamefs_using_subcommand help; and not __fish_seen_subcommand_from mount export demo create import compact convert info check twins go9 completions man help" -f -a "completions" -d 'Print a shell completion script (bash, zsh, fish, elvish, powershell)'
complete -c gamefs -n "__fish_gamefs_using_subcommand help; and not __fish_seen_subcommand_from mount export demo create import compact convert info check twins go9 completions man help" -f -a "man" -d 'Print the manual page (roff), e.g. `gamefs man | man -l -`'
complete -c gamefs -n "__fish_gamefs_using_subcommand help; and not __fish_seen_subcommand_from mount export demo create import compact convert info check twins go9 completions man help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c gamefs -n "__fish_gamefs_using_subcommand help; and __fish_seen_subcommand_from go9" -f -a "view" -d 'Print positions as ASCII boards (all, or the given ids), with their scores'
complete -c gamefs -n "__fish_gamefs_using_subcommand help; and __fish_seen_subcommand_from go9" -f -a "histogram" -d 'Count positions by number of stones on the board'
complete -c gamefs -n "__fish_gamefs_using_subcommand help; and __fish_seen_subcommand_from go9" -f -a "merge" -d 'Join position files into one, dropping duplicate PositionIDs (first kept)'
complete -c gamefs -n "__fish_gamefs_using_subcommand help; and __fish_seen_subcommand_from go9" -f -a "diff-scores" -d 'Compare two scored-position files; exit status 1 when they differ'
complete -c gamefs -n "__fish_gamefs_using_subcommand help; and __fish_seen_subcommand_from go9" -f -a "import" -d 'Append ASCII board positions (9 rows of #, O, .) to a database'
complete -c gamefs -n "__fish_gamefs_using_subcommand help; and __fish_seen_subcommand_from go9" -f -a "sgf" -d 'Print positions as SGF, as the mount shows them'
complete -c gamefs -n "__fish_gamefs_using_subcommand help; and __fish_seen_subcommand_from go9" -f -a "add" -d 'Save SGF files into a database (the final position of each main line)'
complete -c gamefs -n "__fish_gamefs_using_subcommand help; and __fish_seen_subcommand_from go9" -f -a "rm" -d 'Remove positions by id (rewrites the position file atomically)'
