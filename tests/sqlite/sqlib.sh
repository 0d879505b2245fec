# Helpers of the SQLite export tests that record a program (sourced after
# tests/integration/lib.sh; SRC = the source tree).

# doc_queries DB: every example query of docs/sqlite-schema.md runs on DB
# with the sqlite3 CLI without an error (skipped without the CLI); the
# results in DB.queries
doc_queries() {
	command -v sqlite3 >/dev/null || { echo "note: no sqlite3 CLI: example queries not run"; return; }
	/usr/bin/python3 - "$SRC/docs/sqlite-schema.md" "$1" <<'PY' || fail "example queries on $1"
import re, subprocess, sys
blocks = re.findall(r"^```sql\n(.*?)^```", open(sys.argv[1]).read(), re.M | re.S)
out = open(sys.argv[2] + ".queries", "w")
for b in blocks:
    r = subprocess.run(["sqlite3", "-bail", "-batch", sys.argv[2]], input=b, capture_output=True, text=True)
    if r.returncode or r.stderr:
        sys.exit(f"query failed: {r.stderr.strip()}\n{b}")
    out.write(r.stdout)
print(f"{len(blocks)} example queries ran")
PY
}
