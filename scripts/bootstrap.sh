#!/usr/bin/env bash
# Installs what the project needs on a fresh Debian machine: system packages (apt, as root)
# and the virtualenv in .venv. Idempotent and quick when everything is already there.
set -euo pipefail
source "$(dirname "$0")/lib.sh"

# The packages and why each is needed: scripts/packages.txt (first column; the programs the
# project starts from each follow it, and tests/unit/test_install_guard.py holds them to it).
mapfile -t APT_PACKAGES < <(grep -v -e '^#' -e '^[[:space:]]*$' "$ROOT/scripts/packages.txt" | cut -d' ' -f1)
# `scripts/bootstrap.sh packages` only lists them, one a line.
if [ "${1:-}" = packages ]; then
  printf '%s\n' "${APT_PACKAGES[@]}"
  exit 0
fi

missing=()
for pkg in "${APT_PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
done
if [ ${#missing[@]} -gt 0 ]; then
  if [ "$(id -u)" -ne 0 ]; then
    die "missing system packages: ${missing[*]}. Run as root, or install them first:
    sudo apt-get install -y ${missing[*]}"
  fi
  say "bootstrap: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  # The project runs its own MariaDB under var/; Debian's package would otherwise start and
  # enable a system instance on port 3306. policy-rc.d tells the package scripts not to.
  own_policy=0
  if [ ! -e /usr/sbin/policy-rc.d ]; then
    printf '#!/bin/sh\nexit 101\n' > /usr/sbin/policy-rc.d && chmod +x /usr/sbin/policy-rc.d && own_policy=1
  fi
  apt-get update -qq && apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  status=$?
  [ "$own_policy" = 1 ] && rm -f /usr/sbin/policy-rc.d
  [ "$status" = 0 ] || die "apt-get install ${missing[*]} failed"
fi

# The virtualenv is rebuilt only when the pins change. It holds the services' packages and the
# deployment tools (requirements-deploy.txt: ansible, ansible-lint, molecule); deployed hosts
# install requirements.txt alone.
stamp=$VENV/.requirements.sha
want=$(cat "$ROOT/requirements.txt" "$ROOT/requirements-deploy.txt" "$ROOT/constraints.txt" | sha256sum | cut -d' ' -f1)
if [ ! -x "$PYTHON" ] || [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
  say "bootstrap: installing Python packages into $VENV"
  [ -x "$PYTHON" ] || python3 -m venv "$VENV"
  # uv (pinned in constraints.txt) resolves and installs the pins in seconds where pip took a
  # minute on a clean clone; pip does it alone if uv cannot be had or fails.
  # uv trusts the system's certificate store, as pip does here through pip.conf: with its own
  # bundled roots it refuses a site's proxy CA that ca-certificates has added to that store.
  # (pip names each of this machine's missing local indexes as ignored: not news.)
  pins=(-r "$ROOT/requirements.txt" -r "$ROOT/requirements-deploy.txt" -c "$ROOT/constraints.txt")
  if "$PYTHON" -m pip install -q --disable-pip-version-check "$(grep '^uv==' "$ROOT/constraints.txt")" 2>&1 |
    { grep -v "is ignored" || true; } &&
    "$VENV/bin/uv" pip install -q --system-certs --python "$PYTHON" "${pins[@]}"; then
    :
  else
    say "bootstrap: uv did not install the packages; pip installs them"
    "$PYTHON" -m pip install -q --disable-pip-version-check "${pins[@]}" 2>&1 | grep -v "is ignored" || true
  fi
  "$PYTHON" -c "import django, oscar, rest_framework, MySQLdb, gunicorn, locust, playwright, ansible, molecule" \
    || die "the virtualenv in $VENV is incomplete; see the pip output above"
  echo "$want" > "$stamp"
fi
