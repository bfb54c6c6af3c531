#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# README command 1: installs what is missing, builds the msprof command and the
# training-loop example, profiles it (simulated device, schedule, step markers),
# exports timeline + summaries + db, and prints where everything is and the top
# operators and API calls. Build directory: build/ (override with MSPROF_BUILD_DIR).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
bash scripts/bootstrap.sh
build=${MSPROF_BUILD_DIR:-build}
out=${MSPROF_DEMO_OUTPUT:-$root/demo_output}

echo "== building msprof and the example (build dir: $build; a few minutes the first time)"
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=${MSPROF_BUILD_TYPE:-RelWithDebInfo} >/dev/null
targets=(msprof_cli msprof_mstx)
have_training_loop=0
if [ -f examples/training_loop.cpp ]; then
  targets+=(examples_training_loop)
  have_training_loop=1
else
  targets+=(examples_cann_style)
fi
# Progress while it builds: ninja's own status line on a terminal, otherwise a
# line every 10 s; the whole log is kept and its end shown if the build fails.
build_log=$build/demo-build.log
if [ -t 1 ]; then
  cmake --build "$build" -j "$(nproc)" --target "${targets[@]}"
elif ! cmake --build "$build" -j "$(nproc)" --target "${targets[@]}" 2>&1 | tee "$build_log" | {
  last=-10
  while IFS= read -r line; do
    if [[ $line =~ ^\[([0-9]+)/([0-9]+)\] ]] && { ((SECONDS - last >= 10)) || [ "${BASH_REMATCH[1]}" = "${BASH_REMATCH[2]}" ]; }; then
      echo "   ${BASH_REMATCH[1]} of ${BASH_REMATCH[2]} build steps done (${SECONDS} s)"
      last=$SECONDS
    fi
  done
}; then
  tail -40 "$build_log" >&2
  echo "demo: the build failed (whole log: $build_log)" >&2
  exit 1
fi
msprof=$build/bin/msprof
example_bin() {
  for p in "$build/bin/examples/$1" "$build/examples/examples_$1"; do
    [ -x "$p" ] && { echo "$p"; return; }
  done
  echo "demo: example program $1 was not built" >&2
  exit 1
}

rm -rf "$out"
mkdir -p "$out"
if [ "$have_training_loop" -eq 1 ]; then
  echo "== profiling examples/training_loop (simulated device, schedule wait=1 warmup=1 active=2 repeat=1)"
  "$(example_bin training_loop)" --output "$out"
else
  echo "== profiling examples/cann_style under the launcher"
  "$msprof" --output="$out" --application="$(example_bin cann_style)" >/dev/null
fi

mapfile -t profs < <(find "$out" -maxdepth 2 -type d -name 'PROF_*' | sort)
if [ ${#profs[@]} -eq 0 ]; then
  echo "demo: no PROF_ directory was written under $out" >&2
  exit 1
fi

for prof in "${profs[@]}"; do
  # The example exports each window itself; export again only what is missing.
  if ! compgen -G "$prof/mindstudio_profiler_output/msprof_*.json" >/dev/null; then
    "$msprof" export timeline -dir "$prof" >/dev/null
    "$msprof" export summary -dir "$prof" >/dev/null
    "$msprof" export db -dir "$prof" >/dev/null
  fi
  # The viewer-safe Chrome form next to the exact msprof form.
  if ! compgen -G "$prof/mindstudio_profiler_output/chrome_trace_*.json" >/dev/null; then
    "$msprof" export timeline -dir "$prof" --timeline-format=chrome >/dev/null
  fi
done

echo
echo "== collected"
for prof in "${profs[@]}"; do
  "$msprof" import -dir "$prof"
done

last=${profs[-1]}
echo
echo "== top operators and API calls ($(basename "$last"))"
"$msprof" show -dir "$last" --top=5

echo
echo "== files"
for prof in "${profs[@]}"; do
  echo "$prof"
  (cd "$prof" && ls -1 ./*.db mindstudio_profiler_output/* 2>/dev/null | sed 's|^\./||; s|^|    |')
done

# When node is present, check the Chrome form the way DevTools loads it.
if command -v node >/dev/null && command -v npm >/dev/null && [ -f tests/js/package.json ]; then
  if (cd tests/js && npm ci --no-audit --no-fund --silent >/dev/null 2>&1); then
    for prof in "${profs[@]}"; do
      for f in "$prof"/mindstudio_profiler_output/chrome_trace_*.json; do
        node tests/js/check_trace.mjs --strict "$f" >/dev/null ||
          { echo "demo: $f does not load cleanly in the DevTools trace engine" >&2; exit 1; }
      done
    done
    echo
    echo "Chrome form checked with the DevTools trace engine: loads, nothing dropped, flows bound."
  fi
fi

timeline=$(ls "$last"/mindstudio_profiler_output/msprof_*.json 2>/dev/null | grep -v '/msprof_tx_' | head -1 || true)
chrome=$(ls "$last"/mindstudio_profiler_output/chrome_trace_*.json 2>/dev/null | head -1 || true)
echo
echo "== open the timeline"
[ -n "$timeline" ] && echo "  MindStudio Insight: open $timeline (or the whole $last)"
[ -n "$chrome" ] && echo "  Chrome DevTools:    F12, Performance, \"Load profile\" -> $chrome (or https://ui.perfetto.dev)"
echo "  Terminal:           $msprof show -dir $last"
