#!/bin/bash
# PostgreSQL 15's USDT probes (issue 13, a real program): a throw-away
# cluster in this test's directory, run by a throw-away unprivileged user,
# its postmaster started under `utrace record -e postgresql:query__start
# -e 'postgresql:transaction__*'` (its backends are its fork children,
# traced with it).  psql runs a statement per connection and a script with
# an explicit transaction and a rollback; each backend that ran a query
# shows the query texts (query is a string: share/usdt/postgresql.usdt) and
# its transactions' start/commit/abort, counted.  Skipped without
# PostgreSQL 15, without its probes, or without root (for the user).
. "$(dirname "$0")/../lib/common.sh"
. "$UT_TESTS/lib/users.sh"

PGBIN=/usr/lib/postgresql/15/bin
{ [ -x "$PGBIN/postgres" ] && [ -x "$PGBIN/initdb" ]; } || skip "no PostgreSQL 15 in $PGBIN"
command -v psql >/dev/null || skip "no psql"
"$UTRACE" list -e "$PGBIN/postgres" >probes.txt 2>/dev/null
grep -q '^postgresql:query__start .*query:string' probes.txt ||
	skip "postgres has no postgresql:query__start probe (with its description)"
need_users
make_user PGU
# the cluster outside the test's directory, which the user may not enter
D=$(mktemp -d /tmp/utrace-pg.XXXXXX) || { fail "mktemp"; finish; }
mkdir -p "$D/sock" && chown -R "$PGU" "$D" && chmod 700 "$D"
pg() { (cd "$D" && as_user "$PGU" "$@"); }
pg "$PGBIN/initdb" -D "$D/data" -A trust -U postgres --no-sync >initdb.log 2>&1 ||
	{ fail "initdb exited $?: $(tail -n 5 initdb.log)"; finish; }

pg "$UTRACE" record -o "$D/pg.dat" -e 'postgresql:query__start' -e 'postgresql:transaction__*' -- \
	"$PGBIN/postgres" -D "$D/data" -k "$D/sock" -c listen_addresses= -c autovacuum=off \
	-c fsync=off >rec.log 2>&1 &
REC=$!
stop_pg() {
	local pm
	pm=$(head -n 1 "$D/data/postmaster.pid" 2>/dev/null)
	[ -n "$pm" ] && kill -INT "$pm" 2>/dev/null
	wait "$REC" 2>/dev/null
}
trap 'stop_pg; rm -rf "$D"; _remove_users' EXIT
for ((i = 0; i < 100; i++)); do
	pg psql -h "$D/sock" -U postgres -d postgres -Atc 'SELECT 1' >/dev/null 2>&1 && break
	sleep 0.1
done
q() { pg psql -h "$D/sock" -U postgres -d postgres -At "$@" 2>&1; }
{
	q -c "SELECT 42 AS answer"
	q -c "SELECT 'utrace' || 7"
	printf '%s\n' 'BEGIN;' 'SELECT 1;' 'SELECT 2;' 'COMMIT;' 'BEGIN;' 'SELECT 3;' 'ROLLBACK;' 'SELECT 4;' >"$D/s.sql"
	q -f "$D/s.sql"
} >psql.txt
expect "psql's answers" psql.txt <<'EOF2'
42
utrace7
BEGIN
1
2
COMMIT
BEGIN
3
ROLLBACK
4
EOF2
stop_pg
cp "$D/pg.dat" pg.dat
rm -rf "$D"
trap _remove_users EXIT
report pg.dat >rep.txt || fail "report exited $?: $(cat pg.dat.rerr)"
# the backends that ran our queries (not the readiness probes' 'SELECT 1')
pids=$(sed -nE "s/^ *postgres-([0-9]+) .* query__start: query=\"(SELECT 42|SELECT 'utrace'|BEGIN).*/\1/p" rep.txt | sort -un)
for p in $pids; do
	echo "backend"
	grep -E -- "-$p +\[" rep.txt | sed -nE 's/^.*[0-9]{6}: query__start: (.*)$/\1/p'
	for e in start commit abort; do
		echo "transaction__$e $(grep -E -- "-$p +\[" rep.txt | grep -c "transaction__$e: ")"
	done
done >backends.txt
expect "each backend's queries and transactions (one at connection, one per transaction)" backends.txt <<'EOF2'
backend
query="SELECT 42 AS answer"
transaction__start 2
transaction__commit 2
transaction__abort 0
backend
query="SELECT 'utrace' || 7"
transaction__start 2
transaction__commit 2
transaction__abort 0
backend
query="BEGIN;"
query="SELECT 1;"
query="SELECT 2;"
query="COMMIT;"
query="BEGIN;"
query="SELECT 3;"
query="ROLLBACK;"
query="SELECT 4;"
transaction__start 4
transaction__commit 3
transaction__abort 1
EOF2
finish
