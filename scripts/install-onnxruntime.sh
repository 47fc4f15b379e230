#!/usr/bin/env bash
# Installs ONNX Runtime's C library into .onnxruntime/ (ignored by git), where
# `pente --backend auto|ort` finds it. The library comes from PyPI's
# `onnxruntime` wheel (any Python can fetch it: only the one .so file is kept,
# and it needs only glibc and libstdc++ at run time).
#
#   bash scripts/install-onnxruntime.sh            # version 1.32.0
#   ONNXRUNTIME_VERSION=1.31.0 bash scripts/install-onnxruntime.sh
set -euo pipefail
cd "$(dirname "$0")/.."

version="${ONNXRUNTIME_VERSION:-1.32.0}"
dest=.onnxruntime
library="$dest/libonnxruntime.so.$version"
if [ -f "$library" ]; then
    echo "ONNX Runtime $version is already in $library"
    exit 0
fi
case "$(uname -m)" in
    x86_64) platform=manylinux_2_28_x86_64 ;;
    aarch64) platform=manylinux_2_28_aarch64 ;;
    *) echo "error: no onnxruntime wheel for $(uname -m); set ORT_DYLIB_PATH to a libonnxruntime.so" >&2; exit 1 ;;
esac

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
# A wheel for CPython 3.11 whatever python3 is here: we only unpack it.
python3 -m pip download --quiet --no-deps --only-binary=:all: \
    --python-version 3.11 --platform "$platform" "onnxruntime==$version" -d "$tmp"
mkdir -p "$dest"
python3 - "$tmp" "$library" "$version" <<'PY'
import glob, os, sys, zipfile
folder, library, version = sys.argv[1:]
(wheel,) = glob.glob(os.path.join(folder, "onnxruntime-*.whl"))
member = f"onnxruntime/capi/libonnxruntime.so.{version}"
with zipfile.ZipFile(wheel) as archive, archive.open(member) as source, open(library + ".tmp", "wb") as out:
    out.write(source.read())
os.chmod(library + ".tmp", 0o755)
os.replace(library + ".tmp", library)
PY
echo "installed ONNX Runtime $version in $library"
