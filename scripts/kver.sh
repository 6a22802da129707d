#!/usr/bin/env bash
# Print the installed Debian amd64 kernel release of a series ("6.1" or
# "6.12") whose headers are present, newest first; fail if there is none.
set -euo pipefail
series=${1:-6.1}
for d in /usr/src/linux-headers-"$series".*-amd64 /usr/src/linux-headers-"$series"-*-amd64; do
	[ -d "$d" ] || continue
	r=${d#/usr/src/linux-headers-}
	case $r in *-rt-amd64|*-cloud-amd64) continue ;; esac
	case $r in "$series".[0-9]*|"$series".0-*) echo "$r" ;; esac
done | sort -uV | tail -n1 | grep .
