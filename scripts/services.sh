#!/usr/bin/env bash
# Starts the servers the tests use when they are down (PostgreSQL, MariaDB, Redis), with the same
# commands the machine uses at boot, and waits until each answers. Idempotent.
set -euo pipefail

PG_HOST=${DQ_TEST_PG_HOST:-127.0.0.1}; PG_PORT=${DQ_TEST_PG_PORT:-5432}
MY_HOST=${DQ_TEST_MYSQL_HOST:-127.0.0.1}; MY_PORT=${DQ_TEST_MYSQL_PORT:-3306}
REDIS_PORT=${DQ_TEST_REDIS_PORT:-6379}

wait_for() {  # name, command...
  local name=$1; shift
  for _ in $(seq 1 60); do "$@" >/dev/null 2>&1 && return 0; sleep 0.5; done
  echo "$name did not come up; the tests need it." >&2; return 1
}

if [ "$(id -u)" = 0 ]; then
  if ! pg_isready -q -h "$PG_HOST" -p "$PG_PORT"; then
    echo "Starting PostgreSQL"
    pg_ctlcluster --skip-systemctl-redirect "$(ls /etc/postgresql | head -1)" main start || true
  fi
  if ! mysqladmin -h "$MY_HOST" -P "$MY_PORT" -uroot ping >/dev/null 2>&1; then
    echo "Starting MariaDB"
    start-stop-daemon --start --oknodo --background --exec /usr/sbin/mariadbd
  fi
  if ! redis-cli -h 127.0.0.1 -p "$REDIS_PORT" ping >/dev/null 2>&1; then
    echo "Starting Redis"
    mkdir -p /var/lib/redis /var/log/redis
    redis-server --daemonize yes --bind 127.0.0.1 -::1 --port "$REDIS_PORT" --save "" --appendonly no \
      --dir /var/lib/redis --logfile /var/log/redis/ci.log
  fi
fi

wait_for PostgreSQL pg_isready -q -h "$PG_HOST" -p "$PG_PORT"
wait_for MariaDB mysqladmin -h "$MY_HOST" -P "$MY_PORT" -uroot ping
wait_for Redis redis-cli -h 127.0.0.1 -p "$REDIS_PORT" ping

# The machine's PostgreSQL trusts every local login, so no password would ever be checked. One
# role, dq_password_probe, is made to need a real password, so the tests can prove that a wrong
# password gives a clear failure.
if [ "$(id -u)" = 0 ] && [ "$PG_HOST" = 127.0.0.1 ]; then
  hba=$(psql -h "$PG_HOST" -p "$PG_PORT" -U postgres -d postgres -Atc "show hba_file")
  if [ -w "$hba" ] && ! grep -q dq_password_probe "$hba"; then
    sed -i '1i host all dq_password_probe 127.0.0.1/32 scram-sha-256' "$hba"
    psql -h "$PG_HOST" -p "$PG_PORT" -U postgres -d postgres -qAtc "select pg_reload_conf()" >/dev/null
  fi
fi
