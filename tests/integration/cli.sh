#!/usr/bin/env bash
# The command line as a user meets it: help, versions, errors and exit codes.
source "$(dirname "$0")/lib.sh"

out=$("$BIN" help)
assert_contains "$out" "usage: sitescout COMMAND" "help shows usage"
assert_contains "$out" "db " "help lists db"
# Every command's summary starts at one column, two spaces at least after the longest name.
python3 - "$out" <<'PY' || fail "help's columns do not line up: $out"
import re, sys
rows = [l for l in sys.argv[1].splitlines() if re.match(r"^  [a-z]", l)]
starts = {re.match(r"^  ([a-z]+) +", l).end() for l in rows}
width = max(len(l.split()[0]) for l in rows)
sys.exit(not (len(rows) > 5 and starts == {2 + width + 2}))
PY
ok "help's command summaries line up"
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
usage_error "sitescout serve: --workers wants 0..64, not '65'" "serve --workers range" \
  -- "$BIN" serve --workers 65
usage_error "sitescout worker: --jobs wants 1..64, not '0'" "worker --jobs range" \
  -- "$BIN" worker --jobs 0
usage_error "sitescout worker: unknown option or missing value: '--listen'" "worker serves no API" \
  -- "$BIN" worker --listen 127.0.0.1:0
usage_error "sitescout serve: --fetch-slots wants 1..10000, not ''" "serve empty --fetch-slots" \
  -- "$BIN" serve --fetch-slots=
usage_error "sitescout serve: --conns-per-ip wants 1..1024, not '0'" "serve --conns-per-ip range" \
  -- "$BIN" serve --conns-per-ip 0
usage_error "sitescout serve: --header-timeout wants 1..600, not '601'" \
  "serve --header-timeout range" -- "$BIN" serve --header-timeout 601
assert_contains "$("$BIN" serve --help)" "--conns-per-ip N    connections one client address" \
  "serve --help explains --conns-per-ip"
assert_contains "$("$BIN" serve --help)" "--header-timeout S  seconds a request's line and headers" \
  "serve --help explains --header-timeout"
usage_error "sitescout serve: unknown option or missing value: '--p'" "serve ambiguous prefix" \
  -- "$BIN" serve --p x
usage_error "sitescout serve: unknown option or missing value: '--print-routes=1'" \
  "serve flag with a value" -- "$BIN" serve --print-routes=1
usage_error "sitescout serve: unexpected argument 'x'" "serve extra argument" -- "$BIN" serve x
usage_error "sitescout serve: --listen wants ADDRESS:PORT, not '127.0.0.1:65536'" \
  "serve --listen port range" -- "$BIN" serve --listen 127.0.0.1:65536
usage_error "sitescout serve: listening on 0.0.0.0 (not loopback) needs --token" \
  "serve on a public address without a token" -- "$BIN" serve --listen 0.0.0.0:0
# SITESCOUT_TOKEN stands for --token (and stays out of ps): past the check, serve goes on
# to its database, which is not there.
out=$(SITESCOUT_TOKEN=s3cret "$BIN" serve --listen 0.0.0.0:0 --db "postgresql:///none?host=/nonexistent" 2>&1) &&
  fail "serve ran without a database: $out"
[[ $out != *"needs --token"* ]] || fail "SITESCOUT_TOKEN was not taken for --token: $out"
ok "SITESCOUT_TOKEN stands for --token"
usage_error "sitescout db: unknown option '--port'" "db missing value" -- "$BIN" db --port
usage_error "sitescout db: --port wants a number from 1 to 65535, not '5432x'" \
  "db --port whole string" -- "$BIN" db --port 5432x start
usage_error "sitescout db: unexpected argument 'extra'" "db extra argument" \
  -- "$BIN" db start extra
usage_error "sitescout version: unexpected argument '--foo'" "version takes no option" \
  -- "$BIN" version --foo
usage_error "sitescout replay: unknown option '--warc'" "replay missing value" \
  -- "$BIN" replay --warc
usage_error "sitescout replay: --seed wants a non-negative integer, not '-1'" "replay --seed sign" \
  -- "$BIN" replay --warc x --seed -1
usage_error "sitescout replay: --error-rate wants a rate from 0 to 1, not '2'" \
  "replay rate range, by a prefix" -- "$BIN" replay --warc x --error=2
usage_error "sitescout replay: --slow-ms wants 1 to 600000, not '0'" "replay --slow-ms range" \
  -- "$BIN" replay --warc x --slow-ms 0
usage_error "sitescout replay: --trap-host wants a host name, not 'a/b'" "replay bad host name" \
  -- "$BIN" replay --warc x --trap-host a/b --frob
usage_error "sitescout replay: unexpected argument 'extra'" "replay extra argument" \
  -- "$BIN" replay extra --warc x
usage_error "sitescout replay: --warc FILE is required" "replay without --warc" \
  -- "$BIN" replay --listen 127.0.0.1:0
warcs=(); for i in $(seq 65); do warcs+=(--warc "w$i"); done
usage_error "sitescout replay: at most 64 --warc files" "replay --warc limit" \
  -- "$BIN" replay "${warcs[@]}"
err=$("$BIN" replay --warc=/nonexistent.warc --seed 5 --slow-ms 1.5 --slow-r 1 2>&1 || true)
assert_eq "sitescout replay: /nonexistent.warc: No such file or directory" "$err" \
  "replay: good values pass the parser to the run"
usage_error "sitescout eval: option '--job' needs a value" "eval missing value" \
  -- "$BIN" eval --job
