#!/bin/sh
# run-case.sh CASE - run one torture case for the automake test harness.
# CASE (stress/cases/*.torture) sets TORTURE_BIN (rcuradix-torture: the
# installed 64-slot library; rcuradix-torture-8: the 8-slot debug build),
# TORTURE_ARGS, and CASE_DURATION (seconds, for make check).
# Environment: TORTURE_DURATION overrides CASE_DURATION (make torture sets
# it); TORTURE_SEED replays a seed.  The exit status is the program's.
set -eu
TORTURE_BIN=
TORTURE_ARGS=
CASE_DURATION=2
. "$1"
duration=${TORTURE_DURATION:-$CASE_DURATION}
seed=
if [ -n "${TORTURE_SEED:-}" ]; then seed="--seed $TORTURE_SEED"; fi
# shellcheck disable=SC2086 # the argument lists are meant to split
exec "${top_builddir:-.}/stress/$TORTURE_BIN" $TORTURE_ARGS --duration "$duration" $seed
