#!/bin/sh
# apt-get that waits for the package locks instead of failing when another
# apt or dpkg runs ("Could not get lock /var/lib/dpkg/lock-frontend").
#
#   scripts/apt.sh update              apt-get update -qq
#   scripts/apt.sh install PACKAGE...  apt-get install -y -qq PACKAGE...
#
# APT_LOCK_WAIT (seconds, default 600) bounds the wait for a lock.
# install: apt's own DPkg::Lock::Timeout waits for the dpkg locks. update
# takes another lock (/var/lib/apt/lists/lock) that apt 2.6 does not wait
# for even with that option (measured: it fails at once), so update is
# tried again every 5 s while its error is a held lock, until the same
# bound. Run it as root (or through sudo); DEBIAN_FRONTEND=noninteractive is
# set here.
set -u
wait=${APT_LOCK_WAIT:-600}
export DEBIAN_FRONTEND=noninteractive
cmd=${1:-}
[ $# -gt 0 ] && shift
case "$cmd" in
install)
	exec apt-get -o DPkg::Lock::Timeout="$wait" install -y -qq "$@" ;;
update)
	start=$(date +%s)
	while :; do
		out=$(apt-get -o DPkg::Lock::Timeout="$wait" update -qq 2>&1); rc=$?
		[ -n "$out" ] && printf '%s\n' "$out" >&2
		[ $rc -eq 0 ] && exit 0
		case "$out" in *"Could not get lock"*) ;; *) exit $rc ;; esac
		if [ $(( $(date +%s) - start )) -ge "$wait" ]; then
			echo "apt: the package lists stayed locked for $wait s (APT_LOCK_WAIT)" >&2
			exit $rc
		fi
		echo "apt: the package lists are locked by another apt; trying again in 5 s" >&2
		sleep 5
	done ;;
*)
	echo "usage: scripts/apt.sh update | install PACKAGE..." >&2
	exit 2 ;;
esac
