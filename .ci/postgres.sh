#!/usr/bin/env bash
# A throwaway Postgres cluster for the tests of session/pgstore.
#
#   eval "$(.ci/postgres.sh start)"   # prints: export COMPACT_PG_DSN=... COMPACT_PG_DIR=...
#   go test ./session/...
#   .ci/postgres.sh stop              # stops the cluster in $COMPACT_PG_DIR and removes it
#
# start installs Postgres with apt-get when initdb is missing, creates a
# cluster in a new temporary directory as a non-root user (Postgres refuses
# to run as root; as root, the user COMPACT_PG_USER, default compactpg, is
# created if need be), starts it on a free port of 127.0.0.1 only, with a
# random password, and creates a database (fsync off for speed unless
# COMPACT_PG_FSYNC=on). Everything it prints on stdout
# is meant for eval; progress goes to stderr.
set -euo pipefail

user=${COMPACT_PG_USER:-compactpg}

log() { printf 'postgres.sh: %s\n' "$*" >&2; }

# bindir finds the directory holding initdb and pg_ctl.
bindir() {
  local b
  for b in $(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -rV); do
    if [ -x "$b/initdb" ] && [ -x "$b/pg_ctl" ]; then echo "$b"; return; fi
  done
  if b=$(command -v initdb 2>/dev/null); then dirname "$b"; return; fi
  return 1
}

# as runs a command as the cluster's owner.
as() {
  if [ "$(id -u)" -eq 0 ]; then
    runuser -u "$user" -- "$@"
  else
    "$@"
  fi
}

# freeport prints a loopback port nothing listens on.
freeport() {
  local p
  for _ in $(seq 1 200); do
    p=$((20000 + RANDOM % 40000))
    if ! (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then echo "$p"; return; fi
  done
  log "no free port found"; return 1
}

start() {
  # Some containers have a plain file for /dev/null, which initdb's helper
  # shells cannot write as a non-root user: run the cluster in a private
  # mount namespace where /dev/null is a writable file.
  if [ ! -c /dev/null ] && [ "$(id -u)" -eq 0 ] && [ -z "${COMPACT_PG_NS:-}" ]; then
    local nul
    nul=$(mktemp /tmp/compact-pg-null.XXXXXX)
    chmod 666 "$nul"
    log "/dev/null is not a device here: starting the cluster in a private mount namespace"
    exec env COMPACT_PG_NS="$nul" unshare --mount --propagation private \
      sh -c 'mount --bind "$0" /dev/null && exec "$1" start' "$nul" "$0"
  fi
  local bin
  if ! bin=$(bindir); then
    log "initdb not found: installing postgresql with apt-get"
    local sudo=""
    [ "$(id -u)" -eq 0 ] || sudo=sudo
    $sudo apt-get update -qq >&2
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq postgresql >&2
    bin=$(bindir)
  fi
  if [ "$(id -u)" -eq 0 ] && ! id "$user" >/dev/null 2>&1; then
    log "creating user $user to own the cluster"
    useradd --create-home --shell /usr/sbin/nologin "$user"
  fi

  local dir port pw
  dir=$(mktemp -d /tmp/compact-pg.XXXXXX)
  chmod 700 "$dir"
  # stop removes the stand-in /dev/null along with the cluster.
  [ -z "${COMPACT_PG_NS:-}" ] || printf '%s\n' "$COMPACT_PG_NS" >"$dir/devnull"
  [ "$(id -u)" -ne 0 ] || chown "$user" "$dir"
  port=$(freeport)
  pw=$(head -c 18 /dev/urandom | od -An -tx1 | tr -d ' \n')
  printf '%s\n' "$pw" >"$dir/pwfile"
  chmod 600 "$dir/pwfile"
  [ "$(id -u)" -ne 0 ] || chown "$user" "$dir/pwfile"

  as "$bin/initdb" --pgdata="$dir/data" --username=compact --pwfile="$dir/pwfile" \
    --auth=scram-sha-256 --encoding=UTF8 --locale=C >"$dir/initdb.log" 2>&1 ||
    { log "initdb failed:"; cat "$dir/initdb.log" >&2; return 1; }
  rm -f "$dir/pwfile"
  as "$bin/pg_ctl" --pgdata="$dir/data" --log="$dir/server.log" --wait --timeout=60 \
    -o "-c listen_addresses=127.0.0.1 -c port=$port -c unix_socket_directories=$dir -c fsync=${COMPACT_PG_FSYNC:-off} -c max_connections=200" \
    start >&2 ||
    { log "pg_ctl start failed:"; cat "$dir/server.log" >&2; return 1; }
  local psql
  psql=$(command -v psql || echo "$bin/psql")
  PGPASSWORD=$pw "$psql" -q -h 127.0.0.1 -p "$port" -U compact -d postgres -c 'CREATE DATABASE compact' >&2
  log "Postgres $("$bin/pg_ctl" --version | awk '{print $3}') on 127.0.0.1:$port, data in $dir"
  printf "export COMPACT_PG_DIR='%s'\n" "$dir"
  printf "export COMPACT_PG_DSN='postgres://compact:%s@127.0.0.1:%s/compact?sslmode=disable'\n" "$pw" "$port"
}

stop() {
  local dir=${1:-${COMPACT_PG_DIR:-}}
  if [ -z "$dir" ] || [ ! -d "$dir/data" ]; then
    log "nothing to stop (give the directory start printed, or set COMPACT_PG_DIR)"; return 0
  fi
  local bin
  bin=$(bindir)
  as "$bin/pg_ctl" --pgdata="$dir/data" --mode=fast --wait stop >&2 || true
  if [ -f "$dir/devnull" ]; then rm -f "$(cat "$dir/devnull")"; fi
  rm -rf "$dir"
  log "stopped and removed $dir"
}

case "${1:-}" in
  start) start ;;
  stop) stop "${2:-}" ;;
  *) echo "usage: $0 start | stop [dir]" >&2; exit 2 ;;
esac
