#!/usr/bin/env bash
# `make bench`: the perftest matrix on rdma_rxe and on sroce in one VM
# boot (tests/vm/bench/bench-guest.sh), then TCP, rdma_rxe and sroce on one
# link between two VMs, clean and under loss (tests/vm/bench/bench-loss-guest.sh),
# and on a 9000-byte link and a 20 ms round trip, then the same two VMs on
# a link with the host's default (small) socket buffer, then the kernel
# ULPs (NVMe over Fabrics, NFS over RDMA, RDS) on rdma_rxe
# and on sroce in one VM boot (tests/vm/bench/bench-ulp-guest.sh), then sroce's
# congestion control on a shared bottleneck in one VM boot
# (tests/vm/bench/bench-cc-guest.sh).
# Every figure is the median of BENCH_RUNS runs from the same boot. Prints
# seven tables and writes them to build/bench.txt. Absolute TCG figures mean
# little; the ratios from one boot are the measure. For latency, lower is
# better, so the ratio printed is rxe/sroce (above 1: sroce is faster)
# like the others.
# Environment: BENCH_ITERS (one-host perftest iterations, 1000; the
# latency tests make ten times as many),
# BENCH_LOSS_ITERS (64 KiB writes per two-VM run, 300), BENCH_RUNS (3),
# BENCH_TCP_SECS (iperf3 seconds, 5), BENCH_ULP_SECS (each ULP fio run, 6),
# BENCH_TIMEOUT (per boot, 1800), BENCH_ONLY (one, two, small, ulp or cc:
# run that boot and keep the others' last logs; report: only print the
# tables of the last logs), BENCH_HOG=1 (a busy loop on every host core
# for the whole run), PROFILE=1 (then
# scripts/profile.sh), SROCE_VM_SLUB_DEBUG (scripts/vm-run.sh).
#
# The guests run without SLUB debugging unless SROCE_VM_SLUB_DEBUG asks
# for it: the suites want red zones and owner tracking, a benchmark wants
# the kernel users run. With it on, every kmalloc and kfree unwinds the
# stack, and that (not either driver) was a fifth of the busy samples.
# sroce's same-host figures are its same-host path: packets between QPs
# of one host carry no ICRC (local_icrc=0, sroce_tx.c), as rdma_rxe's
# loopback skips the IP stack; the two-VM figures are the wire protocol.
set -euo pipefail
export SROCE_VM_SLUB_DEBUG=${SROCE_VM_SLUB_DEBUG-}
top=$(cd "$(dirname "$0")/.." && pwd)
out=$top/build/bench.txt
log=$top/build/bench.log
raw=$top/build/bench.raw
iters=${BENCH_ITERS:-1000}
liters=${BENCH_LOSS_ITERS:-300}
runs=${BENCH_RUNS:-3}
secs=${BENCH_TCP_SECS:-5}
usecs=${BENCH_ULP_SECS:-6}
tmo=${BENCH_TIMEOUT:-1800}
only=${BENCH_ONLY:-}
hog=${BENCH_HOG:-0}
mkdir -p "$top/build"

# BENCH_HOG=1: the figures of a host that has other work, one busy loop
# per host core competing with QEMU for the whole run.
hogs=()
if [ "$hog" = 1 ] && [ "$only" != report ]; then
	for _ in $(seq "$(nproc)"); do
		sh -c 'while :; do :; done' &
		hogs+=($!)
	done
	trap 'kill "${hogs[@]}" 2>/dev/null' EXIT
fi

# boot_on BOOT: this call makes BOOT (one, two or ulp).
boot_on() { [ -z "$only" ] || [ "$only" = "$1" ]; }
t0=$(date +%s)
boot_on one && rm -f "$log"
boot_on two && rm -f "$log.loss" "$log.loss.h1" "$log.loss.h2"
boot_on small && rm -f "$log.small" "$log.small.h1" "$log.small.h2"
boot_on ulp && rm -f "$log.ulp"
boot_on cc && rm -f "$log.cc"
if boot_on one; then
	"$top/scripts/vm-run.sh" --timeout "$tmo" --log "$log" "$top/tests/vm/bench/bench-guest.sh" \
		"$iters" "$runs" > /dev/null || echo "bench: the one-host run failed (see $log)" >&2
