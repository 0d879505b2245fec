#!/usr/bin/env bash
# Runs one benchmark (bench/<name>.sh) or all of them. Benchmarks print tables
# and end with one summary line each; they are never pass/fail.
set -euo pipefail
build=${1:-build}
only=${2:-}
here=$(cd "$(dirname "$0")" && pwd)
build=$(cd "$build" && pwd)
status=0
for script in "$here"/*.sh; do
	name=$(basename "$script" .sh)
	[ "$name" = run ] && continue
	if [ -n "$only" ] && [ "$name" != "$only" ]; then
		continue
	fi
	echo "== bench: $name"
	bash "$script" "$build" || status=$?
done
if [ -n "$only" ] && [ ! -f "$here/$only.sh" ]; then
	echo "hetrace: no benchmark named '$only' (have: $(ls "$here"/*.sh | xargs -n1 basename | sed 's/\.sh$//' | grep -v '^run$' | tr '\n' ' '))" >&2
	exit 2
fi
exit $status
