# SPDX-License-Identifier: GPL-3.0-or-later
#
# tkscid annotators_scid.tcl DBBASE
#
# The annotator of each game of DBBASE as SCID reads it (SCID's header search has no
# annotator field; its game's extra tags hold it): a line `N<TAB>ANNOTATOR` per game that has
# one (N 1-based), from `sc_game tags get Extra`.
set base [sc_base open [lindex $argv 0]]
for {set g 1} {$g <= [sc_base numGames $base]} {incr g} {
    sc_game load $g
    foreach line [split [sc_game tags get Extra] "\n"] {
        if {[regexp {^Annotator "(.*)"$} $line -> annotator]} {
            puts "$g\t$annotator"
        }
    }
}
