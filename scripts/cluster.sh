#!/usr/bin/env bash
# The m3 pair on simulated hosts: each host a network namespace on the bridge osbr0 with its own
# address (CLUSTER_SUBNET, no route out), its own hostname (UTS namespace), its own /srv and /tmp
# and /etc/hosts (a mount namespace; the folders are $CLUSTER_DIR/<host>/) and its own sshd,
# which holds those namespaces: everything Ansible starts over SSH (supervisord and its
# programs) inherits them. ansible/README.md, "The cluster: simulated hosts", lists how these
# hosts differ from real ones.
#
#   scripts/cluster.sh up             make the hosts (a stale cluster is torn down first)
#   scripts/cluster.sh deploy [PLAYBOOK.yml] [ARGS]  ansible-playbook site.yml (or PLAYBOOK) -i ansible/inventories/cluster
#   scripts/cluster.sh down           tear everything down, check nothing is left (idempotent)
#   scripts/cluster.sh status         say what runs on each host
#   scripts/cluster.sh exec HOST CMD  run CMD on HOST (its namespaces), as root
#   scripts/cluster.sh hosts          print "name address" for every host
#   scripts/cluster.sh load [USERS]   a load run through the cluster (STEP_SECONDS per user count)
#   scripts/cluster.sh run PROFILE [NAME=VALUE...]  a suite profile's headless run from locust-1
#   scripts/cluster.sh test [ARGS]    `make cluster-test`: up, deploy, tests/cluster, down (always)
set -euo pipefail
source "$(dirname "$0")/lib.sh"
# The simulated hosts' filesystems (each host's /srv, /tmp) are made as a host's root makes them,
# with umask 022: lib.sh's 027 would leave /srv closed to the services' own users (supervisord
# could not chdir to /srv/orderservice as orderservice-readings). What the deployment writes for
# its services carries the roles' own modes and umask (common_umask).
umask 022

BRIDGE=osbr0
# The hosts and the last octet of each address (shared by the issue-17 slices; the inventory's
# addresses are checked against this list by tests/unit/test_cluster_inventory.py).
HOSTS=(db-1:10 db-2:11 lms-1:20 ecommerce-1:31 ecommerce-2:32 locust-1:40 locust-2:41 lb-1:50)
# Packages the hosts use that the roles do not install: the sshd that holds each host, and sudo
# (the plays `become` root, as on real hosts).
HOST_PACKAGES=(openssh-server sudo)
# The deployment's users (the roles' defaults) and each one's home: the code's owner, and each
# service's own (ecommerce, lms_stub, Locust, the readings agent).
SERVICE_USERS=(
  orderservice:/srv/orderservice/var
  orderservice-ecommerce:/nonexistent
  orderservice-lms:/nonexistent
  orderservice-locust:/nonexistent
  orderservice-readings:/nonexistent
)
SSH_DIR=$CLUSTER_DIR/ssh
# ansible-playbook's SSH connections (ControlPersist) live here: `down` ends those that remain.
CONTROL_DIR=$CLUSTER_DIR/cp
WHEELHOUSE=$CLUSTER_DIR/wheelhouse
WHEELHOUSE_PID=$CLUSTER_DIR/wheelhouse-server.pid

# One cluster per machine (the bridge and the host names are fixed): the checkout whose
# CLUSTER_DIR made it owns it, and another checkout's up or down refuses to touch it.
OWNER_FILE=/run/orderservice-cluster.owner

[[ $CLUSTER_SUBNET =~ ^([0-9]{1,3}\.[0-9]{1,3}\.[0-9]{1,3})\.0/24$ ]] ||
  die "CLUSTER_SUBNET must be a /24 written a.b.c.0/24 (got '$CLUSTER_SUBNET')"
NET=${BASH_REMATCH[1]}
GATEWAY=$NET.1

host_name() { printf '%s' "${1%%:*}"; }
host_address() { printf '%s.%s' "$NET" "${1##*:}"; }
# The bridge-side end of a host's veth pair (interface names are at most 15 characters).
host_link() { printf 'os-%s' "$1"; }
host_dir() { printf '%s/%s' "$CLUSTER_DIR" "$1"; }
# holder_pid HOST: the host's sshd, the process that holds its namespaces (empty if none runs).
holder_pid() {
  local file pid
  file="$(host_dir "$1")/sshd.pid"
  pid=$(pid_of "$file") || true
  if pid_matches "$pid" "$(host_dir "$1")/sshd_config"; then printf '%s' "$pid"; fi
}

