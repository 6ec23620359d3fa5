#!/usr/bin/env bash
# Installs the system packages mpt needs (Debian bookworm). Idempotent: only
# packages that are missing are installed, so a second run does nothing.
# This is the single list of the project's system dependencies.
set -euo pipefail

packages=(
  # Toolchain and LLVM/MLIR 22 (shared libMLIR.so, mlir-tblgen, lit, FileCheck).
  cmake ninja-build
  llvm-22-dev llvm-22-tools libmlir-22-dev mlir-22-tools clang-22 lld-22
  # C++ unit tests.
  libgtest-dev
  # Numerics references and test drivers (Debian's /usr/bin/python3).
  python3 python3-numpy
)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi

echo "install-deps: installing ${missing[*]}"
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
