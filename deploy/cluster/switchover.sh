#!/usr/bin/env bash
# A switchover for maintenance (docs/operations/cluster.md, "Switchover, for
# maintenance"): `patronictl switchover` from LEADER to CANDIDATE, then the
# cluster's own account of it (`patronictl list`): exit 0 only once CANDIDATE
# leads and runs. patronictl 3.0.2 exits 0 when Patroni refuses the
# candidate (412: in synchronous mode only the synchronous standby may take
# over); this says "refused" in one line on standard error and exits 1, as
# it does when CANDIDATE does not lead within WAIT_SECONDS. Run it as the
# postgres user, who may read Patroni's settings.
#
#   PATRONI_CONFIG  Patroni's settings of this node (/var/lib/postgresql/testfax-patroni.yml)
#   WAIT_SECONDS    how long CANDIDATE may take to lead (60)
# Usage: switchover.sh LEADER CANDIDATE
set -euo pipefail
usage="usage: switchover.sh LEADER CANDIDATE"
leader=${1:?$usage}
candidate=${2:?$usage}
config=${PATRONI_CONFIG:-/var/lib/postgresql/testfax-patroni.yml}
wait_seconds=${WAIT_SECONDS:-60}

if ! answer=$(patronictl -c "$config" switchover --leader "$leader" --candidate "$candidate" --force 2>&1); then
	printf '%s\n' "$answer"
	echo "switchover.sh: refused: $(printf '%s\n' "$answer" | tail -n 1)" >&2
	exit 1
fi
printf '%s\n' "$answer"
refusal=$(printf '%s\n' "$answer" | grep '^Switchover failed' || true)
if [ -n "$refusal" ]; then
	echo "switchover.sh: refused: ${refusal}; ${leader} still leads" >&2
	exit 1
fi

# The candidate's role and state as the cluster lists them ("Leader running").
role_of() {
	patronictl -c "$config" list -f json | python3 -c '
import json, sys
for member in json.load(sys.stdin):
    if member["Member"] == sys.argv[1]:
        print(member["Role"], member["State"])' "$1"
}

deadline=$((SECONDS + wait_seconds))
until [ "$(role_of "$candidate")" = "Leader running" ]; do
	if [ "$SECONDS" -ge "$deadline" ]; then
		echo "switchover.sh: ${candidate} does not lead ${wait_seconds} s after the switchover: $(role_of "$candidate")" >&2
		exit 1
	fi
	sleep 1
done
echo "switchover.sh: ${candidate} leads"
