# shellcheck shell=bash
# tests/vm/lib/perf.sh - guest-wide perf profiles for `make profile`
# (tests/vm/bench/profile-guest.sh, one VM, and profile-two-guest.sh, two).
# perf_begin starts `perf record -a -g` (cpu-clock at 499 Hz: TCG has no
# PMU) and perf_end stops it and prints the report, every line prefixed
# "PROFILE <tag> " for scripts/profile.sh to sort into files.
# PERF_TOP (40): symbols per report; PERF_CALLERS: the symbols whose
# heaviest PERF_NCHAINS (8) call chains each report shows.
PERF_TOP=${PERF_TOP:-40}
PERF_NCHAINS=${PERF_NCHAINS:-6}
PERF_CALLERS=${PERF_CALLERS:-"queue_work_on exit_to_user_mode_prepare _raw_spin_unlock_irqrestore read_hpet clear_page_erms memset_erms vp_notify"}

# perf resolves kernel and module symbols through /proc/kallsyms (and the
# staged sroce.ko under /lib/modules); a restricted kallsyms shows zeros.
perf_setup() {
	echo 0 > /proc/sys/kernel/kptr_restrict
	echo -1 > /proc/sys/kernel/perf_event_paranoid
	mountpoint -q /sys/kernel/tracing ||
		mount -t tracefs tracefs /sys/kernel/tracing 2>/dev/null
}

# emit TAG CMD...: CMD's output, each line prefixed for the host.
emit() {
	local tag=$1
	shift
	"$@" 2>&1 | sed "s/^/PROFILE $tag /"
}

# perf_begin TAG: sampling starts (perf's pid in PERF_PID).
perf_begin() {
	perf record -a -g -e cpu-clock -F 499 -o "/tmp/perf-$1.data" \
		> "/tmp/perf-$1.log" 2>&1 &
	PERF_PID=$!
	# perf has opened its events once it has said nothing and still runs.
	sleep 2
}

# perf_end TAG WHAT RESULT: sampling stops; the report of TAG, headed by
# what ran (WHAT) and its result line (RESULT).
perf_end() {
	local tag=$1 data=/tmp/perf-$1.data
	kill -INT "$PERF_PID"
	wait "$PERF_PID"
	emit "$tag" echo "# $2, perf record -a -g -e cpu-clock -F 499"
	emit "$tag" echo "# result line: $3"
	emit "$tag" sed 's/^/# record: /' "/tmp/perf-$tag.log"
	# Where the samples fall: by task, by object (kernel, modules, libraries).
	emit "$tag" echo "## by command (perf report --sort comm), >= 1%"
	emit "$tag" perf report -i "$data" --no-children --sort comm -g none --stdio \
		--percent-limit 1 -q
	emit "$tag" echo "## by object (perf report --sort dso), >= 1%"
	emit "$tag" perf report -i "$data" --no-children --sort dso -g none --stdio \
		--percent-limit 1 -q
	# The idle loop (the CPU halted, nothing to run) is most samples of a
	# latency run; "busy%" is the share of the samples outside it.
	emit "$tag" echo "## top $PERF_TOP symbols (perf report --no-children --sort sym); busy% leaves out idle"
	perf report -i "$data" --no-children --sort sym -g none --stdio -q 2>&1 |
		awk -v top="$PERF_TOP" '
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
	for sym in $PERF_CALLERS; do
		emit "$tag" echo "## callers of $sym (-S $sym -g folded,0.5,callee --max-stack 8)"
		perf report -i "$data" --no-children --sort sym --stdio -S "$sym" \
			-g folded,0.5,callee --max-stack 8 -q 2>&1 |
			grep -E '^[0-9.]+% ' | head -n "$PERF_NCHAINS" | sed "s/^/PROFILE $tag /"
	done
	rm -f "$data"
}
