#!/usr/bin/env bash
# Fuzzes with libFuzzer (+ ASan, UBSan): tests/fuzz/fuzz_dsl.cpp (the rules
# language and graph files against the test ops) and tests/fuzz/fuzz_graph.cpp
# (graph files with the standard library, rewritten, compiled and run). Builds
# both with clang in build-fuzz/ and runs each for half the given number of
# seconds (default 60), starting from a seed corpus of the test inputs. Inputs that crash are left in build-fuzz/ as crash-*; add a
# fixed one to tests/fuzz/corpus/ so that ctest replays it from then on.
#   scripts/fuzz.sh [seconds]            fuzz_dsl only
#   RW_FUZZ_GRAPH=1 scripts/fuzz.sh [seconds]
#                                        both targets, half the time each (what
#                                        CI runs, for 90 s)
# fuzz_graph builds the whole library with clang. Its clean sessions so far:
# 75,818 runs in 901 s, then 41,149 runs in 601 s (with fuzz_dsl's 32,643 runs
# in 601 s beside it); ctest replays both corpora in every gcc build.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
targets=(fuzz_dsl)
[ "${RW_FUZZ_GRAPH:-0}" = 1 ] && targets+=(fuzz_graph)
cxx=$(command -v clang++-14 || command -v clang++)

cmake -S . -B build-fuzz -G Ninja -DCMAKE_CXX_COMPILER="$cxx" \
      -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g1" \
      -DRW_FUZZ=ON -DRW_BUILD_TOOLS=OFF > /dev/null
cmake --build build-fuzz --target "${targets[@]}" -j2

seeds=build-fuzz/fuzz-seeds
corpus=build-fuzz/fuzz-corpus
rm -rf "$seeds"
mkdir -p "$seeds" "$corpus"
cp tests/fuzz/corpus/* tests/engine/dsl/errors/*.rules tests/engine/dsl/errors/*.graph "$seeds"/
find tests/engine/dsl/data -name '*.rules' -exec cp {} "$seeds"/ \;
for g in chain-100 dag-100 mlp-2; do
  [ -f "/work/shared/bench/graphs/$g.graph" ] && cp "/work/shared/bench/graphs/$g.graph" "$seeds"/
done

cd build-fuzz
# -entropic=0: with the tens of thousands of coverage features the templates
# produce, entropic scheduling spends most of the time in its own bookkeeping.
half=$(( (seconds + ${#targets[@]} - 1) / ${#targets[@]} ))
mkdir -p fuzz-corpus-graph
for target in "${targets[@]}"; do
  corpus_dir=fuzz-corpus
  [ "$target" = fuzz_graph ] && corpus_dir=fuzz-corpus-graph
  ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
    ./tests/fuzz/$target "$corpus_dir" fuzz-seeds -dict=../tests/fuzz/dsl.dict \
    -entropic=0 -max_total_time="$half" -max_len=8192 -timeout=5 -rss_limit_mb=2048 -print_final_stats=1
done
