#!/usr/bin/env bash
# The layers of docs/architecture.md, kept by the build: every #include of every C file
# in the layer folders is compared with the doc's tables ("Rules the build enforces"):
#   1. a folder includes only the folders its library links (the layer table), and the
#      build's links (target_link_libraries ... PUBLIC) are the table's;
#   2. a header marked "Internal to FOLDER/:" in its opening comment is included only
#      from FOLDER/;
#   3. a third-party header is included only by the files the third-party table names;
#   4. no include loop between modules (a .c and its .h), but for the split modules listed.
# The tables are read from the doc itself, so the doc and the code cannot drift apart.
# Usage: tests/layers.sh (from anywhere; reads the tree it sits in). Exit 0 when kept.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2

doc=docs/architecture.md
layers=(common classifier store replay crawler job eval server cli)
failed=0
fail() {
  echo "not ok - $*"
  failed=1
}

# The layer table: "| `ss_crawler` | classifier, store, common | ... |".
declare -A may
while IFS='|' read -r _ lib links _; do
  lib=$(tr -d ' `' <<<"$lib")
  lib=${lib#ss_}
  links=$(tr -d ' ' <<<"$links" | tr ',' ' ')
  [[ $links == "—" ]] && links=""
  [[ $links == everything ]] && links="${layers[*]}"
  may[$lib]=$links
done < <(sed -n '/^| library | links (may include) |/,/^$/p' "$doc" | grep '^| `ss_')
for l in "${layers[@]}"; do
  [[ -v may[$l] ]] || fail "$doc's layer table has no row for ss_$l"
done
((failed)) && exit 1

# 1a. The build links what the table says (PUBLIC: what a layer's users may include).
bad=0
for l in "${layers[@]}"; do
  linked=$(tr '\n' ' ' <"$l/CMakeLists.txt" |
    grep -oE "target_link_libraries\(ss_$l PUBLIC [^)]*" |
    sed -E 's/.* PUBLIC //; s/ PRIVATE.*//' | tr ' ' '\n' | grep '^ss_' | sed 's/^ss_//' |
    sort | tr '\n' ' ')
  want=$(tr ' ' '\n' <<<"${may[$l]}" | grep -v "^$l$" | grep . | sort | tr '\n' ' ')
  [[ $l == cli ]] && want=$(tr ' ' '\n' <<<"$want" | grep -v '^cli$' | grep . | sort | tr '\n' ' ')
  if [[ $linked != "$want" ]]; then
    fail "ss_$l links '${linked% }' (PUBLIC) but $doc's layer table says '${want% }'"
    bad=1
  fi
done
((bad)) || echo "ok - each library links the layers $doc's table gives it"

# Every include of a project header: "file:line:folder/name.h".
includes=$(grep -nE '^[[:space:]]*#[[:space:]]*include[[:space:]]+"[a-z_0-9]+/[^"]+"' \
  --include='*.c' --include='*.h' -r "${layers[@]}" |
  sed -E 's/^([^:]+):([0-9]+):.*"([^"]+)".*/\1:\2:\3/')

# 1b. No file includes a folder its layer does not link.
bad=0
while IFS=: read -r file line inc; do
  [[ -n $file ]] || continue
  from=${file%%/*} to=${inc%%/*}
  [[ $to == "$from" ]] && continue
  if [[ " ${may[$from]} " != *" $to "* ]]; then
    fail "$file:$line includes \"$inc\": $from/ may include only ${may[$from]:-common} ($doc, the layer table)"
    bad=1
  fi
done <<<"$includes"
((bad)) || echo "ok - each folder includes only the layers it links"

# 2. Private headers: "Internal to FOLDER/:" in the first two lines of a header.
bad=0
declare -A internal
while read -r h; do
  owner=$(head -2 "$h" | grep -oE 'Internal to [a-z]+/:' | head -1 | sed -E 's/Internal to ([a-z]+)\/:/\1/')
  [[ -n $owner ]] || continue
  if [[ $owner != "${h%%/*}" ]]; then
    fail "$h says it is internal to $owner/, but it is in ${h%%/*}/"
    bad=1
  fi
  internal[$h]=$owner
done < <(grep -lE 'Internal to [a-z]+/:' --include='*.h' -r "${layers[@]}")
while IFS=: read -r file line inc; do
  [[ -n $file && -v internal[$inc] ]] || continue
  if [[ ${file%%/*} != "${internal[$inc]}" ]]; then
    fail "$file:$line includes \"$inc\", which is internal to ${internal[$inc]}/ (its opening comment says so)"
    bad=1
  fi
done <<<"$includes"
((bad)) || echo "ok - ${#internal[@]} internal headers are included only inside their folder"

# 3. Third-party headers: "| `<zlib.h>` | `replay/gzstream.c`, `crawler/warcwrite.c` |".
#    A header ending in / stands for every header under it (`<openssl/>`).
bad=0
n=0
while IFS='|' read -r _ hdr users _; do
  hdr=$(sed -E 's/[ `<>]//g' <<<"$hdr")
  users=$(sed -E 's/\([^)]*\)//g' <<<"$users" | tr -d ' `' | tr ',' ' ')
  [[ -n $hdr ]] || continue
  n=$((n + 1))
  re="^[[:space:]]*#[[:space:]]*include[[:space:]]*<${hdr//./\\.}"
  [[ $hdr == */ ]] || re+=">"
  hits=$(grep -rnE --include='*.c' --include='*.h' "$re" "${layers[@]}")
  while IFS=: read -r file line _; do
    [[ -n $file ]] || continue
    if [[ " $users " != *" $file "* ]]; then
      fail "$file:$line includes <$hdr>, which only $users may ($doc, the third-party table)"
      bad=1
    fi
  done <<<"$hits"
  for u in $users; do
    if ! grep -qE "$re" "$u" 2>/dev/null; then
      fail "$doc lets $u include <$hdr>, but it does not (any more): take it off the table"
      bad=1
    fi
  done
