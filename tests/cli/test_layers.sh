#!/bin/sh
# The server's layers call downwards only (src/server/README.md): checks
# every #include "..." of src/server/*/ against the rules and fails naming
# each file that includes a header of a layer it may not see:
#   table/    (the domain)  nothing of api/ or transport/
#   people/                 nothing of table/, api/ or transport/
#   storage/                nothing of table/, people/, api/ or transport/
#   base/                   nothing of any other folder of src/server
# What the domain has to tell the upper layers goes through its outbox
# (table/outbox.h); what people has to, through the accounts' hooks.
cd "$(dirname "$0")/../.." || exit 1
S=src/server
[ -d $S/table ] && [ -d $S/transport ] || { echo "test_layers: no $S/table or $S/transport" >&2; exit 1; }
bad=0

# check <folder> <forbidden folders...>
check() {
	dir=$1; shift
	for f in $S/$dir/*.c $S/$dir/*.h; do
		[ -f "$f" ] || continue
		for h in $(sed -n 's/^[ \t]*#[ \t]*include[ \t]*"\([^"]*\)".*/\1/p' "$f"); do
			for up in "$@"; do
				if [ -f "$S/$up/$h" ]; then
					echo "test_layers: $f includes \"$h\" of $up/ (a $dir/ file may not)" >&2
					bad=$((bad + 1))
				fi
			done
		done
	done
}

check table api transport
check people table api transport
check storage table people api transport
check base table people storage api transport

# the rule must have something to look at: the headers it forbids exist
for h in transport/net.h api/api.h table/tables.h; do
	[ -f "$S/$h" ] || { echo "test_layers: $S/$h is gone; update this test" >&2; exit 1; }
done
[ $bad -eq 0 ] || { echo "test_layers: $bad include(s) against the layers" >&2; exit 1; }
exit 0
