# SPDX-License-Identifier: MIT
# shellcheck shell=bash
#
# Throwaway local users, for tests of what another user can do to one's
# tracing (tests/record/280, tests/live/140).  Source after common.sh:
#
#   need_users              skip (77) unless root with useradd/userdel/setpriv
#   make_user VAR           a new user (no home, no login shell) whose name
#                           goes in VAR; removed at exit, with its
#                           /dev/shm/utrace-<uid>
#   as_user NAME CMD...     run CMD as NAME (group nogroup, no other groups)
_users=()

need_users() {
	[ "$(id -u)" = 0 ] || skip "needs root (to add throwaway users)"
	command -v useradd >/dev/null && command -v userdel >/dev/null &&
		command -v setpriv >/dev/null || skip "no useradd/userdel/setpriv"
	getent group nogroup >/dev/null || skip "no group nogroup"
	trap _remove_users EXIT
}

_remove_users() {
	local u uid i
	for u in "${_users[@]}"; do
		uid=$(id -u "$u" 2>/dev/null) && rm -rf "/dev/shm/utrace-$uid"
		# userdel, like useradd, waits for the passwd lock other tests may hold
		for ((i = 0; i < 100; i++)); do
			userdel "$u" 2>/dev/null && break
			sleep 0.1
		done
	done
}

make_user() {
	local var=$1 name i
	name=uts$$${#_users[@]}$RANDOM
	name=${name:0:30}
	for ((i = 0; i < 100; i++)); do
		useradd -M -N -g nogroup -s /usr/sbin/nologin "$name" 2>/dev/null && break
		sleep 0.1
	done
	id "$name" >/dev/null 2>&1 || skip "useradd $name failed"
	_users+=("$name")
	printf -v "$var" '%s' "$name"
}

as_user() {
	local name=$1
	shift
	setpriv --reuid="$name" --regid=nogroup --clear-groups "$@"
}
