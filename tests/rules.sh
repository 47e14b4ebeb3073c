#!/usr/bin/env bash
# The house rules a grep can keep (docs/testing.md, "House rules"; STYLE.md): text becomes
# a number only in common/num, arrays grow only through common/grow (and common/buf),
# SQL is written only in store/, and every transaction takes its job's row first
# (tests/txlock.py). Each grep rule lists the files it lets off, with the reason;
# an entry that no longer breaks its rule fails too, so the list stays true.
# Usage: tests/rules.sh (from anywhere; reads the tree it sits in). Exit 0 when kept.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2

# The C sources the rules cover (tests/ is left out: the unit tests check common/num
# and the others against the C library itself).
dirs=(common classifier crawler store replay job server eval cli bench)
failed=0

# rule NAME REGEX ALLOWED...: every line of a C file in dirs matching REGEX (extended),
# outside the ALLOWED files (a name ending in / lets off a folder), breaks rule NAME.
rule() {
  local name=$1 re=$2 hits f at bad=0
  shift 2
  hits=$(grep -rnE --include='*.c' --include='*.h' "$re" "${dirs[@]}")
  for f in "$@"; do
    at="^$f:"
    [[ $f == */ ]] && at="^$f"
    if ! grep -q "$at" <<<"$hits"; then
      echo "not ok - rule '$name': $f is let off but keeps the rule now; take it off the list in tests/rules.sh"
      bad=1
    fi
    hits=$(grep -v "$at" <<<"$hits")
  done
  if [[ -n $hits ]]; then
    echo "not ok - rule '$name' broken at:"
    sed 's/^/    /' <<<"$hits"
    bad=1
  fi
  ((bad)) && failed=1 || echo "ok - rule '$name'"
}

# 1. Text becomes a number through common/num (num_parse_*), which checks the whole text
#    and the range; no strtol & co. with an end pointer nobody reads.
allowed=(
  common/num.c
)
rule "strto* only in common/num" '\bstrto(l|ll|ul|ull|d|f|ld|imax|umax)[[:space:]]*\(' "${allowed[@]}"

# 2. Arrays grow through grow_array (common/grow), byte strings through common/buf.
allowed=(
  common/grow.c
  common/buf.c
)
rule "realloc only in common/grow and common/buf" '\brealloc(array)?[[:space:]]*\(' "${allowed[@]}"

# 3. SQL is written in store/ (the only libpq user) and nowhere above it: no SQL text and
#    no raw query call outside store/.
allowed=(
  store/
  bench/border_bench.c # a benchmark filling tables of its own
)
sql='"(SELECT|INSERT INTO|UPDATE|DELETE FROM|WITH|CREATE|ALTER|DROP|TRUNCATE|LOCK|ANALYZE|VACUUM|BEGIN|COMMIT)\b'
sql+='|\b(store_exec|store_exec_rows|store_exec_script|store_query|store_query_prepared|PQexec[A-Za-z]*)[[:space:]]*\('
rule "SQL only in store/" "$sql" "${allowed[@]}"

# 4. Every transaction takes its job's row first (JOB_LOCK or the jobs row by
#    id, FOR [NO KEY] UPDATE): two transactions on one job never wait on each other's rows
#    (tests/txlock.py says which it read).
if out=$(python3 tests/txlock.py 2>&1); then
  echo "ok - rule 'transactions take the job's row first' ($(grep -c '^ok' <<<"$out") transactions)"
else
  echo "not ok - rule 'transactions take the job's row first' broken at:"
  grep -v '^ok' <<<"$out" | sed 's/^/    /'
  failed=1
fi

exit $failed