fi
t1=$(date +%s)
# Goodput under loss: two VMs, netem on both links (the client is host 2).
if boot_on two; then
	"$top/scripts/vm-run.sh" --two --timeout "$tmo" --log "$log.loss" \
		"$top/tests/vm/bench/bench-loss-guest.sh" "$liters" "$runs" "$secs" > /dev/null ||
		echo "bench: the two-VM run failed (see $log.loss.h1 and .h2)" >&2
fi
# The same link with the receive buffer a plain -netdev socket,udp= gets
# (the host's net.core.rmem_default; vm-link.pl), like a shallow switch
# port: clean and 1% loss, no interop or CPU figures.
if boot_on small; then
	SROCE_VM_LINK_RCVBUF=$(cat /proc/sys/net/core/rmem_default) \
		"$top/scripts/vm-run.sh" --two --timeout "$tmo" --log "$log.small" \
		"$top/tests/vm/bench/bench-loss-guest.sh" "$liters" "$runs" "$secs" "loss0 loss1" 0 \
		> /dev/null || echo "bench: the small-buffer run failed (see $log.small.h1 and .h2)" >&2
fi
t2=$(date +%s)
if boot_on ulp; then
	"$top/scripts/vm-run.sh" --timeout "$tmo" --log "$log.ulp" "$top/tests/vm/bench/bench-ulp-guest.sh" \
		"$runs" "$usecs" > /dev/null || echo "bench: the ULP run failed (see $log.ulp)" >&2
fi
t3=$(date +%s)
# Congestion control: flows through a marking bottleneck, one VM.
if boot_on cc; then
	"$top/scripts/vm-run.sh" --timeout "$tmo" --log "$log.cc" "$top/tests/vm/bench/bench-cc-guest.sh" \
		"$runs" > /dev/null || echo "bench: the congestion control run failed (see $log.cc)" >&2
fi
t4=$(date +%s)
# The parameters of the runs whose logs are tabulated (a report-only call
# or one half keeps the other half's from its run).
params=$top/build/bench.params
if [ "$only" = report ] && [ -f "$params" ]; then
	# shellcheck disable=SC1090
	. "$params"
else
	{ [ "$only" = two ] || [ "$only" = small ]; } && [ -f "$params" ] && eval "$(grep -E '^(iters|usecs)=' "$params")"
	[ "$only" = one ] && [ -f "$params" ] && eval "$(grep -E '^(liters|secs|usecs)=' "$params")"
	[ "$only" = ulp ] && [ -f "$params" ] && eval "$(grep -E '^(iters|liters|secs)=' "$params")"
	[ "$only" = cc ] && [ -f "$params" ] && eval "$(grep -E '^(iters|liters|secs|usecs)=' "$params")"
	printf 'iters=%s\nliters=%s\nruns=%s\nsecs=%s\nusecs=%s\nhog=%s\n' "$iters" "$liters" \
		"$runs" "$secs" "$usecs" "$hog" > "$params"
