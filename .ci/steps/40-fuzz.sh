# Fuzzing (docs/fuzzing.md): builds the libFuzzer targets with clang
# (-fsanitize=fuzzer,address,undefined), runs each for FUZZ_SECONDS (12) on a
# copy of its seed corpus. (The saved corpus is replayed with g++ as the
# fuzz:replay test of the ASan+UBSan step, so saved inputs are regression tests.)
# Any crash, leak, sanitizer finding or timeout fails the step; the input is
# kept in build-fuzz/fuzz-artifacts/ and its first 512 bytes printed as hex.
set -euo pipefail
seconds=${FUZZ_SECONDS:-12}
targets=(decode dictionary json reader convert_load export framework soc_decode soc_job staging)
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

cmake -S . -B build-fuzz -G Ninja -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_C_COMPILER=clang -DMSPROF_FUZZ=ON \
  -DMSPROF_BUILD_BENCH=OFF -DMSPROF_BUILD_EXAMPLES=OFF -DMSPROF_BUILD_TOOLS=OFF >/dev/null
cmake --build build-fuzz -j2 --target fuzz_all

# UBSan findings are crashes; known_issues.supp lists the open findings of
# docs/fuzzing.md until they are fixed.
export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1:suppressions=$PWD/tests/fuzz/known_issues.supp"
export ASAN_OPTIONS="detect_leaks=1"
export TMPDIR="$out/tmp"  # the reader targets write their scratch PROF_ dirs here
artifacts="$PWD/build-fuzz/fuzz-artifacts"
rm -rf "$artifacts"
mkdir -p "$TMPDIR" "$artifacts"
# One target: fuzzes it, then prints its report line (and the findings).
fuzz_one() {
  local t=$1 corpus="$out/corpus_$1" log="$out/$1.log" status=0
  cp -r "tests/fuzz/corpus/$t" "$corpus"  # libFuzzer adds to it; the checkout stays clean
  "build-fuzz/tests/fuzz/fuzz_$t" -max_total_time="$seconds" -rss_limit_mb=2048 -timeout=10 \
    -print_final_stats=1 -artifact_prefix="$artifacts/$t-" "$corpus" >"$log" 2>&1 || status=$?
  # "#N DONE cov: C ft: F corp: ..." and the INITED line give execs and new coverage.
  local inited final execs rate
  inited=$(grep -m1 -oE 'INITED cov: [0-9]+' "$log" | grep -oE '[0-9]+$' || echo 0)
  final=$(grep -oE '(DONE|NEW|REDUCE|pulse|INITED) +cov: [0-9]+' "$log" | tail -1 | grep -oE '[0-9]+$' || echo 0)
  execs=$(sed -nE 's/^stat::number_of_executed_units: *([0-9]+)/\1/p' "$log" | tail -1)
  rate=$(sed -nE 's/^stat::average_exec_per_sec: *([0-9]+)/\1/p' "$log" | tail -1)
  if [ "$status" -eq 0 ]; then
    echo "fuzz_$t: ok, ${execs:-?} execs (${rate:-?}/s) in ${seconds}s, cov $inited -> $final (+$((final - inited)))"
    return 0
  fi
  echo "fuzz_$t: FAILED (exit $status) after ${execs:-?} execs"
  # (|| true: under pipefail a report without one of these lines must not end the step)
  { grep -E 'ERROR:|runtime error|SUMMARY|invariant' "$log" || true; } | head -10 | sed 's/^/    /'
  { grep -E '^ +#[0-9]+ ' "$log" || true; } | head -15 | sed 's/^/    /'
  for a in "$artifacts/$t-"*; do
    [ -e "$a" ] || continue
    echo "    input $(basename "$a") ($(stat -c %s "$a") bytes), hex:"
    od -An -tx1 -v -N512 "$a" | sed 's/^/     /'
    echo "    reproduce: build-fuzz/tests/fuzz/fuzz_$t $a"
  done
  return 1
}
# Two targets at a time, one per core (each still gets its $seconds); the
# reports are printed in the targets' order.
failed=()
for ((i = 0; i < ${#targets[@]}; i += 2)); do
  pids=()
  for t in "${targets[@]:i:2}"; do
    fuzz_one "$t" >"$out/$t.report" &
    pids+=("$!")
  done
  for k in "${!pids[@]}"; do
    t=${targets[i + k]}
    wait "${pids[k]}" || failed+=("$t")
    cat "$out/$t.report"
  done
done
if [ "${#failed[@]}" -ne 0 ]; then
  echo "fuzzing found crashes in: ${failed[*]}"
  exit 1
fi
echo "fuzzing: ${#targets[@]} targets ok"
