#!/usr/bin/env bash
# Builds rwgraph with warnings as errors and runs every test.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DRW_WERROR=ON
cmake --build build
ctest --test-dir build --output-on-failure -j2
