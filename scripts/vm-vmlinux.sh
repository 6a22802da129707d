#!/usr/bin/env bash
# vm-vmlinux.sh KVER OUT
# Extract the uncompressed vmlinux from Debian's /boot/vmlinuz-KVER into OUT
# (cached). QEMU boots an ELF vmlinux through its PVH entry point, which
# skips the bzImage decompressor: that saves several seconds per boot under
# TCG. 6.1 carries an XZ payload, the 6.12 backports kernel a zstd one.
# A kernel built here (scripts/debug-kernel.sh) has no /boot image: its
# bzImage in /lib/modules/KVER/build is booted as it is, through the
# decompressor (its vmlinux, with KASAN, dies at the PVH entry before the
# early console).
set -euo pipefail

die() { echo "vm-vmlinux: $*" >&2; exit 1; }
[ $# -eq 2 ] || die "usage: vm-vmlinux.sh KVER OUT"
kver=$1 out=$2
img=/boot/vmlinuz-$kver
built=/lib/modules/$kver/build/arch/x86/boot/bzImage
[ -r "$img" ] || [ -r "$built" ] || die "no $img (is linux-image-$kver installed?)"
if [ ! -r "$img" ]; then
	if [ -s "$out" ] && [ "$out" -nt "$built" ] && [ "$out" -nt "$0" ]; then
		exit 0
	fi
	mkdir -p "$(dirname "$out")"
	cp "$built" "$out.tmp"
	mv "$out.tmp" "$out"
	exit 0
fi

if [ -s "$out" ] && [ "$out" -nt "$img" ] && [ "$out" -nt "$0" ]; then
	exit 0
fi
mkdir -p "$(dirname "$out")"
tmp=$(mktemp "$out.XXXXXX")
trap 'rm -f "$tmp"' EXIT

is_elf() { [ "$(head -c4 "$1" | od -An -tx1 | tr -d ' \n')" = 7f454c46 ]; }

# try MAGIC_REGEX DECOMPRESSOR...: every offset where the magic occurs is a
# candidate (the setup code may contain the bytes by chance); the first one
# that decompresses to an ELF image wins. The decompressors complain about
# the bzImage trailer after the payload, so their status is not trusted;
# the ELF header and a plausible size are.
try() {
	local magic=$1 off
	shift
	# shellcheck disable=SC2013 # the offsets are plain numbers
	for off in $(LC_ALL=C grep -obUaP "$magic" "$img" | cut -d: -f1); do
		tail -c +$((off + 1)) "$img" | "$@" >"$tmp" 2>/dev/null || true
		if is_elf "$tmp" && [ "$(stat -c %s "$tmp")" -gt 1000000 ]; then
			return 0
		fi
	done
	return 1
}

try '\xfd\x37\x7a\x58\x5a\x00' xz -dc --single-stream ||
	try '\x28\xb5\x2f\xfd' zstd -dcq ||
	die "no XZ or zstd payload that decompresses to an ELF in $img"

mv "$tmp" "$out"
trap - EXIT
