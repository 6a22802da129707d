#!/usr/bin/env bash
# provider-syms.sh PROVIDER [LIBIBVERBS]: fail unless LIBIBVERBS (the
# system's by default) defines every symbol PROVIDER needs from libibverbs,
# at the version PROVIDER needs it.
#
# build-provider.sh links libsroce inside rdma-core 56.1's tree, against
# 56.1's libibverbs; it is installed beside the system's (Debian 12: 44).
# The private ABI (IBVERBS_PRIVATE_34) is the same, but a newer verb or
# private helper 44 lacks would only fail at dlopen, on the user's machine.
# This makes it fail the build instead.
set -euo pipefail

if [ $# -lt 1 ] || [ $# -gt 2 ]; then
	echo "usage: $0 PROVIDER [LIBIBVERBS]" >&2
	exit 2
fi
lib=$1
sys=${2:-/usr/lib/$(gcc -print-multiarch)/libibverbs.so.1}

# The version nodes PROVIDER requires from libibverbs.so.1.
vers=$(objdump -p "$lib" | awk '
	/^  required from / { from = $3; next }
	from == "libibverbs.so.1:" && NF == 4 { print $4 }')
if [ -z "$vers" ]; then
	echo "provider-syms: $lib needs no versioned libibverbs symbol;" \
		"not a provider linked to libibverbs?" >&2
	exit 1
fi

# name@VERSION of each undefined symbol at one of those versions, and of
# each symbol LIBIBVERBS defines (default @@ or not: either satisfies).
need=$(nm -D --with-symbol-versions --undefined-only "$lib" |
	awk -v vers="$vers" '
		BEGIN { n = split(vers, v, "\n"); for (i = 1; i <= n; i++) want[v[i]] = 1 }
		{ s = $NF; at = index(s, "@"); if (at && (substr(s, at + 1) in want)) print s }' |
	sort -u)
if [ -z "$need" ]; then
	echo "provider-syms: no symbol of $lib at ${vers//$'\n'/ }; nm's output" \
		"not understood" >&2
	exit 1
fi
have=$(nm -D --with-symbol-versions --defined-only "$sys" |
	awk '{ s = $NF; sub(/@@/, "@", s); print s }' | sort -u)

mapfile -t missing < <(comm -23 <(echo "$need") <(echo "$have"))
if [ ${#missing[@]} -gt 0 ]; then
	echo "provider-syms: $lib needs from libibverbs what $sys lacks:" >&2
	printf 'provider-syms:   %s\n' "${missing[@]}" >&2
	echo "provider-syms: it would fail to load there; use only what" \
		"libibverbs $(readlink -f "$sys" | sed 's/.*\.so\.//') has" >&2
	exit 1
fi
