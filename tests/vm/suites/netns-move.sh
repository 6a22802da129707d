#!/bin/bash
# netns-move.sh: a device's netdev moves to another network namespace,
# after the device was added and while it is being added, and the
# namespaces are deleted: nothing may hang. The namespace the device's
# UDP socket lives in waits on exit for the socket to go; a device left
# with its socket behind there would hold that namespace's cleanup (and
# every later one) for ever. A namespace is known to be gone when the veth
# end it held has taken its peer (in the initial namespace) with it.
#   scripts/vm-run.sh tests/vm/suites/netns-move.sh
set -u
# shellcheck source=tests/vm/lib/lib.sh
. "${SROCE_TESTS:-$(dirname "$0")/..}/lib/lib.sh"

ROUNDS=${ROUNDS:-12}

# gone_within SEC LINK: LINK is no longer in this namespace within SEC s.
link_gone() { ! ip link show "$1" >/dev/null 2>&1; }
gone_within() { within "$1" link_gone "$2"; }

# round N DELAY: va$N in namespace a$N, its peer vb$N here; sroce device
# s$N added in a$N; DELAY (seconds, or "after") later va$N moves to b$N;
# then both namespaces are deleted.
round() {
	local n=$1 delay=$2 pid
	ip netns add "a$n" && ip netns add "b$n" || return 1
	ip link add "va$n" type veth peer name "vb$n" || return 1
	ip link set "va$n" netns "a$n" && ip -n "a$n" link set "va$n" up &&
		ip link set "vb$n" up || return 1
	if [ "$delay" = after ]; then
		ip netns exec "a$n" rdma link add "s$n" type sroce netdev "va$n" ||
			return 1
	else
		ip netns exec "a$n" rdma link add "s$n" type sroce netdev "va$n" \
			>/dev/null 2>&1 &
		pid=$!
		sleep "$delay"
	fi
	ip -n "a$n" link set "va$n" netns "b$n" || return 1
	[ "$delay" = after ] || wait "$pid"
	ip netns del "a$n"
	ip netns del "b$n"
	# Deleting b$n deletes va$n and so vb$n, once every namespace queued
	# before it has been cleaned up.
	gone_within 60 "vb$n"
}

stuck=0
run_ok "modprobe sroce" modprobe sroce
run_ok "device added, then its netdev moves; both namespaces go" round 0 after ||
	stuck=1
ok "! rdma link show s0 2>/dev/null | grep -q s0" "the device went with the move"
for i in $(seq 1 "$ROUNDS"); do
	[ $stuck = 0 ] || break
	# 0 to 55 ms: the move lands before, during or after registration.
	d=$(printf '0.%03d' $(( (i - 1) * 5 )))
	run_ok "round $i: netdev moves ${d} s into rdma link add; both namespaces go" \
		round "$i" "$d" || stuck=1
done
rdma link show | sed 's/^/# left: /'
if [ $stuck = 1 ]; then
	# rmmod would wait for the stuck cleanup in D state, for ever.
	ok 0 "rmmod sroce (not tried: a namespace cleanup is stuck)"
else
	# Whatever devices the rounds left (a failed add leaves none).
	for d in $(rdma link show 2>/dev/null | awk '{print $2}' | cut -d/ -f1); do
		rdma link delete "$d" 2>/dev/null
	done
	run_ok "rmmod sroce" timeout 60 rmmod sroce
fi
ok "! dmesg | grep -E 'BUG:|WARNING:|blocked for more than'" "no kernel warnings, no hung task"
done_testing
