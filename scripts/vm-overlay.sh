#!/usr/bin/env bash
# vm-overlay.sh STAGE_DIR TEST_SCRIPT OUT.cpio [SRC[:DEST]...]
# Build the small per-run archive that vm-run.sh appends to the cached base
# initramfs (the kernel unpacks concatenated archives in order, later files
# win). It carries:
#   STAGE_DIR/*        -> /            (a `make install DESTDIR=` tree; may be
#                                       missing or empty)
#   TEST_SCRIPT        -> /sroce-test/run (its file name in /sroce-test/name)
#   tests/vm/          -> /sroce-test/tests/   (suites/, lib/, bench/, stress/)
#   tests/vm/lib/lib.sh -> /sroce-test/lib.sh too
#   SRC                -> /sroce-test/files/BASENAME, or DEST if given
set -euo pipefail

die() { echo "vm-overlay: $*" >&2; exit 1; }
[ $# -ge 3 ] || die "usage: vm-overlay.sh STAGE_DIR TEST_SCRIPT OUT.cpio [SRC[:DEST]...]"
stage=$1 test=$2 out=$3
shift 3
top=$(cd "$(dirname "$0")/.." && pwd)
[ -f "$test" ] || die "no test script $test"

mkdir -p "$(dirname "$out")"
root=$(mktemp -d "$(dirname "$out")/.overlay.XXXXXX")
trap 'rm -rf "$root"' EXIT

if [ -d "$stage" ]; then
	cp -a "$stage/." "$root/"
fi
mkdir -p "$root/sroce-test/files"
install -m 0755 "$test" "$root/sroce-test/run"
basename "$test" >"$root/sroce-test/name"
cp -a "$top/tests/vm" "$root/sroce-test/tests"
# Scripts find their libraries from their own folder
# ("${SROCE_TESTS:-$(dirname "$0")/..}/lib/lib.sh"). A script from
# tests/vm/ (suites/, bench/, stress/) therefore runs from its copy under
# /sroce-test/tests/ (named in /sroce-test/path); for any other script,
# lib.sh is also reachable next to /sroce-test/run.
rel=$(realpath --relative-to="$top/tests/vm" "$test")
case $rel in
../*) ;;
*) echo "/sroce-test/tests/$rel" >"$root/sroce-test/path" ;;
esac
ln -s tests/lib/lib.sh "$root/sroce-test/lib.sh"

for spec in "$@"; do
	src=${spec%%:*}
	if [ "$src" = "$spec" ]; then
		dst=/sroce-test/files/${src##*/}
	else
		dst=${spec#*:}
	fi
	case $dst in /*) ;; *) die "destination $dst must be absolute" ;; esac
	[ -e "$src" ] || die "no file $src"
	mkdir -p "$root$(dirname "$dst")"
	cp -a "$src" "$root$dst"
done

# The base archive provides the merged-/usr symlinks (/lib -> usr/lib, ...).
# A real directory of the same name in this archive would replace the
# symlink and hide everything behind it, so move such trees under usr/.
for d in bin sbin lib lib64; do
	if [ -d "$root/$d" ] && [ ! -L "$root/$d" ]; then
		mkdir -p "$root/usr/$d"
		cp -a "$root/$d/." "$root/usr/$d/"
		rm -rf "${root:?}/$d"
	fi
done

tmp=$(mktemp "$out.XXXXXX")
(cd "$root" && find . -mindepth 1 -print0 | LC_ALL=C sort -z |
	cpio --null -o -H newc -R 0:0 --quiet) >"$tmp"
mv "$tmp" "$out"
