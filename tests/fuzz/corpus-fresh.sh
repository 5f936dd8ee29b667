#!/bin/sh
# corpus-fresh.sh - the committed seeds (tests/fuzz/corpus/seed-*) are exactly
# what gen-corpus writes today: a change to the input encoding (fuzz-ops.h)
# that was not followed by `make fuzz-corpus` fails here instead of silently
# turning the seeds into other op sequences.  regress-* files (inputs the
# fuzzer found) are not generated and not compared.
set -eu
: "${top_builddir:=.}" "${top_srcdir:=.}"
corpus="$top_srcdir/tests/fuzz/corpus"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$top_builddir/tests/fuzz/gen-corpus" "$tmp"
status=0
for f in "$tmp"/*; do
	name=${f##*/}
	if ! cmp -s "$f" "$corpus/$name"; then
		echo "corpus-fresh: $name differs from the generator's output (run make fuzz-corpus)"
		status=1
	fi
done
for f in "$corpus"/seed-*; do
	name=${f##*/}
	if [ ! -e "$tmp/$name" ]; then
		echo "corpus-fresh: $name is no longer generated (remove it or run make fuzz-corpus)"
		status=1
	fi
done
[ "$status" = 0 ] && echo "corpus-fresh: $(ls "$tmp" | wc -l) seeds up to date"
exit $status
