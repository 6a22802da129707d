#!/bin/bash
# `make profile`, inside one VM: where the time goes, on rdma_rxe and on
# sroce, each device on eth0 with client and server on this host (the
# loopback of `make bench`). For each device and each of four loads
# (2-byte ib_send_lat, 64 KiB ib_write_bw and ib_send_bw, 64-byte
# ib_send_bw over 4 QPs; SECS seconds each) `perf record -a -g` samples both CPUs (cpu-clock at
# 499 Hz: TCG has no PMU) and
# `perf report --no-children --sort sym` prints the hottest symbols and
# the call chains of a few of them.
# Arguments:  profile-guest.sh [SECS [TOP]]   (defaults 8 and 40)
# Every line of a report goes to the console as
#   PROFILE <impl>-<load> <line>
# and scripts/profile.sh sorts them into build/profile-<impl>-<load>.txt.
ND=${SROCE_NETDEV:-eth0}
IP=${SROCE_IP4:-10.0.2.15}
SECS=${1:-8}
TOP=${2:-40}
# The symbols whose callers each report shows (top NCHAINS chains): the
# hand-off to the work item and the two places where interrupts-off time
# lands under cpu-clock sampling.
CALLERS="queue_work_on exit_to_user_mode_prepare _raw_spin_unlock_irqrestore"
NCHAINS=8

# shellcheck source=tests/vm/lib/roce.sh
. "${SROCE_TESTS:-$(dirname "$0")/..}/lib/roce.sh"

# perf resolves kernel and module symbols through /proc/kallsyms (and the
# staged sroce.ko under /lib/modules); a restricted kallsyms shows zeros.
echo 0 > /proc/sys/kernel/kptr_restrict
echo -1 > /proc/sys/kernel/perf_event_paranoid
mountpoint -q /sys/kernel/tracing || mount -t tracefs tracefs /sys/kernel/tracing 2>/dev/null

# emit TAG CMD...: CMD's output, each line prefixed for the host.
emit() {
	local tag=$1
	shift
	"$@" 2>&1 | sed "s/^/PROFILE $tag /"
}

# profile IMPL DEV GID LOAD TOOL ARGS...
profile() {
	local impl=$1 dev=$2 gid=$3 tool=$5 tag=$1-$4 data=/tmp/perf-$1-$4.data pp out
	shift 5
	perf record -a -g -e cpu-clock -F 499 -o "$data" > /tmp/perf-record.log 2>&1 &
	pp=$!
	sleep 2
	timeout $((SECS + 60)) "$tool" -d "$dev" -x "$gid" -F -D "$SECS" "$@" > /tmp/srv 2>&1 &
	sleep 0.5
	out=$(timeout $((SECS + 60)) "$tool" -d "$dev" -x "$gid" -F -D "$SECS" "$@" "$IP" 2>&1)
	wait $! 2>/dev/null
	kill -INT "$pp"
	wait "$pp"
	emit "$tag" echo "# $impl, $tool $* for ${SECS}s, perf record -a -g -e cpu-clock -F 499"
	emit "$tag" echo "# result line: $(awk '/^ *[0-9]+ +[0-9]+ / { l = $0 } END { print l }' <<< "$out" | tr -s ' ')"
	emit "$tag" sed 's/^/# record: /' /tmp/perf-record.log
	# Where the samples fall: by task, by object (kernel, modules, libraries).
	emit "$tag" echo "## by command (perf report --sort comm), >= 1%"
	emit "$tag" perf report -i "$data" --no-children --sort comm -g none --stdio \
		--percent-limit 1 -q
	emit "$tag" echo "## by object (perf report --sort dso), >= 1%"
	emit "$tag" perf report -i "$data" --no-children --sort dso -g none --stdio \
		--percent-limit 1 -q
	# The idle loop (the CPU halted, nothing to run) is most samples of a
	# latency run; "busy%" is the share of the samples outside it.
	emit "$tag" echo "## top $TOP symbols (perf report --no-children --sort sym); busy% leaves out idle"
	perf report -i "$data" --no-children --sort sym -g none --stdio -q 2>&1 |
		awk -v top="$TOP" '
		/^ *[0-9.]+%/ {
			p = $1; sub(/%/, "", p); n++; pct[n] = p + 0; line[n] = $0
			if ($3 ~ /^(native_safe_halt|default_idle|default_idle_call|arch_cpu_idle|acpi_safe_halt|mwait_idle_with_hints|poll_idle|cpuidle_enter_state|do_idle)$/) {
				idle += p; isidle[n] = 1
			}
		}
		END {
			busy = 100 - idle
			printf "idle %.2f%% of all samples\n", idle
			printf "%7s %7s  %s\n", "all%", "busy%", "symbol"
			for (i = 1; i <= n && k < top; i++) {
				if (isidle[i]) continue
				k++; s = line[i]; sub(/^ *[0-9.]+% +/, "", s)
				printf "%6.2f%% %6.2f%%  %s\n", pct[i], (busy > 0 ? 100 * pct[i] / busy : 0), s
			}
		}' | sed "s/^/PROFILE $tag /"
	# Who the interesting symbols are called from: one line per call
	# chain, the sampled function first (folded), the heaviest first.
	for sym in $CALLERS; do
		emit "$tag" echo "## callers of $sym (-S $sym -g folded,0.5,callee --max-stack 8)"
		perf report -i "$data" --no-children --sort sym --stdio -S "$sym" \
			-g folded,0.5,callee --max-stack 8 -q 2>&1 |
			grep -E '^[0-9.]+% ' | head -n "$NCHAINS" | sed "s/^/PROFILE $tag /"
	done
	rm -f "$data"
}

matrix() {
	local impl=$1 dev=$2 gid=$3
	profile "$impl" "$dev" "$gid" send_lat_2 ib_send_lat -s 2
	profile "$impl" "$dev" "$gid" write_bw_64k ib_write_bw -s 65536
	profile "$impl" "$dev" "$gid" send_bw_64k ib_send_bw -s 65536
	profile "$impl" "$dev" "$gid" msg_rate_64_4qp ib_send_bw -s 64 -q 4
}

modprobe rdma_rxe
rdma link add rxe0 type rxe netdev "$ND"
matrix rxe rxe0 "$(gid_index rxe0 "$IP")"
rdma link delete rxe0
rmmod rdma_rxe

rdma link add sroce0 type sroce netdev "$ND"
matrix sroce sroce0 "$(gid_index sroce0 "$IP")"
rdma link delete sroce0
rmmod sroce
exit 0
