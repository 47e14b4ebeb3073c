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

# The option parser's one-line errors (each command keeps its wording), all exit 2
# before any work: nothing here reaches a database.
# usage_error EXPECTED_FIRST_LINE WHAT -- command...
usage_error() {
  local want=$1 what=$2
  shift 3
  local err status=0
  err=$("$@" 2>&1) || status=$?
  assert_eq "$want" "$(head -1 <<<"$err")" "$what"
  assert_eq 2 "$status" "$what exits 2"
}
usage_error "sitescout crawl: unknown option or missing value: '--frob'" "crawl unknown option" \
  -- "$BIN" crawl --frob
usage_error "sitescout crawl: unknown option or missing value: '--job'" "crawl missing value" \
  -- "$BIN" crawl --job
usage_error "sitescout crawl: unexpected argument 'extra'" "crawl extra argument" \
  -- "$BIN" crawl extra --job x
usage_error "sitescout crawl: --resume wants a job id, not '0'" "crawl --resume range" \
  -- "$BIN" crawl --resume 0
usage_error "sitescout crawl: --resume wants a job id, not '99999999999999999999'" \
  "crawl --resume overflow" -- "$BIN" crawl --resume 99999999999999999999
usage_error "sitescout crawl: --resume wants a job id, not '5x'" "crawl --resume whole string" \
  -- "$BIN" crawl --res=5x
usage_error "sitescout crawl: --resume takes the job as stored: no --set or --topic" \
  "crawl --resume with --set" -- "$BIN" crawl --resume 3 --set a=b
sets=(); for i in $(seq 65); do sets+=(--set "a=$i"); done
usage_error "sitescout crawl: too many --set options" "crawl --set limit" \
  -- "$BIN" crawl --job x "${sets[@]}"
usage_error "sitescout serve: --workers wants 1..64, not '65'" "serve --workers range" \
  -- "$BIN" serve --workers 65
usage_error "sitescout serve: --fetch-slots wants 1..10000, not ''" "serve empty --fetch-slots" \
  -- "$BIN" serve --fetch-slots=
usage_error "sitescout serve: unknown option or missing value: '--p'" "serve ambiguous prefix" \
  -- "$BIN" serve --p x
usage_error "sitescout serve: unknown option or missing value: '--print-routes=1'" \
  "serve flag with a value" -- "$BIN" serve --print-routes=1
usage_error "sitescout serve: unexpected argument 'x'" "serve extra argument" -- "$BIN" serve x
usage_error "sitescout serve: --listen wants ADDRESS:PORT, not '127.0.0.1:65536'" \
  "serve --listen port range" -- "$BIN" serve --listen 127.0.0.1:65536
usage_error "sitescout db: unknown option '--port'" "db missing value" -- "$BIN" db --port
usage_error "sitescout db: --port wants a number from 1 to 65535, not '5432x'" \
  "db --port whole string" -- "$BIN" db --port 5432x start
usage_error "sitescout db: unexpected argument 'extra'" "db extra argument" \
  -- "$BIN" db start extra
usage_error "sitescout version: unexpected argument '--foo'" "version takes no option" \
  -- "$BIN" version --foo
routes=$("$BIN" serve --print-routes)
assert_contains "$routes" "GET /api/jobs" "serve --print-routes lists the routes"
