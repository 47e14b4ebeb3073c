#!/usr/bin/env bash
# The entry point of the postgres:15 image built from Debian's packages (Dockerfile beside
# this): as root it hands PGDATA to the postgres user and runs itself again as that user;
# on an empty PGDATA it creates the cluster with POSTGRES_USER (default postgres) and
# POSTGRES_PASSWORD (required), the database POSTGRES_DB (default the user's name), runs
# the *.sql and *.sh files of /docker-entrypoint-initdb.d, and lets the server listen on
# every address of the container with passwords required; then it runs the command
# (`postgres ARGS`, or ARGS alone when they start with a dash).
set -Eeuo pipefail

log() { echo "entrypoint: $*" >&2; }

if [[ $# -eq 0 || ${1:0:1} == - ]]; then
  set -- postgres "$@"
fi
if [[ $1 != postgres ]]; then
  exec "$@"
fi

if [[ $(id -u) == 0 ]]; then
  mkdir -p "$PGDATA" /var/run/postgresql
  chown postgres:postgres "$PGDATA" /var/run/postgresql
  chmod 700 "$PGDATA"
  exec setpriv --reuid=postgres --regid=postgres --init-groups "${BASH_SOURCE[0]}" "$@"
fi

if [[ ! -s $PGDATA/PG_VERSION ]]; then
  if [[ -z ${POSTGRES_PASSWORD:-} ]]; then
    log "the database is not initialised and POSTGRES_PASSWORD is not set"
    exit 1
  fi
  user=${POSTGRES_USER:-postgres}
  db=${POSTGRES_DB:-$user}
  pwfile=$(mktemp)
  printf '%s\n' "$POSTGRES_PASSWORD" >"$pwfile"
  # shellcheck disable=SC2086 # POSTGRES_INITDB_ARGS is a list of words, as in the official image
  initdb -D "$PGDATA" --username="$user" --pwfile="$pwfile" --auth-local=trust \
    --auth-host=scram-sha-256 ${POSTGRES_INITDB_ARGS:-} >&2
  rm -f "$pwfile"
  echo "host all all all scram-sha-256" >>"$PGDATA/pg_hba.conf"
  echo "listen_addresses = '*'" >>"$PGDATA/postgresql.conf"
  # While the database is made, a server on a private unix socket only: pg_isready (the
  # healthcheck) must not see it and call the database ready before it exists.
  sock=$(mktemp -d)
  pg_ctl -D "$PGDATA" -o "-c listen_addresses='' -c unix_socket_directories='$sock'" -w start >&2
  psql=(psql -X -v ON_ERROR_STOP=1 --host "$sock" --username "$user" --no-password)
  if [[ $db != postgres ]]; then
    "${psql[@]}" --dbname postgres -v db="$db" <<<'CREATE DATABASE :"db";' >&2
  fi
  for f in /docker-entrypoint-initdb.d/*; do
    case $f in
      *.sql) log "running $f"; "${psql[@]}" --dbname "$db" -f "$f" >&2 ;;
      *.sh)
        log "running $f"
        # shellcheck disable=SC1090 # the user's scripts, as in the official image
        source "$f"
        ;;
      *) ;;
    esac
  done
  pg_ctl -D "$PGDATA" -m fast -w stop >&2
  rmdir "$sock"
  log "the database $db of $user is ready"
fi

exec "$@"