known_host() {
  local entry
  for entry in "${HOSTS[@]}"; do
    [ "$(host_name "$entry")" = "$1" ] && return 0
  done
  die "unknown host '$1'; the hosts: $(for e in "${HOSTS[@]}"; do printf '%s ' "$(host_name "$e")"; done)"
}

require_root() {
  [ "$(id -u)" -eq 0 ] || die "the cluster needs root (network and mount namespaces, a bridge)"
}

# require_owner: the cluster on this machine, if any, is this checkout's (CLUSTER_DIR).
require_owner() {
  local owner
  owner=$(cat "$OWNER_FILE" 2>/dev/null || true)
  if [ -n "$owner" ] && [ "$owner" != "$CLUSTER_DIR" ] && ip link show "$BRIDGE" >/dev/null 2>&1; then
    die "the cluster on this machine was made from $owner: run scripts/cluster.sh down there first (if that checkout is gone: CLUSTER_DIR=$owner scripts/cluster.sh down)"
  fi
}

# --- Preparing the machine (the controller side) ---------------------------------------------

# The apt packages of every role (their *_apt_packages defaults): no host can reach a Debian
# mirror, so they are installed on this machine, whose /usr the hosts share.
role_packages() {
  "$PYTHON" - "$ROOT/ansible/roles" <<'PY'
import sys
from pathlib import Path

import yaml

names = set()
for defaults in sorted(Path(sys.argv[1]).glob("*/defaults/main.yml")):
    for key, value in (yaml.safe_load(defaults.read_text()) or {}).items():
        if key.endswith("_apt_packages"):
            names.update(value)
print(" ".join(sorted(names)))
PY
}

install_packages() {
  local wanted missing=() pkg
  read -r -a wanted <<<"$(role_packages) ${HOST_PACKAGES[*]}"
  for pkg in "${wanted[@]}"; do
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  say "cluster: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  # As scripts/bootstrap.sh: the packages' scripts must not start system services (sshd, MariaDB).
  local own_policy=0 status=0
  if [ ! -e /usr/sbin/policy-rc.d ]; then
    printf '#!/bin/sh\nexit 101\n' >/usr/sbin/policy-rc.d && chmod +x /usr/sbin/policy-rc.d && own_policy=1
  fi
  { apt-get update -qq && apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null; } || status=$?
  [ "$own_policy" = 1 ] && rm -f /usr/sbin/policy-rc.d
  [ "$status" = 0 ] || die "apt-get install ${missing[*]} failed"
}

# Wheels of every pinned package the hosts install (requirements.txt with constraints.txt),
# rebuilt when the pins change; the hosts' pip reads them over HTTP (common_pip_extra_args in
# the cluster inventory).
build_wheelhouse() {
  local stamp=$WHEELHOUSE/.built-for want
  want=$(cat "$ROOT/requirements.txt" "$ROOT/constraints.txt" | sha256sum | cut -d' ' -f1)
  [ "$(cat "$stamp" 2>/dev/null)" = "$want" ] && return 0
  say "cluster: building the wheelhouse (pip wheel -r requirements.txt -c constraints.txt)"
  rm -rf "$WHEELHOUSE" && mkdir -p "$WHEELHOUSE"
  "$PYTHON" -m pip wheel -q --disable-pip-version-check -w "$WHEELHOUSE" \
    -r "$ROOT/requirements.txt" -c "$ROOT/constraints.txt" 2>&1 | { grep -v "is ignored" || true; }
  # Every requirement is a wheel now (mysqlclient built here), so no host builds anything, and
  # the hosts' virtualenvs (python3 -m venv) bring their own pip.
  echo "$want" >"$stamp"
}

