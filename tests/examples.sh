#!/bin/sh
# examples.sh - the example programs (built in this tree) run correctly: each
# checks its own results (exit status non-zero on a wrong item, a lost
# request, a page that missed the disk, a node left allocated...).  Short
# runs; the programs' defaults are longer.
set -u
status=0
run() {
	echo "== $*"
	if ! "$@"; then
		echo "FAILED: $*" >&2
		status=1
	fi
}
ex="${top_builddir:-.}/examples"
run "$ex/pagecache" 20000
run "$ex/idtable" 20000
run "$ex/qsbr" 20000
exit $status
