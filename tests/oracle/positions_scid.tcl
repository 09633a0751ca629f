# SPDX-License-Identifier: GPL-3.0-or-later
#
# tkscid positions_scid.tcl DBBASE FENFILE [FIELD VALUE]
#
# For each FEN of FENFILE (one a line), what SCID's own board search and tree statistics say
# of the database DBBASE: `sc_search board RESET E false false` (Exact, main lines only) and
# `sc_tree stats` over the filter it leaves. With FIELD and VALUE, the board search's filter is
# ANDed with a header search first: FIELD `white`, `black`, `player` or `event` keeps the games
# whose name is VALUE exactly (`sc_search header -filter AND -white "\"VALUE\""`: SCID's
# exact match, where a name without quotes matches any name containing it); FIELD `date`, the
# games of the dates VALUE ranges over (`-date "2012.??.?? 2012.12.31"`). Printed per
# position:
#     @@ LINE-NUMBER
#     games: N1 N2 ...          (1-based game numbers in the filter, ascending)
#     <the text of sc_tree stats>
source [file join [file dirname [info script]] filter_games.tcl]
set base [sc_base open [lindex $argv 0]]
set in [open [lindex $argv 1]]
set header {}
if {[llength $argv] == 4} {
    set field [lindex $argv 2]
    set value [lindex $argv 3]
    if {$field eq "date"} {
        set header [list -date $value]
    } else {
        set header [list -$field "\"$value\""]
    }
}
set i 0
while {[gets $in fen] >= 0} {
    incr i
    sc_game new
    if {[catch {sc_game startBoard $fen} err]} {
        puts "@@ $i\nerror: $err"
        continue
    }
    sc_search board RESET E false false
    if {[llength $header] > 0} {
        sc_search header -filter AND {*}$header
    }
    puts "@@ $i\ngames: [filter_games $base]"
    puts [sc_tree stats $base dbfilter]
}
close $in
