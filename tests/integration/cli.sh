#!/usr/bin/env bash
# The command line as a user meets it: help, versions, errors and exit codes.
source "$(dirname "$0")/lib.sh"

out=$("$BIN" help)
assert_contains "$out" "usage: sitescout COMMAND" "help shows usage"
assert_contains "$out" "db " "help lists db"
assert_contains "$("$BIN" version)" "sitescout 0." "version prints the version"
assert_contains "$("$BIN" --version)" "sitescout 0." "--version works too"

# Every listed command has its own --help, which exits 0 and names the command.
for cmd in $("$BIN" help | awk '/^Commands:/{on=1; next} on && /^  [a-z]/{print $1}'); do
  out=$("$BIN" "$cmd" --help)
  assert_contains "$out" "usage: sitescout $cmd" "$cmd --help"
  assert_contains "$("$BIN" help "$cmd")" "usage: sitescout $cmd" "help $cmd"
done

err=$("$BIN" frobnicate 2>&1 || true)
assert_eq "sitescout: 'frobnicate' is not a sitescout command" "$(head -1 <<<"$err")" \
  "unknown command: one-line error"
assert_status 2 "unknown command exits 2" -- "$BIN" frobnicate
assert_status 2 "no command exits 2" -- "$BIN"
assert_status 2 "unknown db action exits 2" -- "$BIN" db frobnicate
assert_status 2 "db without action exits 2" -- "$BIN" db
err=$("$BIN" db --port abc start 2>&1 || true)
assert_contains "$err" "sitescout db: --port wants a number" "bad --port is named"
assert_status 2 "bad --port exits 2" -- "$BIN" db --port abc start
assert_status 2 "unknown db option exits 2" -- "$BIN" db --frob start
assert_status 2 "version takes no argument" -- "$BIN" version extra
