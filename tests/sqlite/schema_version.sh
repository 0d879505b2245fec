# The SQLite schema is versioned (docs/sqlite-schema.md, "Versioning"): the
# DDL of an exported file must hash to what the docs list for the version the
# file claims, so a schema changed without a version bump fails here. Every
# table and column must also be described in the docs.
. "$(dirname "$0")/../integration/lib.sh"
SRC=$2
PY=/usr/bin/python3
"$PY" -c "import sqlite3" 2>/dev/null || { echo "SKIP: python3 sqlite3 module missing"; exit 77; }
"$BUILD/bin/synth_queues" q queues || fail "synth_queues"
"$HT" export q --format sqlite -o q.sqlite 2>err.txt || fail "export: $(cat err.txt)"
"$PY" - q.sqlite "$SRC/docs/sqlite-schema.md" "$SRC/src/export/sqlite.h" <<'PY' || fail "schema version"
import hashlib, re, sqlite3, sys
db = sqlite3.connect(sys.argv[1])
doc = open(sys.argv[2]).read()
header = open(sys.argv[3]).read()
meta = dict(db.execute("SELECT key, value FROM meta"))
version, compat = int(meta["schema_version"]), int(meta["schema_compat"])
want = {k: int(re.search(r"#define %s\s+(\d+)" % k, header).group(1))
        for k in ("HT_SQLITE_SCHEMA_VERSION", "HT_SQLITE_SCHEMA_COMPAT")}
if (version, compat) != (want["HT_SQLITE_SCHEMA_VERSION"], want["HT_SQLITE_SCHEMA_COMPAT"]):
    sys.exit(f"meta says version {version} compat {compat}, sqlite.h {want}")
rows = db.execute("SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY type, name").fetchall()
digest = hashlib.sha256("".join("%s|%s|%s|%s\n" % r for r in rows).encode()).hexdigest()
listed = {int(v): (int(c), h) for v, c, h in
          re.findall(r"^\| *(\d+) *\| *(\d+) *\| *`([0-9a-f]{64})` *\|", doc, re.M)}
if not listed:
    sys.exit("docs/sqlite-schema.md lists no schema versions")
if version not in listed:
    sys.exit(f"schema version {version} is not listed in docs/sqlite-schema.md; add:\n"
             f"| {version} | {compat} | `{digest}` | (what changed) |")
if listed[version][1] != digest:
    sys.exit(f"the schema changed but its version did not: version {version} is listed with DDL "
             f"{listed[version][1]}, this file's DDL hashes to {digest}.\nBump "
             f"HT_SQLITE_SCHEMA_VERSION (and HT_SQLITE_SCHEMA_COMPAT if queries break) in "
             f"src/export/sqlite.h and list the new version in docs/sqlite-schema.md")
if listed[version][0] != compat:
    sys.exit(f"version {version}: compat {compat} in the file, {listed[version][0]} in the docs")
if version != max(listed) or any(listed[v][0] > v for v in listed):
    sys.exit(f"the docs list versions {sorted(listed)}; the newest must be the one exported ({version})")
if len({h for _, h in listed.values()}) != len(listed):
    sys.exit("two versions are listed with the same DDL")
# every table and column is described: a '### table' section naming each column
for (table,) in db.execute("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name"):
    m = re.search(r"^### %s\n(.*?)(?=^##)" % re.escape(table), doc + "\n##", re.M | re.S)
    if not m:
        sys.exit(f"table {table} is not described in docs/sqlite-schema.md")
    described = set(re.findall(r"^\| *([a-z0-9_, ]+?) *\|", m.group(1), re.M))
    described = {c.strip() for cell in described for c in cell.split(",")}
    for col in db.execute(f"PRAGMA table_info({table})"):
        if col[1] not in described:
            sys.exit(f"column {table}.{col[1]} is not described in docs/sqlite-schema.md")
print(f"schema version {version} (compat {compat}): DDL {digest[:16]} as listed, {len(rows)} objects")
PY
echo "ok"
