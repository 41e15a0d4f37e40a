#!/usr/bin/env bash
# Packs what the GPU checks run (scripts/device/run-gpu-checks.sh) for the device machine, whose image has CUDA but
# not ccsim's libraries: build/ccsim, build/tests/test_numerics and the shared libraries they load that are not the C
# library's own, compressed into .devpack/pack.tar.xz (the device tool carries at most 64 MiB with the working tree).
# The C++ runtime goes in a fallback folder the run uses only when the device's is older than the build's.
set -euo pipefail
cd "$(dirname "$0")/../.."
grep -qx '/.devpack/' .git/info/exclude 2>/dev/null || echo '/.devpack/' >> .git/info/exclude
stage=$(mktemp -d)
mkdir -p "$stage/build/tests" "$stage/lib" "$stage/fallback" .devpack
cp build/ccsim "$stage/build/"
cp build/tests/test_numerics "$stage/build/tests/"
ldd build/ccsim build/tests/test_numerics | awk '/=>/ {print $3}' | sort -u | while read -r lib; do
  case "$(basename "$lib")" in
    libc.so*|libm.so*|libpthread.so*|libdl.so*|librt.so*|ld-linux*) ;;
    libstdc++.so*|libgcc_s.so*) cp -L "$lib" "$stage/fallback/" ;;
    *) cp -L "$lib" "$stage/lib/" ;;
  esac
done
tar -C "$stage" -cJf .devpack/pack.tar.xz .
rm -rf "$stage"
ls -la .devpack/pack.tar.xz
