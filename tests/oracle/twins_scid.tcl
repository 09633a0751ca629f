# SPDX-License-Identifier: GPL-3.0-or-later
#
# tkscid twins_scid.tcl DBBASE
#
# SCID's own twin detection on the database DBBASE, with the settings SCID's "Delete twin
# games" dialog starts with (twinSettingsDefaults, tcl/options.tcl), as its doMarkDups
# (tcl/file/maint.tcl) passes them to `sc_base duplicates`, which marks the twins it deletes
# deleted in the database. The dialog's `undelete Yes` (bring back every deleted game first)
# is left out: the database is made with no deleted game. Printed:
#     deleted: N            (the count sc_base duplicates returns)
set base [sc_base open [lindex $argv 0]]
set n [sc_base duplicates $base \
    -colors No -event No -site Yes -round Yes -year Yes -month Yes -day No \
    -result No -eco No -moves Yes -players No -skipshort Yes -setfilter No \
    -usefilter No -comments Yes -variations Yes -delete Shorter]
puts "deleted: $n"
sc_base close $base
