#!/usr/bin/env bash
# Build libsroce, the rdma-core provider, as OUTDIR/libsroce-rdmav34.so, with
# OUTDIR/sroce.driver, its /etc/libibverbs.d entry.
#
# libsroce has rdma-core's own shape (userspace-provider/providers/sroce,
# rdma_provider()), so it builds inside rdma-core: the 56.1 tarball (fetched
# by scripts/deps.sh) is extracted under build/, and sroce goes into that
# tree as a provider merged upstream would be: its directory among the
# providers, its uapi header among the kernel headers (DECLARE_DRV_CMD needs
# the kernel-abi/ wrapper rdma-core generates from it), both listed where
# rdma-core lists the others. Only that build artefact is patched; no
# rdma-core code lives in this repository.
#
# rdma-core links the provider to its own libibverbs (56.1); it runs with the
# system's (bookworm's 44, same provider ABI 34). provider-syms.sh then
# fails the build if libsroce needs a symbol the system libibverbs lacks,
# so that a missing symbol fails here, not at dlopen. 56.1's libibverbs and
# rxe provider are built too, but only for tests (OUTDIR/rc56, below).
#
# Extraction with its patching, and configuration, happen once (stamp
# files); later runs only recompile what changed.
set -euo pipefail

if [ $# -ne 1 ]; then
	echo "usage: $0 OUTDIR" >&2
	exit 2
fi

top=$(cd "$(dirname "$0")/.." && pwd)
cache=${SROCE_CACHE:-$top/build/cache}
ver=56.1
tarball=$cache/rdma-core_$ver.orig.tar.gz
src=$top/build/rdma-core-$ver
bld=$top/build/rdma-core-build
cmake_args=(-GNinja -DNO_PYVERBS=1 -DNO_MAN_PAGES=1)
target=sroce-rdmav34

mkdir -p "$1" "$top/build"
out=$(cd "$1" && pwd)

# Two builds at once (make -j, or two checkouts' helpers) must not extract or
# configure over each other.
exec 9>"$top/build/.rdma-core.lock"
flock 9

# sroce in rdma-core's tree. The provider and the header are links, so
# that an edit here needs no copy there. Warnings in sroce's code fail the
# build (-Werror on its target alone: rdma-core's own code builds as it
# does upstream, without).
add_sroce() {
	ln -s "$top/userspace-provider/providers/sroce" "$src/providers/sroce"
	ln -s "$top/include/uapi/rdma/sroce-abi.h" \
		"$src/kernel-headers/rdma/sroce-abi.h"
	# Both lists there, the published headers and those made into
	# kernel-abi/ wrappers, hold siw's header: sroce's goes after it.
	sed -i 's|^  rdma/siw-abi\.h$|&\n  rdma/sroce-abi.h|' \
		"$src/kernel-headers/CMakeLists.txt"
	# shellcheck disable=SC2016 # cmake expands it, not the shell
	local werror='target_compile_options(sroce-rdmav${IBVERBS_PABI_VERSION} PRIVATE -Werror)'
	sed -i "s|^add_subdirectory(providers/siw)\$|&\nadd_subdirectory(providers/sroce)\n$werror|" \
		"$src/CMakeLists.txt"
	if [ "$(grep -c '^  rdma/sroce-abi\.h$' "$src/kernel-headers/CMakeLists.txt")" != 2 ] ||
	   ! grep -q '^add_subdirectory(providers/sroce)$' "$src/CMakeLists.txt"; then
		echo "build-provider: rdma-core $ver's CMakeLists.txt files are not" \
			"where sroce expects to add itself" >&2
		exit 1
	fi
}

# The stamp names the checkout (the links point into it) and the version of
# add_sroce(): a moved checkout or a new add_sroce() extracts again.
extracted="$top sroce-1"
if [ "$(cat "$src/.sroce-extracted" 2>/dev/null)" != "$extracted" ]; then
	if [ ! -f "$tarball" ]; then
		echo "build-provider: $tarball missing; run scripts/deps.sh" >&2
		exit 1
	fi
	rm -rf "$src" "$bld"
	tar -xzf "$tarball" -C "$top/build"
	add_sroce
	echo "$extracted" >"$src/.sroce-extracted"
fi

# cmake's include/ farm holds absolute symlinks into $src, so the stamp
# records $src and the arguments: a moved tree or new flags reconfigure.
stamp="$src ${cmake_args[*]}"
if [ "$(cat "$bld/.sroce-configured" 2>/dev/null)" != "$stamp" ]; then
	rm -rf "$bld"
	mkdir -p "$bld"
	if ! cmake -S "$src" -B "$bld" "${cmake_args[@]}" >"$bld/configure.log" 2>&1; then
		tail -n 30 "$bld/configure.log" >&2
		exit 1
	fi
	echo "$stamp" >"$bld/.sroce-configured"
fi

pabi=$(sed -n 's/^#define IBVERBS_PABI_VERSION \([0-9]*\)$/\1/p' "$bld/include/config.h")
if [ "$pabi" != 34 ]; then
	echo "build-provider: rdma-core $ver has provider ABI '$pabi', expected 34" >&2
	exit 1
fi

# The compiler's messages go to the terminal only when the build fails:
# with -Werror on the target, a warning is a failure.
if ! ninja -C "$bld" "$target" >"$bld/sroce.log" 2>&1; then
	{ grep -v '^\[[0-9]*/[0-9]*\] ' "$bld/sroce.log" || true; } | tail -n 40 >&2
	exit 1
fi

# Installed as rdma-core installs a provider (which drops the build tree's
# RUNPATH), into a scratch DESTDIR, and taken from there.
dest=$bld/sroce-dest
rm -rf "$dest"
if ! DESTDIR=$dest cmake -P "$bld/providers/sroce/cmake_install.cmake" \
		>"$bld/sroce-install.log" 2>&1; then
	cat "$bld/sroce-install.log" >&2
	exit 1
fi
lib=$(find "$dest" -name "lib$target.so")
driver=$(find "$dest" -path '*/libibverbs.d/sroce.driver')
"$top/scripts/provider-syms.sh" "$lib"
cp "$lib" "$out/libsroce-rdmav$pabi.so"
cp "$driver" "$out/sroce.driver"

# rdma-core 56.1's own libibverbs and rxe provider, for the VM tests that
# post what Debian 12's libibverbs 44 has no verb for (ibv_wr_flush): they
# run with OUTDIR/rc56 as their library path (tests/vm/lib/roce.sh, rc56).
ninja -C "$bld" ibverbs rxe-rdmav34 >"$bld/rc56.log" 2>&1 || {
	tail -n 30 "$bld/rc56.log" >&2
	exit 1
}
mkdir -p "$out/rc56"
cp "$bld/lib/libibverbs.so.1.14.$ver" "$out/rc56/libibverbs.so.1"
cp "$bld/lib/librxe-rdmav$pabi.so" "$out/rc56/"
