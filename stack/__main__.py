"""python3 -P -m stack COMMAND: the stack's commands (stack/commands.py), as scripts/stack.sh runs them."""

from stack.commands import main

main()
