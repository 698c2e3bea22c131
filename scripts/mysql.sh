#!/usr/bin/env bash
# The project's private MariaDB: a datadir under var/mysql, listening on 127.0.0.1:$MYSQL_PORT
# and on a socket beside it. No system service and nothing from /etc/mysql is used.
#
#   scripts/mysql.sh up       initialise if needed, start if stopped, create the databases and the
#                             accounts (docs/configuration.md, "Database accounts")
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

# The accounts by job (docs/configuration.md, "Database accounts"). The owner makes and fills the tables
# (migrations, seeding, the preload) and the test databases (test_*, made and dropped by the test
# runner); each service's own account reads and writes the rows of its database and of the test
# databases named after it (test_…ecommerce, test_…lms); the monitor reads what the load suite
# measures: server status, statement digests, table sizes (SHOW VIEW makes a database's tables
# visible in information_schema without a row of them; the databases hold no views).
OWNER_PRIVILEGES="SELECT, INSERT, UPDATE, DELETE, CREATE, DROP, ALTER, INDEX, REFERENCES, CREATE TEMPORARY TABLES"
APP_PRIVILEGES="SELECT, INSERT, UPDATE, DELETE"
DIGESTS=performance_schema.events_statements_summary_by_digest

# in_list "A, B": the SQL list 'A','B' ('' for none: no privilege is named '').
in_list() {
  local item items out=()
  IFS=, read -ra items <<<"$1"
  for item in "${items[@]}"; do out+=("'${item# }'"); done
  [ ${#out[@]} -gt 0 ] || out=("''")
  local IFS=,
  printf '%s' "${out[*]}"
}

# database NAME: NAME as a GRANT names one database (an _ would match any character).
database() { printf '`%s`' "${1//_/\\_}"; }

# account_sql USER PASSWORD GLOBAL SCHEMA TABLE GRANT...: USER on 127.0.0.1 and localhost with
# PASSWORD and the GRANTs ("PRIVILEGES ON what"). An account holding anything else than global
# privileges among GLOBAL, database privileges among SCHEMA and table privileges among TABLE
# ("database.table PRIVILEGE") first loses every privilege: one made by an earlier version (the
# one application user had ALL, PROCESS and performance_schema) or widened by hand. An account
# already within them loses nothing, so `up` under a running stack takes nothing away mid-request.
account_sql() {
  local user=$1 password=$2 global=$3 schema=$4 table=$5 host who grantee grant
  shift 5
  for host in 127.0.0.1 localhost; do
    who="'$user'@'$host'"
    grantee=$(sql_string "$who")
    cat <<SQL
CREATE USER IF NOT EXISTS $who IDENTIFIED BY $password;
ALTER USER $who IDENTIFIED BY $password;
DELIMITER //
BEGIN NOT ATOMIC
  IF EXISTS (SELECT 1 FROM information_schema.USER_PRIVILEGES WHERE GRANTEE = $grantee
             AND (PRIVILEGE_TYPE NOT IN ('USAGE', $(in_list "$global")) OR IS_GRANTABLE = 'YES'))
  OR EXISTS (SELECT 1 FROM information_schema.SCHEMA_PRIVILEGES WHERE GRANTEE = $grantee
             AND (PRIVILEGE_TYPE NOT IN ($(in_list "$schema")) OR IS_GRANTABLE = 'YES'))
  OR EXISTS (SELECT 1 FROM information_schema.TABLE_PRIVILEGES WHERE GRANTEE = $grantee
             AND (CONCAT(TABLE_SCHEMA, '.', TABLE_NAME, ' ', PRIVILEGE_TYPE) NOT IN ($(in_list "$table"))
                  OR IS_GRANTABLE = 'YES'))
  OR EXISTS (SELECT 1 FROM information_schema.COLUMN_PRIVILEGES WHERE GRANTEE = $grantee) THEN
    REVOKE ALL PRIVILEGES, GRANT OPTION FROM $who;
  END IF;
END //
DELIMITER ;
SQL
    for grant in "$@"; do printf 'GRANT %s TO %s;\n' "$grant" "$who"; done
  done
}

provision() {
  local name
  for name in ECOMMERCE_DB_NAME LMS_DB_NAME MYSQL_OWNER_USER ECOMMERCE_DB_USER LMS_DB_USER MYSQL_MONITOR_USER; do
    require_identifier "$name" "${!name}"
  done
  # A service database of a test stack (test_*) is one of the test databases, which the
  # patterns below cover: it gets no grant of its own.
  local owner=() ecommerce=() lms=() monitor=("PROCESS ON *.*" "SELECT ON $DIGESTS")
  for name in "$ECOMMERCE_DB_NAME" "$LMS_DB_NAME"; do
    [[ $name == test_* ]] && continue
    owner+=("$OWNER_PRIVILEGES ON $(database "$name").*")
    monitor+=("SHOW VIEW ON $(database "$name").*")
  done
  owner+=("$OWNER_PRIVILEGES ON \`test\\_%\`.*")
  monitor+=("SHOW VIEW ON \`test\\_%\`.*")
  if [[ $ECOMMERCE_DB_NAME != test_* ]]; then
    ecommerce=("$APP_PRIVILEGES ON $(database "$ECOMMERCE_DB_NAME").*"
      "$APP_PRIVILEGES ON $(database "test_%$ECOMMERCE_DB_NAME").*")
  fi
  if [[ $LMS_DB_NAME != test_* ]]; then
    lms=("$APP_PRIVILEGES ON $(database "$LMS_DB_NAME").*" "$APP_PRIVILEGES ON $(database "test_%$LMS_DB_NAME").*")
  fi
  # root keeps only the socket (under var/mysql, mode 700); its TCP accounts are dropped.
  {
    cat <<SQL
DELETE FROM mysql.global_priv WHERE User = 'root' AND Host <> 'localhost';
DELETE FROM mysql.global_priv WHERE User = '';
FLUSH PRIVILEGES;
CREATE DATABASE IF NOT EXISTS \`$ECOMMERCE_DB_NAME\` CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci;
CREATE DATABASE IF NOT EXISTS \`$LMS_DB_NAME\` CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci;
SQL
    account_sql "$MYSQL_OWNER_USER" "$(sql_string "$MYSQL_OWNER_PASSWORD")" "" "$OWNER_PRIVILEGES" "" "${owner[@]}"
    account_sql "$ECOMMERCE_DB_USER" "$(sql_string "$ECOMMERCE_DB_PASSWORD")" "" "$APP_PRIVILEGES" "" "${ecommerce[@]}"
    account_sql "$LMS_DB_USER" "$(sql_string "$LMS_DB_PASSWORD")" "" "$APP_PRIVILEGES" "" "${lms[@]}"
    account_sql "$MYSQL_MONITOR_USER" "$(sql_string "$MYSQL_MONITOR_PASSWORD")" "PROCESS" "SHOW VIEW" \
      "$DIGESTS SELECT" "${monitor[@]}"
  } | client
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
