#!/usr/bin/env bash
# Prints the path prefix of dev-large (PREFIX.warc.gz, PREFIX.sites.tsv, PREFIX.jobs.json),
# building it first if it is missing (about 1-7 min, once) into the cache
# SITESCOUT_WEB_CACHE (default /var/cache/sitescout/webs), outside the checkout: it is
# never committed. Used by bench/crawl_large.sh and bench/dbcost.sh.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
shared=${SITESCOUT_SHARED:-$top/../shared}
cache=${SITESCOUT_WEB_CACHE:-/var/cache/sitescout/webs}
web=$cache/dev-large
if [[ ! -s $web.warc.gz || ! -s $web.sites.tsv || ! -s $web.jobs.json ]]; then
  mkdir -p "$cache"
  echo "building dev-large into $cache (once)" >&2
  python3 "$shared/tools/mkweb.py" --corpus "$shared/corpus" \
    --config "$shared/tools/dev-large.json" --out "$web" >/dev/null
fi
echo "$web"