done < <(sed -n '/^| third-party header | included only by |/,/^$/p' "$doc" | grep '^| `<')
((n)) || fail "$doc has no third-party table"
((bad)) || echo "ok - each of $n third-party headers is included only where $doc says"

# 4. No include loops between modules (a .c and its .h are one module), such as api.c and
#    apirefresh.c, or joblease.c and jobteam.c, used to make: the one that needs the other
#    gets a callback or a small shared header instead. The modules listed here are one
#    module split into files that share their headers; an entry that no longer loops
#    fails too, so the list shrinks as they are taken apart.
split=(
  classifier/pagecls classifier/pagecls_model classifier/pagecls_train # the page classifier
  classifier/pagecls_format classifier/corpus
  crawler/fetch crawler/fetchcurl crawler/fetchsched # the fetcher, behind crawler/fetch.h
  replay/replay replay/conn replay/router            # the replay server
  replay/warc replay/warcindex replay/warcscan       # an archive's index
  store/crawlstore store/sitewrite                   # the website crawler's writes
  job/jobrun job/jobctx                              # a job run
  job/jobspec job/jobstrategy                        # the job spec and its strategies' table
  job/jobjudge job/jobmodel                          # a crawl model: judged, kept, loaded
)
bad=0
# tsort names each loop it finds on stderr; one line per loop: its modules.
loops=$(grep -rnE '^#include "[a-z_0-9]+/[^"]+\.h"' --include='*.c' --include='*.h' "${layers[@]}" |
  sed -E 's/^([^:]+)\.[ch]:[0-9]+:#include "([^"]+)\.h".*/\1 \2/' | awk '$1 != $2' |
  tsort 2>&1 >/dev/null | awk '/input contains a loop/ { if (l != "") print l; l = ""; next }
    { sub(/^tsort: /, ""); l = l (l == "" ? "" : " ") $0 } END { if (l != "") print l }')
while read -r loop; do
  for m in $loop; do
    if [[ " ${split[*]} " != *" $m "* ]]; then
      fail "include loop: $loop (their files include each other's headers, round in a circle)"
      bad=1
      break
    fi
  done
done <<<"$loops"
for m in "${split[@]}"; do
  if [[ " ${loops//$'\n'/ } " != *" $m "* ]]; then
    fail "tests/layers.sh lets $m off the include loop check, but it is in no loop now: take it off"
    bad=1
  fi
done
((bad)) || echo "ok - no include loop between modules but the ${#split[@]} parts of split modules"

exit $failed
