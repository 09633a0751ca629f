# SPDX-License-Identifier: GPL-3.0-or-later
#
# Sourced by the oracle scripts: `filter_games BASE` is the 1-based numbers of the games in
# BASE's filter (what the last search left), ascending.
proc filter_games {base} {
    set count [sc_filter count]
    set nums {}
    if {$count > 0} {
        foreach {id info extra} [sc_base gameslist $base 0 $count dbfilter N+] {
            lappend nums [lindex [split $id _] 0]
        }
    }
    return $nums
}
