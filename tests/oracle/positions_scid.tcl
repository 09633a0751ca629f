# SPDX-License-Identifier: GPL-3.0-or-later
#
# tkscid positions_scid.tcl DBBASE FENFILE
#
# For each FEN of FENFILE (one a line), what SCID's own board search and tree statistics say
# of the database DBBASE: `sc_search board RESET E false false` (Exact, main lines only) and
# `sc_tree stats` over the filter it leaves. Printed per position:
#     @@ LINE-NUMBER
#     games: N1 N2 ...          (1-based game numbers in the filter, ascending)
#     <the text of sc_tree stats>
set base [sc_base open [lindex $argv 0]]
set in [open [lindex $argv 1]]
set i 0
while {[gets $in fen] >= 0} {
    incr i
    sc_game new
    if {[catch {sc_game startBoard $fen} err]} {
        puts "@@ $i\nerror: $err"
        continue
    }
    sc_search board RESET E false false
    set count [sc_filter count]
    set nums {}
    if {$count > 0} {
        foreach {id info extra} [sc_base gameslist $base 0 $count dbfilter N+] {
            lappend nums [lindex [split $id _] 0]
        }
    }
    puts "@@ $i\ngames: $nums"
    puts [sc_tree stats $base dbfilter]
}
close $in