usage_error "sitescout eval: option '--save-model=1' needs a value" "eval flag with a value" \
  -- "$BIN" eval --job x --save-model=1
usage_error "sitescout eval: unknown option '--s'" "eval ambiguous prefix" \
  -- "$BIN" eval --job x --s a=b
usage_error "sitescout eval: unknown option '-x'" "eval short option" -- "$BIN" eval -x
usage_error "sitescout eval: --mode wants cv or heldout, not ''" "eval empty --mode" \
  -- "$BIN" eval --job x --mode=
usage_error "sitescout eval: --set wants KEY=VALUE, not 'p_threshold'" "eval --set without =" \
  -- "$BIN" eval --job x --set p_threshold
usage_error "sitescout eval: --set wants KEY=VALUE, not '=x'" "eval --set without a key" \
  -- "$BIN" eval --job x --set =x
usage_error "sitescout eval: --set params.p_treshold: unknown parameter" "eval unknown --set key" \
  -- "$BIN" eval --job x --set p_treshold=1
usage_error "sitescout eval: at most 64 --set options" "eval --set limit" \
  -- "$BIN" eval --job x "${sets[@]}"
usage_error "sitescout eval: unexpected argument 'extra'" "eval extra argument" \
  -- "$BIN" eval --job x -- extra
ex_args=(--warc w --labels l --jobs j --topic t --budget 10 --out o)
usage_error "sitescout experiment: option '--warc' needs a value" "experiment missing value" \
  -- "$BIN" experiment --warc
usage_error "sitescout experiment: unknown option '--t'" "experiment ambiguous prefix" \
  -- "$BIN" experiment "${ex_args[@]}" --t x
usage_error "sitescout experiment: --budget wants a number of pages (at least 1), not '5x'" \
  "experiment --budget whole string" -- "$BIN" experiment "${ex_args[@]}" --budget=5x
usage_error "sitescout experiment: --budget wants a number of pages (at least 1), not 'abc'" \
  "experiment bad --budget before a missing option" -- "$BIN" experiment --budget abc
usage_error "sitescout experiment: --budget is required" "experiment without --budget" \
  -- "$BIN" experiment --warc w --labels l --jobs j --topic t --out o
usage_error "sitescout experiment: unexpected argument 'extra'" "experiment extra argument" \
  -- "$BIN" experiment extra "${ex_args[@]}"
usage_error "sitescout experiment: at most 64 --set options" "experiment --set limit" \
  -- "$BIN" experiment "${ex_args[@]}" "${sets[@]}"
assert_contains "$("$BIN" crawl --help)" "svm does not work with strategy hotwords: " \
  "crawl --help says which strategies an svm cannot serve"
# The OpenAPI enums and the dashboard's selects name what the tables do (issue 32).
python3 - "$("$BIN" crawl --help)" "$SRC/web/openapi.json" "$SRC/web/index.html" <<'PY' ||
import json, re, sys
help_text, api, html = sys.argv[1], json.load(open(sys.argv[2])), open(sys.argv[3]).read()
def listed(heading):
    line = next(l for l in help_text.splitlines() if l.startswith(heading))
    return line.split(":", 1)[1].strip().split(", ")
strategies, classifiers = listed("Strategies:"), listed("Page classifiers")
params = api["components"]["schemas"]["JobBody"]["properties"]["params"]["properties"]
assert params["strategy"]["enum"] == strategies, params["strategy"]["enum"]
assert params["classifier"]["enum"] == classifiers, params["classifier"]["enum"]
for select, names in (("p-strategy", strategies), ("p-classifier", classifiers)):
    body = re.search(r'<select id="%s">(.*?)</select>' % select, html, re.S).group(1)
    values = [v or names[0] for v in re.findall(r'<option value="([^"]*)"', body)]
    assert values == names, (select, values)
PY
  fail "web/openapi.json or web/index.html does not list the strategies and classifiers of crawl --help"
ok "the OpenAPI enums and the dashboard's selects list crawl --help's strategies and classifiers"
# A strategy that cannot work with the page classifier is refused with the reason
# (issue 32), before any work: by crawl once its --set are applied, by experiment for a run.
make_scratch
printf '%s' '{"topic": "t", "relevant_sites": ["http://a.test/", "http://b.test/"],
  "other_sites": ["http://c.test/", "http://d.test/"], "params": {"strategy": "hotwords"}}' \
  >"$SCRATCH/hot.json"
usage_error "sitescout crawl: params.classifier: svm does not work with strategy hotwords: its \
hot words are the terms the target class's centroids weigh most, and an SVM has no centroids, so \
it would crawl as bestfirst; hotwords takes classifier knn" "crawl refuses svm with hotwords" \
  -- "$BIN" crawl --job "$SCRATCH/hot.json" --set classifier=svm
usage_error "sitescout experiment: run context-graph: params.classifier: svm does not work with \
strategy context_graph: its layer classifier tells the context graph's layers apart, and an SVM \
tells two classes apart, so it would keep layer 0 and other alone; context_graph takes \
classifier knn" "experiment refuses svm with context_graph" \
  -- "$BIN" experiment --warc "$SCRATCH/hot.json" --labels l --jobs "$SCRATCH/hot.json" --topic t \
  --budget 10 --out "$SCRATCH/o" --strategies bfs,context_graph --set classifier=svm
routes=$("$BIN" serve --print-routes)
assert_contains "$routes" "GET /api/jobs" "serve --print-routes lists the routes"
