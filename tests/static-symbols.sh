#!/bin/sh
# static-symbols.sh - the static archive defines exactly the names the shared
# library exports (lib/rcuradix.sym): a program may use any other name,
# including those of the library's internal functions.
exec "${SHELL:-/bin/sh}" "${top_srcdir:-.}/tests/symbols.sh" --static
