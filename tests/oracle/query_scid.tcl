# SPDX-License-Identifier: GPL-3.0-or-later
#
# tkscid query_scid.tcl DBBASE QUERYFILE
#
# For each line of QUERYFILE, a Tcl list of SCID header search arguments (`-white carlsen
# -date {2012.??.?? 2012.12.31}`), the games SCID's own header search finds in DBBASE:
# `sc_search header -filter RESET ARGS...` (every game, then those meeting the arguments)
# and the filter it leaves. A line that starts with `material` is material search arguments
# instead (`material -wr {1 1} ...`: `sc_search material -filter RESET ARGS...`). Printed per
# line:
#     @@ LINE-NUMBER
#     count: N                  (sc_filter count)
#     games: N1 N2 ...          (1-based game numbers in the filter, ascending)
#     fen: FEN                  (material lines: each game's position where the search found
#                                it, as `sc_game load` shows it, a line per game in order)
source [file join [file dirname [info script]] filter_games.tcl]
set base [sc_base open [lindex $argv 0]]
set in [open [lindex $argv 1]]
set i 0
while {[gets $in line] >= 0} {
    incr i
    set kind header
    if {[lindex $line 0] eq "material"} {
        set kind material
        set line [lrange $line 1 end]
    }
    sc_search $kind -filter RESET {*}$line
    set games [filter_games $base]
    puts "@@ $i\ncount: [sc_filter count]\ngames: $games"
    if {$kind eq "material"} {
        # Where the search found each game: `sc_game load` goes to its first matching ply.
        foreach g $games {
            sc_game load $g
            puts "fen: [sc_pos fen]"
        }
    }
}
close $in
