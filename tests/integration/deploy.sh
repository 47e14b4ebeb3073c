#!/usr/bin/env bash
# The deployment files (issues 15, 33): docker/compose.yaml validates with docker-compose,
# needs SITESCOUT_TOKEN, publishes serve on 127.0.0.1 unless told otherwise, has
# healthchecks for serve and the workers, runs the subcommands and flags this binary has;
# .env.example names every setting it reads; the .dockerignore keeps build trees, var/,
# .git and .env out of the image's build context; the base-image script and the postgres
# image's entry point are sound shell. (bench/deploy_test.sh runs it all on a real engine.)
source "$(dirname "$0")/lib.sh"
trap on_exit EXIT
make_scratch
cd "$SRC"

# .dockerignore: one pattern per line; the context is the repository root.
for dir in var build .git .env; do
  grep -qxE "/?${dir//./\\.}/?" .dockerignore || fail ".dockerignore does not exclude $dir/"
  ok ".dockerignore excludes $dir/"
done
# The build stage configures outside /src: a build/ that slipped into the context
# could not hand cmake a stale CMakeCache.txt.
grep -qE 'cmake -S /src -B /build' docker/Dockerfile || fail "Dockerfile builds in /src"
ok "Dockerfile builds outside the copied sources"
grep -qxE 'USER sitescout' docker/Dockerfile || fail "the image does not run as sitescout"
ok "the image runs as the user sitescout, not root"
for f in docker/build-base-images.sh docker/postgres/docker-entrypoint.sh bench/deploy_test.sh; do
  [[ -x $f ]] || fail "$f is not executable"
  bash -n "$f" || fail "$f: bash -n"
done
ok "the base-image script, the postgres entry point and the deployment test parse"
help=$(docker/build-base-images.sh --help)
assert_contains "$help" "--no-pull" "build-base-images.sh --help"
assert_status 2 "build-base-images.sh refuses an unknown argument" -- docker/build-base-images.sh --bogus
# Every ${VAR} the compose file reads is in .env.example, and nothing else is.
used=$(grep -oE '\$\{[A-Z_]+' docker/compose.yaml | cut -c3- | sort -u | xargs)
listed=$(sed -n 's/^\([A-Z_]*\)=.*/\1/p' .env.example | sort -u | xargs)
assert_eq "$used" "$listed" ".env.example lists the settings docker/compose.yaml reads"

if ! command -v docker-compose >/dev/null 2>&1; then
  echo "skip: docker-compose is not installed (scripts/setup.sh installs it)"
  exit 0
fi
unset SITESCOUT_TOKEN POSTGRES_PASSWORD SITESCOUT_PORT SITESCOUT_FETCH_SLOTS SITESCOUT_WORKER_JOBS
compose=(docker-compose -f docker/compose.yaml)

out=$("${compose[@]}" config 2>&1) && fail "config without SITESCOUT_TOKEN succeeded"
assert_contains "$out" "SITESCOUT_TOKEN" "compose refuses to start serve without a token"

export SITESCOUT_TOKEN=test-token-15
"${compose[@]}" config >"$SCRATCH/config.yaml" 2>"$SCRATCH/err" ||
  fail "docker-compose config: $(cat "$SCRATCH/err")"
ok "docker-compose config validates docker/compose.yaml"
assert_eq "migrate postgres serve worker" "$("${compose[@]}" config --services | sort | xargs)" \
  "the services"
assert_eq "pgdata" "$("${compose[@]}" config --volumes | xargs)" "PostgreSQL's volume"

# What compose resolved, service by service. Debian's docker-compose brings python3-yaml
# to Debian's python3 (/usr/bin/python3; python3 on PATH may be another one).
/usr/bin/python3 - "$SCRATCH/config.yaml" >"$SCRATCH/services" <<'PY'
import sys, yaml
c = yaml.safe_load(open(sys.argv[1]))["services"]
for name in ("migrate", "serve", "worker"):
    s = c[name]
    print(name, "command", " ".join(s.get("command", [])))
    print(name, "context", s.get("build", {}).get("context", ""))
    print(name, "env", " ".join(sorted(s.get("environment", {}))))
# A port is a mapping (target, host_ip, published) or a string HOST_IP:PUBLISHED:TARGET/tcp.
def port(p):
    if isinstance(p, dict):
        return str(p.get("host_ip", "")), str(p.get("target"))
    parts = p.split("/")[0].split(":")
    return (parts[0] if len(parts) == 3 else ""), parts[-1]
ports = [port(p) for p in c["serve"].get("ports", [])]
print("serve", "port", " ".join(t for _, t in ports))
print("serve", "host_ip", " ".join(h for h, _ in ports))
for name in ("postgres", "serve", "worker"):
    print(name, "healthcheck", " ".join(c[name].get("healthcheck", {}).get("test", [])))
    print(name, "grace", c[name].get("stop_grace_period", "10s"))
print("postgres", "volume", " ".join(c["postgres"].get("volumes", [])))
PY
field() { sed -n "s/^$1 $2 //p" "$SCRATCH/services"; }
for s in migrate serve worker; do
  assert_eq "$SRC" "$(field $s context)" "$s builds from the repository root"
  assert_contains "$(field $s env)" "SITESCOUT_DB" "$s is given the database"
done
assert_contains "$(field serve env)" "SITESCOUT_TOKEN" "serve reads its token from the environment"
assert_eq "8080" "$(field serve port)" "serve's port is published"
assert_eq "127.0.0.1" "$(field serve host_ip)" "... on 127.0.0.1 by default (TLS goes in front)"
assert_contains "$(field serve healthcheck)" "/api/health" "serve's healthcheck asks /api/health"
assert_contains "$(field worker healthcheck)" "pg_isready" "the workers' healthcheck asks PostgreSQL"
assert_contains "$(field postgres healthcheck)" "pg_isready" "PostgreSQL's healthcheck"
for s in serve worker; do
  assert_eq "10s" "$(field $s grace)" "$s stops within docker's default 10 s"
done
assert_contains "$(field postgres volume)" "pgdata:/var/lib/postgresql/data" \
  "PostgreSQL keeps its data in a volume"
assert_eq "serve --listen 0.0.0.0:8080 --workers 0" "$(field serve command)" \
  "serve runs the API only"
assert_eq "db migrate" "$(field migrate command)" "migrate migrates"

# Every subcommand and flag compose runs is one this binary knows.
for s in migrate serve worker; do
  read -r -a cmd <<<"$(field $s command)"
  sub=${cmd[0]}
  if [[ $sub == worker ]] && ! "$BIN" help 2>&1 | grep -qw worker; then
    echo "skip: this binary has no 'worker' subcommand yet (issue 15)"
    continue
  fi
  help=$("$BIN" "$sub" --help 2>&1 || true)
  assert_contains "$help" "usage: sitescout $sub" "sitescout $sub exists"
  for a in "${cmd[@]:1}"; do
    if [[ $a == --* ]]; then assert_contains "$help" "$a" "sitescout $sub takes $a"; fi
  done
done
