#!/usr/bin/env bash
# Runs one libFuzzer harness briefly on a scratch copy of its corpus; fails on any crash.
#
# usage: tests/fuzz/run_fuzzer.sh HARNESS CORPUS_DIR [SECONDS]
#   HARNESS     the built harness, e.g. build/fuzz/tests/fuzz_url
#   CORPUS_DIR  its seed corpus, e.g. tests/fuzz/corpus/fuzz_url (never written to)
#   SECONDS     fuzzing time (default $SITESCOUT_FUZZ_SECONDS, else 15)
#
# libFuzzer first runs every file of the corpus (the seeds and the regress_* inputs of
# crashes found before), then mutates for SECONDS. New inputs go to the scratch copy
# and are thrown away. A crash, leak, timeout (-timeout=10 s per input) or
# out-of-memory (-rss_limit_mb=2048) fails the run; the input is kept and its path
# printed. A dictionary next to the harness's source (tests/fuzz/NAME.dict) is used.
set -uo pipefail

if (($# < 2)); then
  echo "usage: $0 HARNESS CORPUS_DIR [SECONDS]" >&2
  exit 2
fi
harness=$1 corpus=$2 secs=${3:-${SITESCOUT_FUZZ_SECONDS:-15}}
name=$(basename "$harness")
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
[[ -x $harness ]] || { echo "$name: no harness at $harness (build with scripts/setup.sh --fuzz DIR)" >&2; exit 2; }
[[ -d $corpus ]] || { echo "$name: no corpus directory $corpus" >&2; exit 2; }

scratch=$(mktemp -d "${TMPDIR:-/tmp}/sitescout-$name.XXXXXX")
mkdir -p "$scratch/corpus" "$scratch/artifacts"
cp -R "$corpus/." "$scratch/corpus/"
seeds=$(find "$scratch/corpus" -type f | wc -l)

args=(-max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1
      -artifact_prefix="$scratch/artifacts/")
[[ -f $here/$name.dict ]] && args+=(-dict="$here/$name.dict")

# Any sanitizer report is fatal (the harnesses are built with recoverable UBSan).
export ASAN_OPTIONS=${FUZZ_ASAN_OPTIONS:-detect_leaks=1:strict_string_checks=1}
export UBSAN_OPTIONS=${FUZZ_UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}

echo "$name: $seeds corpus inputs from $corpus, fuzzing ${secs} s"
"$harness" "${args[@]}" "$scratch/corpus" >"$scratch/log" 2>&1
status=$?

found=$(find "$scratch/artifacts" -type f \( -name 'crash-*' -o -name 'leak-*' -o -name 'timeout-*' \
        -o -name 'oom-*' \) | sort)
if ((status == 0)) && [[ -z $found ]]; then
  # The last status line: "#RUNS DONE cov: N ft: N corp: N/size ...".
  done_line=$(grep -E '^#[0-9]+[[:space:]]+DONE' "$scratch/log" | tail -1)
  echo "$name: ok (${done_line:-no DONE line})"
  rm -rf "$scratch"
  exit 0
fi

echo "$name: FAILED (exit $status); libFuzzer's log without its progress lines:"
grep -Ev '^#[0-9]+[[:space:]]' "$scratch/log" | tail -n 150 | sed 's/^/  | /'
if [[ -z $found ]]; then
  echo "$name: no crash input was saved; full log: $scratch/log"
fi
for f in $found; do
  echo "$name: crash input $f ($(stat -c %s "$f") bytes)"
  echo "$name: hex (first 64 bytes):$(od -An -v -tx1 -N64 "$f" | tr -s ' \n' ' ')"
  echo "$name: reproduce: $harness $f"
  echo "$name: once fixed, keep it as a regression input:"
  echo "  cp $f $corpus/regress_WHAT"
done
exit 1
