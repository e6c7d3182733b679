#!/usr/bin/env bash
# Installs what rwgraph needs from Debian 12's packages, if anything is missing.
#   scripts/deps.sh           what building and testing needs
#   scripts/deps.sh --fuzz    also clang and libFuzzer (scripts/fuzz.sh)
set -euo pipefail
pkgs=(g++ cmake ninja-build ccache libboost-dev libboost-graph-dev libeigen3-dev libfmt-dev
      catch2 pkg-config libsleef-dev libcli11-dev nlohmann-json3-dev
      graphviz chromium)
if [ "${1:-}" = "--fuzz" ]; then
  pkgs+=(clang-14 libclang-rt-14-dev)
fi
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
echo "installing: ${missing[*]}"
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
