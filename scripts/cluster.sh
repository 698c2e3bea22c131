#!/usr/bin/env bash
# The m3 pair on simulated hosts (`make cluster-*`; docs/deploy.md, "The cluster"): network
# namespaces on the bridge osbr0, each held by its own sshd, deployed by ansible-playbook, torn
# down with the check that nothing is left. stack/cluster/ does it (stack/cluster/commands.py's
# docstring says what each command does), run by the system python3 that scripts/lib.sh makes
# sure of, before `up` has made the virtualenv.
#
#   scripts/cluster.sh up|deploy [PLAYBOOK.yml] [ARGS]|down|status|exec HOST CMD...|hosts
#   scripts/cluster.sh load [USERS...]|run PROFILE [NAME=VALUE...]|test [ARGS]
set -euo pipefail
source "$(dirname "$0")/lib.sh"
PYTHONPATH=$ROOT${PYTHONPATH:+:$PYTHONPATH} exec python3 -P -m stack.cluster "$@"
