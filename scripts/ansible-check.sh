#!/usr/bin/env bash
# The deployment's static checks: ansible-lint with the production profile, then
# ansible-playbook --syntax-check of site.yml with each inventory and of the molecule
# scenario's playbooks. Nothing is deployed (that is `make deploy-test`).
set -euo pipefail
source "$(dirname "$0")/lib.sh"

export PATH=$VENV/bin:$PATH
cd "$ROOT/ansible"
ansible-lint --profile production --nocolor
for inventory in inventories/*/ molecule/default/inventory; do
  say "syntax: site.yml with ${inventory%/}"
  ansible-playbook --syntax-check -i "$inventory" site.yml >/dev/null
done
for playbook in molecule/default/{converge,verify,destroy}.yml; do
  say "syntax: $playbook"
  ansible-playbook --syntax-check -i molecule/default/inventory "$playbook" >/dev/null
done
say "ansible: lint and syntax clean"
