#!/usr/bin/env bash
# The MPI libraries export what they must and nothing else: libhetrace-mpi.so
# exactly the MPI_* functions of interpose.h's list (a name missing there is
# a call never recorded; an extra one would shadow libmpi), and
# libhetrace-mpireduce.so its one entry point.
#   mpi_exports.sh BUILD_DIR SOURCE_DIR
set -eu
lib=$1/lib
exports() {
	nm -D --defined-only "$1" | awk '{print $3}' | sort
}
want=$(grep -oE '^\s*X\([A-Za-z_]+,' "$2/src/mpi/interpose.h" | sed -E 's/^\s*X\(([A-Za-z_]+),/MPI_\1/' | sort)
got=$(exports "$lib/libhetrace-mpi.so")
[ "$(echo "$want" | wc -l)" -ge 90 ] || { echo "FAIL: interpose.h's list not read"; exit 1; }
[ "$got" = "$want" ] || { echo "FAIL: libhetrace-mpi.so exports differ:"; diff <(echo "$want") <(echo "$got"); exit 1; }
got=$(exports "$lib/libhetrace-mpireduce.so")
[ "$got" = ht_mpi_reduce_report ] || { echo "FAIL: libhetrace-mpireduce.so exports: $got"; exit 1; }
echo "ok: $(echo "$want" | wc -l) MPI functions exported, and the reduction's entry point"