fi
# Any boot's log may be missing (one boot asked for, or a boot failed):
# the others still make their tables. Each test is named after its boot
# (one:, two:, small:, ulp:, cc:), which picks its table.
for b in one:"$log" two:"$log.loss.h2" small:"$log.small.h2" ulp:"$log.ulp" cc:"$log.cc"; do
	f=${b#*:}
	[ ! -f "$f" ] || grep -a '^BENCH ' "$f" | awk -v b="${b%%:*}" '{ $3 = b ":" $3; print }' || true
done > "$raw"
[ -s "$raw" ] || {
	echo "bench: no results (see $log)" >&2
	exit 1
}
grep -ah '^BENCH-LINK' "$log.loss.h1" "$log.loss.h2" "$log.small.h1" "$log.small.h2" 2>/dev/null >&2 || true

# The median of each figure's numeric runs, as "impl test median unit n/N".
# A figure with no numeric run keeps the reason of its last failure.
medians() {
	awk '
	{ k = $2 SUBSEP $3; if (!(k in tot)) order[nk++] = k; tot[k]++ }
	$4 ~ /^[0-9.]+$/ { c = cnt[k]++; val[k, c] = $4 + 0; str[k, c] = $4; unit[k] = $5; next }
	{ why[k] = substr($0, index($0, " n/a ") + 5) }
	END {
		for (i = 0; i < nk; i++) {
			k = order[i]; split(k, p, SUBSEP); n = cnt[k] + 0
			if (n == 0) { printf "%s %s n/a %s\n", p[1], p[2], why[k]; continue }
			# Insertion sort; the median keeps the digits its run printed.
			for (a = 0; a < n; a++) { x[a] = val[k, a]; y[a] = str[k, a] }
			for (a = 1; a < n; a++)
				for (b = a; b > 0 && x[b - 1] > x[b]; b--) {
					t = x[b]; x[b] = x[b - 1]; x[b - 1] = t
					t = y[b]; y[b] = y[b - 1]; y[b - 1] = t
				}
			m = (n % 2) ? y[int(n / 2)] : sprintf("%.4g", (x[n / 2 - 1] + x[n / 2]) / 2)
			printf "%s %s %s %s %d/%d\n", p[1], p[2], m, unit[k], n, tot[k]
		}
	}' "$raw"
}
medians > "$raw.median"

# rxe_sroce_table one|ulp: rdma_rxe against sroce, test by test, from
# the medians: the one-host perftest figures or the ULPs'. For latency
# (us) lower is better, so the ratio is rxe/sroce; otherwise sroce/rxe.
rxe_sroce_table() {
	awk -v want="$1" '
	index($2, want ":") != 1 { next }
	{ sub(/^[a-z]+:/, "", $2); k = $1 SUBSEP $2; v[k] = $3; if ($3 ~ /^[0-9.]+$/) { u[$2] = $4; nn[k] = $5 } else why[k] = substr($0, index($0, " n/a ") + 5)
	  if (!($2 in seen)) { seen[$2] = 1; order[n++] = $2 } }
	END {
		printf "%-18s %12s %12s %8s  %-6s %s\n", "test", "rxe", "sroce", "ratio", "unit", "runs"
		for (i = 0; i < n; i++) {
			t = order[i]; r = v["rxe", t]; s = v["sroce", t]
			ratio = "n/a"
			if (r ~ /^[0-9.]+$/ && s ~ /^[0-9.]+$/ && r > 0 && s > 0)
				ratio = sprintf("%.2f", (u[t] == "us") ? r / s : s / r)
			printf "%-18s %12s %12s %8s  %-6s %s %s\n", t, r, s, ratio, u[t], nn["rxe", t], nn["sroce", t]
		}
		for (k in why) {
			split(k, p, SUBSEP)
			printf "  %s %s did not run: %s\n", p[1], p[2], why[k]
		}
	}' "$raw.median"
}


# tcp_rxe_sroce TEST TCP_TEST UNIT: one row of two-VM medians, TCP's
# TCP_TEST and rxe's and sroce's TEST, with sroce's ratio to each.
tcp_rxe_sroce() {
	awk -v t="two:$1" -v tt="two:$2" -v u="$3" '
	$1 == "tcp" && $2 == tt { v["tcp"] = $3 }
	$1 != "tcp" && $2 == t { v[$1] = $3 }
	function get(i) { return v[i] ~ /^[0-9.]+$/ ? v[i] : "-" }
	function ratio(a, b) { return (a != "-" && b != "-" && b > 0) ? sprintf("%.2f", a / b) : "n/a" }
	END {
		t = get("tcp"); r = get("rxe"); s = get("sroce")
		printf "%11s %11s %11s %9s %9s\n", "TCP " u, "rxe " u, "sroce " u, "sroce/TCP", "sroce/rxe"
		printf "%11s %11s %11s %9s %9s\n", t, r, s, ratio(s, t), ratio(s, r)
	}' "$raw.median"
}

{
	[ "$hog" != 1 ] || echo "(BENCH_HOG=1: a busy loop on each of the host's $(nproc) cores for the whole run)"
	echo "One VM (-smp 2), loopback on eth0: median of $runs runs, $iters iterations each ($((iters * 10)) for latency)"
	echo "(slab debugging: ${SROCE_VM_SLUB_DEBUG:-off}; sroce: its same-host path, no ICRC)"
	rxe_sroce_table one
	echo
	echo "Two VMs (one vCPU each, -smp 1,maxcpus=2), one UDP point-to-point link, netem loss on both links:"
	echo "median of $runs runs; TCP = iperf3 ${secs}s, rxe/sroce = ib_write_bw 64 KiB x $liters;"
	echo "kept = goodput at that loss / clean goodput"
	awk '
	$2 !~ /^two:(write_bw_64k|tcp)_loss[0-9.]+$/ { next }
	{ l = $2; sub(/.*_loss/, "", l); if (!(l in seen)) { seen[l] = 1; order[n++] = l }
	  v[$1, l] = $3; if ($3 !~ /^[0-9.]+$/) why[$1, l] = substr($0, index($0, " n/a ") + 5) }
	function num(x) { return x ~ /^[0-9.]+$/ && x > 0 }
	function ratio(a, b) { return (num(a) && num(b)) ? sprintf("%.2f", a / b) : "n/a" }
	function kept(i, l) { return (num(v[i, l]) && num(v[i, 0])) ? sprintf("%.0f%%", 100 * v[i, l] / v[i, 0]) : "n/a" }
	function val(x) { return x == "" ? "-" : x }
	END {
		printf "%-6s %9s %9s %10s %9s %9s %8s %8s %10s\n", "loss%", "TCP MB/s", "rxe MB/s",
			"sroce MB/s", "sroce/rxe", "sroce/TCP", "TCP kept", "rxe kept", "sroce kept"
		for (i = 0; i < n; i++) {
			l = order[i]
			printf "%-6s %9s %9s %10s %9s %9s %8s %8s %10s\n", l, val(v["tcp", l]), val(v["rxe", l]),
				val(v["sroce", l]), ratio(v["sroce", l], v["rxe", l]), ratio(v["sroce", l], v["tcp", l]),
				kept("tcp", l), kept("rxe", l), kept("sroce", l)
		}
		printf "\ninterop on the same link (sender-receiver), 64 KiB writes:\n"
		printf "%-6s %14s %14s %9s %16s\n", "loss%", "sroce-rxe MB/s", "rxe-sroce MB/s",
			"rxe MB/s", "sroce-rxe/rxe"
		for (i = 0; i < n; i++) {
			l = order[i]
			printf "%-6s %14s %14s %9s %16s\n", l, val(v["sroce-rxe", l]), val(v["rxe-sroce", l]),
				val(v["rxe", l]), ratio(v["sroce-rxe", l], v["rxe", l])
		}
		for (k in why) {
			split(k, p, SUBSEP)
			printf "  %s at %s%% loss did not run: %s\n", p[1], p[2], why[k]
		}
	}' "$raw.median"
	echo
	echo "The same two VMs on other links, median of $runs runs: 9000-byte MTU (path MTU"
	echo "4096); 20 ms round trip (netem delay 10 ms on each host), clean and 0.1% loss;"
	echo "the link's host socket buffer at the host's default ($(cat /proc/sys/net/core/rmem_default) bytes,"
	echo "what a plain -netdev socket,udp= gets) instead of 1 MiB, clean and 1% loss"
	awk '
	$2 !~ /^(two|small):(write_bw_64k|tcp)_/ || $2 ~ /^two:(write_bw_64k|tcp)_loss(0\.1|1)$/ { next }
	{ b = $2; sub(/:.*/, "", b); c = $2; sub(/^[a-z]+:(write_bw_64k|tcp)_/, "", c)
	  l = (b == "small" ? "small buffer" : "1 MiB buffer") SUBSEP c
	  if (!(l in seen)) { seen[l] = 1; order[n++] = l }
	  i = $1; v[i, l] = $3; if ($3 !~ /^[0-9.]+$/) why[i " on " b " " c] = substr($0, index($0, " n/a ") + 5) }
	function num(x) { return x ~ /^[0-9.]+$/ && x > 0 }
	function ratio(a, b) { return (num(a) && num(b)) ? sprintf("%.2f", a / b) : "n/a" }
	function val(x) { return x == "" ? "-" : x }
	END {
		printf "%-13s %-14s %9s %9s %10s %9s %9s\n", "link", "case", "TCP MB/s", "rxe MB/s",
			"sroce MB/s", "sroce/rxe", "sroce/TCP"
		for (i = 0; i < n; i++) {
			l = order[i]; split(l, p, SUBSEP)
			printf "%-13s %-14s %9s %9s %10s %9s %9s\n", p[1], p[2], val(v["tcp", l]), val(v["rxe", l]),
				val(v["sroce", l]), ratio(v["sroce", l], v["rxe", l]), ratio(v["sroce", l], v["tcp", l])
		}
		for (k in why)
			printf "  %s did not run: %s\n", k, why[k]
	}' "$raw.median"
	echo
	echo "CPU per GiB moved on the clean link: kernel CPU seconds (system, irq, softirq"
	echo "in /proc/stat) of both hosts per GiB arrived, median of $runs runs; TCP = the"
	echo "run above, rxe/sroce = ib_write_bw of $((secs * 400)) x 64 KiB"
	tcp_rxe_sroce cpu_gib cpu_gib s/GiB
	echo
	echo "Sleeping processes on the clean link: 64 KiB ib_send_bw -e x $liters (both ends"
	echo "sleep until a completion event, as iperf3 sleeps in send and recv; ib_write_bw"
	echo "above busy-polls on the sender's only vCPU), median of $runs runs; TCP = the run above"
	tcp_rxe_sroce send_bw_64k_events tcp_loss0 MB/s
	echo
	echo "Kernel ULPs, one VM (-smp 2), target and host on this host: median of $runs runs;"
	echo "fio ${usecs}s per figure on nvme-rdma (brd namespace), dd 64 MiB O_DIRECT on NFSv4.2"
	echo "over RDMA, rds_test bulk (64 B x 60000, 64 KiB x 1500, at most 128 in flight)"
	rxe_sroce_table ulp
	echo
	echo "Congestion control, one VM (-smp 2): flows through one 40 Mb/s bottleneck"
	echo "(htb, red ecn: limit 300 KB, marking from 6 KB), all starting at once: sroce with"
	echo "the senders' DCQCN on and off (cc_rp) and its timers set for the link, sroce with"
	echo "every cc_* at its default (dflt), and TCP (cubic, ECN); figures over the time every"
	echo "flow ran, median of $runs runs; Jain = fairness of the flows' rates (1 = equal), util = the"
	echo "bottleneck's use (resends and all), goodput = the data delivered over the whole"
	echo "run as a share of the bottleneck, queue = red's backlog, dropped = packets red"
	echo "lost (tests/vm/lib/dumbbell.bash)"
	awk '
	$2 !~ /^cc:cc_/ { next }
	{ f = $2; sub(/^cc:cc_/, "", f); sub(/flows_.*/, "", f); m = $2; sub(/.*flows_/, "", m)
	  if (!(f in seen)) { seen[f] = 1; order[n++] = f }
	  v[f, $1, m] = $3; if ($3 !~ /^[0-9.]+$/) why[f " flows cc " $1 " " m] = substr($0, index($0, " n/a ") + 5) }
	function val(x) { return x == "" ? "-" : x }
	END {
		printf "%-6s %-4s %7s %7s %8s %13s %14s %8s\n", "flows", "cc", "Jain", "util",
			"goodput", "queue max KB", "queue mean KB", "dropped"
		nm = split("on off dflt tcp", modes, " ")
		for (i = 0; i < n; i++)
			for (c = 1; c <= nm; c++) {
				cc = modes[c]; f = order[i]
				printf "%-6s %-4s %7s %7s %8s %13s %14s %8s\n", f, cc, val(v[f, cc, "jain"]),
					val(v[f, cc, "util"]), val(v[f, cc, "goodput"]), val(v[f, cc, "qmax"]),
					val(v[f, cc, "qmean"]), val(v[f, cc, "drops"])
			}
		for (k in why)
			printf "  %s did not run: %s\n", k, why[k]
	}' "$raw.median"
	echo
	[ "$only" = report ] ||
		echo "(wall time, with any wait for the VM lock: one VM $((t1 - t0)) s, two VMs (both links) $((t2 - t1)) s, ULPs $((t3 - t2)) s, congestion control $((t4 - t3)) s)"
	echo "(raw figures, one line per run: $raw)"
} | tee "$out"
echo "(written to $out; ratio > 1 means sroce is better)"

if [ "${PROFILE:-0}" = 1 ]; then
	"$top/scripts/profile.sh"
fi