# The roles create the service users; the hosts share this machine's /etc/passwd, and parallel
# plays racing to add (or re-home) the same user would fail, so they are made here, as the roles
# make them: each with a group of its own name, its home where the role puts it.
ensure_service_users() {
  local entry user home
  for entry in "${SERVICE_USERS[@]}"; do
    user=${entry%%:*} home=${entry#*:}
    if id "$user" >/dev/null 2>&1; then
      [ "$(getent passwd "$user" | cut -d: -f6)" = "$home" ] || usermod --home "$home" "$user"
      continue
    fi
    getent group "$user" >/dev/null || groupadd --system "$user"
    useradd --system --gid "$user" --home-dir "$home" --no-create-home --shell /usr/sbin/nologin "$user"
    touch "$CLUSTER_DIR/created-$user"
  done
}

# The balancer ends TLS for orders.example.com, as in the m3 inventories: a private CA made here
# signs its certificate; the inventory gives lb-1 the certificate with its key
# (vault_haproxy_tls_pem) and every host the CA (common_http_ca_bundle), as a deployment with a
# private CA would.
TLS_DIR=$CLUSTER_DIR/tls
tls_files() {
  [ -s "$TLS_DIR/orders.pem" ] && [ -s "$TLS_DIR/ca.pem" ] && return 0
  mkdir -p "$TLS_DIR" && chmod 700 "$TLS_DIR"
  openssl req -x509 -newkey rsa:2048 -nodes -days 30 -subj "/CN=cluster test CA" \
    -keyout "$TLS_DIR/ca.key" -out "$TLS_DIR/ca.pem" 2>/dev/null
  openssl req -newkey rsa:2048 -nodes -subj "/CN=$BALANCER_NAME" \
    -keyout "$TLS_DIR/orders.key" -out "$TLS_DIR/orders.csr" 2>/dev/null
  printf 'subjectAltName=DNS:%s\n' "$BALANCER_NAME" >"$TLS_DIR/orders.ext"
  openssl x509 -req -in "$TLS_DIR/orders.csr" -CA "$TLS_DIR/ca.pem" -CAkey "$TLS_DIR/ca.key" \
    -CAcreateserial -days 30 -extfile "$TLS_DIR/orders.ext" -out "$TLS_DIR/orders.crt" 2>/dev/null
  cat "$TLS_DIR/orders.crt" "$TLS_DIR/orders.key" >"$TLS_DIR/orders.pem"
  chmod 600 "$TLS_DIR"/*.key "$TLS_DIR/orders.pem"
}

ssh_keys() {
  mkdir -p "$SSH_DIR" && chmod 700 "$SSH_DIR"
  [ -s "$SSH_DIR/id_ed25519" ] || ssh-keygen -q -t ed25519 -N '' -C cluster-controller -f "$SSH_DIR/id_ed25519"
  cp "$SSH_DIR/id_ed25519.pub" "$SSH_DIR/authorized_keys"
  : >"$SSH_DIR/known_hosts"
}

# --- The hosts ---------------------------------------------------------------------------------

# Every host's /etc/hosts: the hosts by name, and the m3 inventories' name of the load
# balancer (orders.example.com) on lb-1, as a real deployment's DNS would have it.
BALANCER_NAME=orders.example.com
hosts_file() {
  local entry name
  printf '127.0.0.1 localhost\n::1 localhost ip6-localhost ip6-loopback\n'
  for entry in "${HOSTS[@]}"; do
    name=$(host_name "$entry")
    printf '%s %s%s\n' "$(host_address "$entry")" "$name" "$([ "$name" = lb-1 ] && printf ' %s' "$BALANCER_NAME")"
  done
}

start_host() {
  local name=$1 address=$2 dir link i
  dir=$(host_dir "$name")
  link=$(host_link "$name")
  # A fresh host: nothing of an earlier cluster's deployment (its keys stay).
  rm -rf "${dir:?}/srv" "${dir:?}/tmp"
  mkdir -p "$dir/srv" "$dir/tmp"
  chmod 1777 "$dir/tmp"
  # Every user on the host reads its /etc/hosts (the services resolve the balancer's name as
  # their own users); an earlier run's file keeps its mode through a redirect, so set it.
  hosts_file >"$dir/hosts"
  chmod 0644 "$dir/hosts"
  [ -s "$dir/ssh_host_ed25519_key" ] || ssh-keygen -q -t ed25519 -N '' -C "$name" -f "$dir/ssh_host_ed25519_key"
  printf '%s %s\n' "$address" "$(cut -d' ' -f1,2 "$dir/ssh_host_ed25519_key.pub")" >>"$SSH_DIR/known_hosts"
  cat >"$dir/sshd_config" <<EOF
# $name's sshd (scripts/cluster.sh): root with the cluster's key only, on the host's address.
ListenAddress $address:22
HostKey $dir/ssh_host_ed25519_key
AuthorizedKeysFile $SSH_DIR/authorized_keys
PermitRootLogin prohibit-password
PasswordAuthentication no
KbdInteractiveAuthentication no
UsePAM no
PrintMotd no
PidFile $dir/sshd.pid
MaxStartups 50:30:100
MaxSessions 50
Subsystem sftp /usr/lib/openssh/sftp-server
EOF

  ip netns add "$name"
  ip link add "$link" type veth peer name eth0 netns "$name"
  ip link set "$link" master "$BRIDGE" up
  ip -n "$name" addr add "$address/24" dev eth0
  ip -n "$name" link set lo up
  ip -n "$name" link set eth0 up
  # sshd's privilege separation folder (systemd makes it on real hosts).
  mkdir -p /run/sshd
  # The holder: a UTS and a private mount namespace inside the network namespace, the host's
  # own folders bound on /srv, /tmp and /etc/hosts, then sshd in the foreground (exec: the pid
  # below is sshd's). Nothing mounted in there is seen outside, and it all goes with the host.
  setsid ip netns exec "$name" unshare --uts --mount --propagation private -- /bin/bash -c '
    set -e
    hostname "$1"
    mount --bind "$2/srv" /srv
    mount --bind "$2/tmp" /tmp
    mount --bind "$2/hosts" /etc/hosts
    exec /usr/sbin/sshd -D -e -f "$2/sshd_config"
  ' holder "$name" "$dir" >"$dir/sshd.log" 2>&1 </dev/null &
  # The namespace's identity, as /proc/<pid>/ns/net names it: `down` finds its processes by it
  # even if the name is gone.
  echo "net:[$(stat -L -c %i "/run/netns/$name")]" >"$dir/netns-id"
  for ((i = 0; i < 100; i++)); do
    if [ -n "$(holder_pid "$name")" ] && (exec 3<>"/dev/tcp/$address/22") 2>/dev/null; then return 0; fi
    sleep 0.1
  done
  cat "$dir/sshd.log" >&2
  die "$name: sshd did not start on $address:22"
}

start_wheelhouse_server() {
  "$PYTHON" -m http.server --bind "$GATEWAY" --directory "$WHEELHOUSE" "$CLUSTER_WHEELHOUSE_PORT" \
    >"$CLUSTER_DIR/wheelhouse-server.log" 2>&1 </dev/null &
  echo "$!" >"$WHEELHOUSE_PID"
  local i
  for ((i = 0; i < 50; i++)); do
    (exec 3<>"/dev/tcp/$GATEWAY/$CLUSTER_WHEELHOUSE_PORT") 2>/dev/null && return 0
    sleep 0.1
  done
  die "the wheelhouse server did not start on $GATEWAY:$CLUSTER_WHEELHOUSE_PORT"
}

cmd_up() {
  require_root
  # Each host has its own /srv and /tmp: the sshd of a host must still read its files there.
  case "$CLUSTER_DIR/" in
    /srv/* | /tmp/*) die "CLUSTER_DIR ($CLUSTER_DIR) must not be under /srv or /tmp, which each host has of its own" ;;
  esac
  local started entry
  started=$(date +%s)
  require_owner
  cmd_down >/dev/null 2>&1 || cmd_down
  echo "$CLUSTER_DIR" >"$OWNER_FILE"
  "$ROOT/scripts/bootstrap.sh"
  install_packages
  mkdir -p "$CLUSTER_DIR" "$CONTROL_DIR"
  build_wheelhouse
  ensure_service_users
  ssh_keys
  tls_files

  ip link add "$BRIDGE" type bridge
  ip addr add "$GATEWAY/24" dev "$BRIDGE"
  ip link set "$BRIDGE" up
  for entry in "${HOSTS[@]}"; do
    start_host "$(host_name "$entry")" "$(host_address "$entry")"
  done
  start_wheelhouse_server
  say "cluster: ${#HOSTS[@]} hosts up on $BRIDGE ($CLUSTER_SUBNET) in $(($(date +%s) - started))s"
}

# --- Deploying ---------------------------------------------------------------------------------

# deploy [PLAYBOOK.yml] [ARGS]: site.yml, or one tier's playbook (ecommerce.yml: a rolling deploy
# of the pair, one host drained at a time).
cmd_deploy() {
  require_root
  [ -n "$(holder_pid db-1)" ] || die "the cluster is not up (scripts/cluster.sh up)"
  local playbook=site.yml
  if [[ ${1:-} == *.yml ]]; then
    playbook=$1
    shift
  fi
  cd "$ROOT/ansible"
  [ -f "$playbook" ] || die "no playbook ansible/$playbook"
  # profile_tasks: the slowest tasks at the end (the hosts share this machine's cores).
  PATH=$VENV/bin:$PATH ANSIBLE_SSH_CONTROL_PATH_DIR=$CONTROL_DIR ANSIBLE_FORCE_COLOR=0 \
    ANSIBLE_CALLBACKS_ENABLED=ansible.posix.profile_tasks PROFILE_TASKS_TASK_OUTPUT_LIMIT=15 \
    ansible-playbook -i inventories/cluster "$playbook" --forks "$CLUSTER_FORKS" "$@"
}

# --- Tearing down ------------------------------------------------------------------------------

# leftovers: what a cluster could leave behind, one line each (nothing when clean).
leftovers() {
  local entry name dir id pid
  ip link show "$BRIDGE" >/dev/null 2>&1 && echo "bridge $BRIDGE"
  for entry in "${HOSTS[@]}"; do
    name=$(host_name "$entry")
    dir=$(host_dir "$name")
    ip netns list 2>/dev/null | grep -qE "^$name( |$)" && echo "namespace $name"
    ip link show "$(host_link "$name")" >/dev/null 2>&1 && echo "link $(host_link "$name")"
    # Processes still in the host's network namespace, even when its name is gone.
    id=$(cat "$dir/netns-id" 2>/dev/null || true)
    if [ -n "$id" ]; then
      for pid in $(ns_pids "$id"); do echo "process $pid on $name: $(tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null)"; done
    fi
  done
  for pid in $(controller_pids); do echo "process $pid: $(tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null)"; done
  grep -F " $CLUSTER_DIR/" /proc/self/mountinfo | sed 's/^/mount /' || true
  ss -Hltn 2>/dev/null | awk -v net="$NET." 'index($4, net) == 1 {print "listener " $4}'
}

# ns_pids NETNS-ID: every process whose network namespace is NETNS-ID (net:[inode]); never
# this machine's own namespace. One stat for all processes: this runs in loops.
ns_pids() {
  local inode=${1#net:[}
  inode=${inode%]}
  [[ $inode =~ ^[0-9]+$ ]] || die "not a namespace id: '$1'"
  [ "$1" != "$(readlink /proc/self/ns/net)" ] || die "refusing to list the machine's own network namespace"
  stat -L -c '%i %n' /proc/[0-9]*/ns/net 2>/dev/null | awk -v inode="$inode" '$1 == inode {split($2, p, "/"); print p[3]}'
}

# The controller's own cluster processes: the wheelhouse server, Ansible's SSH masters.
controller_pids() {
  local pid
  pid=$(pid_of "$WHEELHOUSE_PID" 2>/dev/null) || true
  if pid_matches "$pid" "http.server"; then echo "$pid"; fi
  for pid in $(pgrep -x ssh 2>/dev/null || true); do
    if pid_matches "$pid" "$CONTROL_DIR/"; then echo "$pid"; fi
  done
}

# host_pids HOST: every process of the host (its named namespace, or its recorded one).
host_pids() {
  local id
  { ip netns pids "$1" 2>/dev/null || true
    id=$(cat "$(host_dir "$1")/netns-id" 2>/dev/null || true)
    [ -z "$id" ] || ns_pids "$id"
  } | sort -un
}

# signal_all SIGNAL PID...: signal each pid (one at a time, by pid).
signal_all() {
  local signal=$1 pid
  shift
  for pid in "$@"; do kill "-$signal" "$pid" 2>/dev/null || true; done
}

cmd_down() {
  require_root
  require_owner
  local entry name pids=() pid i left
  # The namespaces taken down, for tests/cluster/test_teardown.py to look for their processes.
  [ -d "$CLUSTER_DIR" ] && : >"$CLUSTER_DIR/down-netns-ids"
  for entry in "${HOSTS[@]}"; do
    name=$(host_name "$entry")
    cat "$(host_dir "$name")/netns-id" >>"$CLUSTER_DIR/down-netns-ids" 2>/dev/null || true
    while read -r pid; do [ -n "$pid" ] && pids+=("$pid"); done < <(host_pids "$name")
  done
  while read -r pid; do [ -n "$pid" ] && pids+=("$pid"); done < <(controller_pids)
  if [ ${#pids[@]} -gt 0 ]; then
    # TERM first: supervisord stops its programs, MariaDB shuts down cleanly.
    signal_all TERM "${pids[@]}"
    for ((i = 0; i < 150; i++)); do
      left=()
      for pid in "${pids[@]}"; do kill -0 "$pid" 2>/dev/null && left+=("$pid"); done
      [ ${#left[@]} -eq 0 ] && break
      sleep 0.1
    done
  fi
  # Then KILL whatever is left, and whatever started meanwhile, until nothing runs.
  for ((i = 0; i < 20; i++)); do
    pids=()
    for entry in "${HOSTS[@]}"; do
      while read -r pid; do [ -n "$pid" ] && pids+=("$pid"); done < <(host_pids "$(host_name "$entry")")
    done
    while read -r pid; do [ -n "$pid" ] && pids+=("$pid"); done < <(controller_pids)
    [ ${#pids[@]} -eq 0 ] && break
    say "cluster: killing ${pids[*]}"
    signal_all KILL "${pids[@]}"
    sleep 0.2
  done
  for entry in "${HOSTS[@]}"; do
    name=$(host_name "$entry")
    ip netns list 2>/dev/null | grep -qE "^$name( |$)" && ip netns del "$name"
    # The bridge-side link goes with the namespace; one a half-made host left goes here.
    ip link del "$(host_link "$name")" 2>/dev/null || true
    rm -f "$(host_dir "$name")/sshd.pid" "$(host_dir "$name")/netns-id"
  done
  ip link show "$BRIDGE" >/dev/null 2>&1 && ip link del "$BRIDGE"
  rm -f "$WHEELHOUSE_PID"
  rm -rf "$CONTROL_DIR"
  local entry user
  for entry in "${SERVICE_USERS[@]}"; do
    user=${entry%%:*}
    [ -e "$CLUSTER_DIR/created-$user" ] || continue
    userdel "$user" 2>/dev/null || true
    getent group "$user" >/dev/null && groupdel "$user" 2>/dev/null || true
    rm -f "$CLUSTER_DIR/created-$user"
  done
  left=$(leftovers)
  [ -n "$left" ] || rm -f "$OWNER_FILE"
  if [ -n "$left" ]; then
    say "cluster: left behind after down:"
    say "$left"
    return 1
  fi
  say "cluster: down (no namespace, process, mount, link or listener left)"
}

# --- Looking and acting ------------------------------------------------------------------------

cmd_status() {
  local entry name pid
  if ! ip link show "$BRIDGE" >/dev/null 2>&1; then
    say "cluster: down"
    return 0
  fi
  for entry in "${HOSTS[@]}"; do
    name=$(host_name "$entry")
    pid=$(holder_pid "$name")
    if [ -z "$pid" ]; then
      printf '%-12s %-14s no sshd\n' "$name" "$(host_address "$entry")"
      continue
    fi
    printf '%-12s %-14s sshd %s, %s processes\n' "$name" "$(host_address "$entry")" "$pid" "$(host_pids "$name" | wc -l)"
    cmd_exec "$name" /bin/sh -c \
      'c=/srv/orderservice/etc/supervisord.conf; [ -e $c ] && supervisorctl -c $c status | sed "s/^/    /" || true'
  done
}

# exec HOST CMD...: CMD in HOST's network, mount and UTS namespaces (what runs there sees what
# its programs see), with the host's root login environment.
cmd_exec() {
  [ $# -ge 2 ] || die "usage: scripts/cluster.sh exec HOST CMD..."
  known_host "$1"
  local pid
  pid=$(holder_pid "$1")
  [ -n "$pid" ] || die "$1 is not up (scripts/cluster.sh up)"
  shift
  exec_in "$pid" "$@"
}

exec_in() {
  local pid=$1
  shift
  nsenter --target "$pid" --net --mount --uts -- env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    HOME=/root LANG=C.UTF-8 "$@"
}

cmd_hosts() {
  local entry
  for entry in "${HOSTS[@]}"; do printf '%s %s\n' "$(host_name "$entry")" "$(host_address "$entry")"; done
}

# load [USERS...]: a load run through the cluster by the deployed Locust master on locust-1 and
# the workers of both Locust hosts, each user count for STEP_SECONDS (scripts/cluster_load.py).
cmd_load() {
  require_root
  [ "${1:-}" != run ] || die "usage: scripts/cluster.sh load [USERS...] (a profile's run: scripts/cluster.sh run PROFILE)"
  [ -n "$(holder_pid locust-1)" ] || die "the cluster is not up (scripts/cluster.sh up, deploy)"
  cmd_exec locust-1 env STEP_SECONDS="${STEP_SECONDS:-30}" /usr/bin/python3 "$ROOT/scripts/cluster_load.py" "$@"
}

# run PROFILE [NAME=VALUE...]: a suite profile's headless run from locust-1 (one Locust process,
# as the deployed master runs Locust: its user, release, environment and target), its sizes as
# NAME=VALUE; the open-model profiles (capacity, rpm) the deployed master's web UI does not run.
cmd_run() {
  require_root
  [ $# -ge 1 ] || die "usage: scripts/cluster.sh run PROFILE [NAME=VALUE...], e.g. run capacity RPM_START=1200"
  [ -n "$(holder_pid locust-1)" ] || die "the cluster is not up (scripts/cluster.sh up, deploy)"
  cmd_exec locust-1 /usr/bin/python3 "$ROOT/scripts/cluster_load.py" run "$@"
}

# --- make cluster-test -------------------------------------------------------------------------

cmd_test() {
  require_root
  local t0 t1 t2 t3 t4 status=0
  t0=$(date +%s)
  # Down always, even after a failure or an interrupt.
  trap 'cmd_down || true' EXIT
  trap 'exit 130' INT TERM
  cmd_up
  t1=$(date +%s)
  mkdir -p "$CLUSTER_DIR/logs"
  cmd_deploy | tee "$CLUSTER_DIR/logs/deploy.log"
  t2=$(date +%s)
  cd "$ROOT"
  PYTHONPATH=$ROOT "$PYTHON" -m pytest tests/cluster -p no:django -p no:schemathesis -p no:anyio \
    --ignore tests/cluster/test_teardown.py "$@" || status=$?
  t3=$(date +%s)
  trap - EXIT
  cmd_down || status=1
  t4=$(date +%s)
  PYTHONPATH=$ROOT "$PYTHON" -m pytest tests/cluster/test_teardown.py -p no:django -p no:schemathesis -p no:anyio \
    "$@" || status=1
  say "cluster-test: up $((t1 - t0))s, deploy $((t2 - t1))s, tests $((t3 - t2))s, down $((t4 - t3))s, total $(($(date +%s) - t0))s"
  [ "$status" = 0 ] && say "cluster-test: passed" || say "cluster-test: FAILED"
  return "$status"
}

case ${1:-} in
  up | deploy | down | status | exec | hosts | load | run | test)
    command=$1
    shift
    "cmd_$command" "$@"
    ;;
  *)
    say "usage: scripts/cluster.sh up|deploy [PLAYBOOK.yml] [ansible-playbook args]|down|status|exec HOST CMD...|hosts|load [USERS...]|run PROFILE [NAME=VALUE...]|test [pytest args]"
    exit 2
    ;;
esac
