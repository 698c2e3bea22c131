"""python3 -P -m stack.cluster COMMAND: the cluster's commands (stack/cluster/commands.py), as
scripts/cluster.sh runs them."""

from stack.cluster.commands import main

main()
