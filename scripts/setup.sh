#!/usr/bin/env bash
# Set-up on a fresh Debian 12 machine: installs what is missing, builds
# everything, and runs the main job.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release
cmake --build build
# The main job: the standard rules rewriting log(1 + exp(x)) and friends,
# every replacement shown in order (docs/rwcheck.md).
build/tools/rwcheck --trace examples/softplus.graph
