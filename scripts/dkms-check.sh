#!/usr/bin/env bash
# Prove that dkms.conf builds the module: dkms add/build for KVER in a
# private dkms tree under build/, touching nothing of the system's.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
kver=${1:?kernel release}
d=$top/build/dkms
rm -rf "$d"
mkdir -p "$d/tree" "$d/src"
make -s -C "$top" dkms-src DESTDIR="$d/src"
ver=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' "$top/dkms.conf")
dkms add --dkmstree "$d/tree" --sourcetree "$d/src/usr/src" "sroce/$ver"
dkms build --dkmstree "$d/tree" --sourcetree "$d/src/usr/src" -k "$kver" "sroce/$ver"
find "$d/tree" -name 'sroce.ko*' | grep -q .
