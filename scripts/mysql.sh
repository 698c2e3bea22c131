#!/usr/bin/env bash
# The project's private MariaDB: a datadir under var/mysql, listening on 127.0.0.1:$MYSQL_PORT
# and on a socket beside it. No system service and nothing from /etc/mysql is used.
#
#   scripts/mysql.sh up       initialise if needed, start if stopped, create databases and user
#   scripts/mysql.sh down     stop it
#   scripts/mysql.sh status   say whether it runs
#   scripts/mysql.sh shell    a root client on the socket (extra arguments go to the client)
#   scripts/mysql.sh reset    stop it and delete the datadir (every database is lost)
set -euo pipefail
source "$(dirname "$0")/lib.sh"

DATADIR=$MYSQL_DIR/data
PIDFILE=$MYSQL_DIR/mysqld.pid
CNF=$MYSQL_DIR/my.cnf
LOG=$LOG_DIR/mariadb.log

write_config() {
  mkdir -p "$MYSQL_DIR" "$LOG_DIR"
  chmod 700 "$MYSQL_DIR"
  local run_as=""
  [ "$(id -u)" -eq 0 ] && run_as="user=root"
  cat > "$CNF" <<CNF
# Written by scripts/mysql.sh on every start; edit the variables there, not this file.
[mariadbd]
datadir=$DATADIR
socket=$MYSQL_SOCKET
pid-file=$PIDFILE
log-error=$LOG
port=$MYSQL_PORT
bind-address=127.0.0.1
$run_as
skip-name-resolve
character-set-server=utf8mb4
collation-server=utf8mb4_unicode_ci
innodb_buffer_pool_size=$MYSQL_BUFFER_POOL_SIZE
innodb_flush_log_at_trx_commit=$MYSQL_FLUSH_LOG_AT_TRX_COMMIT
innodb_lock_wait_timeout=$MYSQL_LOCK_WAIT_TIMEOUT
max_connections=$MYSQL_MAX_CONNECTIONS
performance_schema=$MYSQL_PERFORMANCE_SCHEMA

[client]
socket=$MYSQL_SOCKET
user=root
CNF
}

# libmariadb lets a MYSQL_HOST in the environment override the socket, so it is dropped here.
client() {
  env -u MYSQL_HOST mariadb --defaults-file="$CNF" --protocol=socket "$@"
}

admin() {
  env -u MYSQL_HOST mariadb-admin --defaults-file="$CNF" --protocol=socket --connect-timeout=1 "$@"
}

server_alive() {
  pid_alive "$PIDFILE" mariadbd
}

is_up() {
  server_alive && admin ping >/dev/null 2>&1
}

# wait_for_ping SECONDS: until the server answers.
wait_for_ping() {
  local i
  for ((i = 0; i < $1 * 10; i++)); do
    admin ping >/dev/null 2>&1 && return 0
    sleep 0.1
  done
  return 1
}

initialise() {
  [ -d "$DATADIR/mysql" ] && return 0
  say "mariadb: initialising $DATADIR"
  mkdir -p "$DATADIR"
  local run_as=()
  [ "$(id -u)" -eq 0 ] && run_as=(--user=root)
  mariadb-install-db --no-defaults --datadir="$DATADIR" "${run_as[@]}" \
    --auth-root-authentication-method=normal --skip-test-db >"$LOG_DIR/mariadb-install.log" 2>&1 \
    || die "mariadb-install-db failed; see $LOG_DIR/mariadb-install.log"
}

start() {
  write_config
  if server_alive; then
    # Running but perhaps still recovering: wait for it, never start a second server on its datadir.
    wait_for_ping 120 || die "mariadb (pid $(cat "$PIDFILE")) runs but does not answer; see $LOG"
    say "mariadb: already running on 127.0.0.1:$MYSQL_PORT (pid $(cat "$PIDFILE"))"
    return 0
  fi
  if port_in_use "$MYSQL_PORT"; then
    die "port $MYSQL_PORT is taken by another program; set MYSQL_PORT to a free port"
  fi
  command -v mariadbd >/dev/null || die "mariadbd not found; run scripts/bootstrap.sh (as root) first"
  initialise
  rm -f "$PIDFILE"
  (exec setsid mariadbd --defaults-file="$CNF" </dev/null >>"$LOG" 2>&1) &
  if wait_for_ping 60; then
    say "mariadb: running on 127.0.0.1:$MYSQL_PORT (pid $(cat "$PIDFILE"))"
    return 0
  fi
  tail -n 20 "$LOG" >&2 || true
  die "mariadb did not start within 60 s; see $LOG"
}

provision() {
  # Application databases, and one application user that is not root. Test databases
  # (test_*) are created and dropped by the test runner, so the user may manage those too.
  require_identifier MYSQL_USER "$MYSQL_USER"
  require_identifier ECOMMERCE_DB_NAME "$ECOMMERCE_DB_NAME"
  require_identifier LMS_DB_NAME "$LMS_DB_NAME"
  local user=$MYSQL_USER pw
  pw=$(sql_string "$MYSQL_PASSWORD")
  # root keeps only the socket (under var/mysql, mode 700); its TCP accounts are dropped.
  client <<SQL
DELETE FROM mysql.global_priv WHERE User = 'root' AND Host <> 'localhost';
DELETE FROM mysql.global_priv WHERE User = '';
FLUSH PRIVILEGES;
CREATE DATABASE IF NOT EXISTS \`$ECOMMERCE_DB_NAME\` CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci;
CREATE DATABASE IF NOT EXISTS \`$LMS_DB_NAME\` CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci;
CREATE USER IF NOT EXISTS '$user'@'127.0.0.1' IDENTIFIED BY $pw;
CREATE USER IF NOT EXISTS '$user'@'localhost' IDENTIFIED BY $pw;
ALTER USER '$user'@'127.0.0.1' IDENTIFIED BY $pw;
ALTER USER '$user'@'localhost' IDENTIFIED BY $pw;
GRANT ALL PRIVILEGES ON \`$ECOMMERCE_DB_NAME\`.* TO '$user'@'127.0.0.1', '$user'@'localhost';
GRANT ALL PRIVILEGES ON \`$LMS_DB_NAME\`.* TO '$user'@'127.0.0.1', '$user'@'localhost';
GRANT ALL PRIVILEGES ON \`test\\_%\`.* TO '$user'@'127.0.0.1', '$user'@'localhost';
GRANT SELECT ON performance_schema.* TO '$user'@'127.0.0.1', '$user'@'localhost';
GRANT PROCESS ON *.* TO '$user'@'127.0.0.1', '$user'@'localhost';
SQL
}

case ${1:-} in
  up) start; provision ;;
  down) stop_pid "$PIDFILE" mariadb mariadbd 120 ;;
  status)
    if is_up; then say "mariadb: running on 127.0.0.1:$MYSQL_PORT (pid $(cat "$PIDFILE"))"; else say "mariadb: stopped"; exit 3; fi ;;
  shell) shift; write_config; client "$@" ;;
  reset) stop_pid "$PIDFILE" mariadb mariadbd 120; rm -rf "$DATADIR"; say "mariadb: datadir removed" ;;
  *) die "usage: scripts/mysql.sh up|down|status|shell|reset" ;;
esac
