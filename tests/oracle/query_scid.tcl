# SPDX-License-Identifier: GPL-3.0-or-later
#
# tkscid query_scid.tcl DBBASE QUERYFILE
#
# For each line of QUERYFILE, a Tcl list of SCID header search arguments (`-white carlsen
# -date {2012.??.?? 2012.12.31}`), the games SCID's own header search finds in DBBASE:
# `sc_search header -filter RESET ARGS...` (every game, then those meeting the arguments)
# and the filter it leaves. Printed per line:
#     @@ LINE-NUMBER
#     count: N                  (sc_filter count)
#     games: N1 N2 ...          (1-based game numbers in the filter, ascending)
source [file join [file dirname [info script]] filter_games.tcl]
set base [sc_base open [lindex $argv 0]]
set in [open [lindex $argv 1]]
set i 0
while {[gets $in line] >= 0} {
    incr i
    sc_search header -filter RESET {*}$line
    puts "@@ $i\ncount: [sc_filter count]\ngames: [filter_games $base]"
}
close $in
