#!/usr/bin/env bash
# `make run`: the embedded default on one machine. Migrates ./var's SQLite database, makes the
# first admin and the demo data (both idempotent, so a second run reuses everything), then serves
# the web app (gunicorn, as in production; DEBUG off unless DQ_DEBUG=1) and one Celery worker
# (with embedded beat) until Ctrl-C, which stops them both. A worker that dies (killed, out of
# memory) is started again; the web server keeps serving.
set -euo pipefail
cd "$(dirname "$0")/.."

PORT=${PORT:-8000}
URL="http://127.0.0.1:$PORT"
PY=.venv/bin/python
export PATH="$PWD/.venv/bin:$PATH"        # spark-submit and Spark's helpers find the venv
export SPARK_LOCAL_IP=127.0.0.1           # else Spark binds a non-loopback address
export PYSPARK_PYTHON="$PWD/.venv/bin/python"  # else Spark's Python workers use PATH's python3

port_in_use() {
  (exec 3<>"/dev/tcp/127.0.0.1/$PORT") 2>/dev/null
}

if port_in_use; then
  echo "Port $PORT on 127.0.0.1 is already in use (another \`make run\`?). Stop that program, or run: PORT=8001 make run" >&2
  exit 1
fi

$PY manage.py migrate --noinput -v0
admin_line=$($PY manage.py ensure_admin)
$PY manage.py load_demo
$PY manage.py collectstatic --noinput -v0

web_pid=
worker_pid=
servers() { echo $web_pid $worker_pid; }
stop_all() {
  # Ignore, not reset: a second Ctrl-C (or make and timeout passing the signal on) must not kill
  # this script half-way and leave the servers running.
  trap '' INT TERM
  trap - EXIT
  echo "Stopping the web server and the worker (a few seconds)..."
  # TERM to the leaders only: Celery then stops its pool and beat itself (a warm shutdown).
  for pid in $(servers); do kill -TERM "$pid" 2>/dev/null || true; done
  # Celery's warm shutdown on the filesystem broker takes about 8 s here; allow 30.
  for _ in $(seq 1 300); do
    alive=0
    for pid in $(servers); do kill -0 -- "-$pid" 2>/dev/null && alive=1; done
    [ "$alive" = 0 ] && break
    sleep 0.1
  done
  # Each server leads its own process group (setsid), so this also reaches any leftover child.
  for pid in $(servers); do kill -KILL -- "-$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
}
trap 'stop_all; exit 130' INT
trap 'stop_all; exit 143' TERM
trap stop_all EXIT

# setsid: a process group of their own, which stop_all signals once and in order, instead of the
# terminal's Ctrl-C hitting them mid-start. Embedded beat (-B) is fine with a single worker.
# -q drops Celery's start-up banner, so that ours below is the last thing on the screen.
start_worker() {
  setsid .venv/bin/celery -q -A dq_platform worker -n make-run@localhost -Q default,spark,preview -c 1 -B -l warning &
  worker_pid=$!
}
start_worker
# gunicorn, as in production (conf/gunicorn.conf.py); WhiteNoise serves the collected static files.
# Its access log goes to a file, so that the banner below stays on the screen.
# One web process per core (at most 4; conf/gunicorn.conf.py), the app preloaded so that they
# share its memory; SQLite's WAL lets them read while the worker writes. WEB_CONCURRENCY sets the count.
DQ_BIND="127.0.0.1:$PORT" DQ_ACCESS_LOG="${DQ_ACCESS_LOG:-${DQ_VAR_DIR:-var}/web-access.log}" \
  setsid .venv/bin/gunicorn -c conf/gunicorn.conf.py --log-level warning &
web_pid=$!

web_ready() {
  $PY -c "import sys, urllib.request; urllib.request.urlopen(sys.argv[1], timeout=2)" "$URL/healthz" 2>/dev/null
}
worker_ready() {
  .venv/bin/celery -A dq_platform inspect ping --timeout 1 -d make-run@localhost >/dev/null 2>&1
}
wait_until() {  # description, command...
  local what=$1; shift
  for attempt in $(seq 1 90); do
    "$@" && return 0
    for pid in $(servers); do
      kill -0 "$pid" 2>/dev/null || { echo "A server exited during start-up; see the messages above." >&2; exit 1; }
    done
    [ "$attempt" = 90 ] && { echo "$what did not answer in time." >&2; exit 1; }
    sleep 0.5
  done
}
wait_until "The web server ($URL/healthz)" web_ready
wait_until "The Celery worker" worker_ready

cat <<EOF

================================================================================
  Data quality platform is running
    App:       $URL/
    Admin:     $URL/admin/
    API docs:  $URL/api/docs/
  $admin_line
  Demo data and its planted defects: ${DQ_VAR_DIR:-var}/demo/README.txt
  Press Ctrl-C to stop.
================================================================================

EOF

# Until Ctrl-C or the web server's end. A worker that dies is started again: the web server keeps
# serving, the reaper (in the new worker's beat) ends the run the dead one held and sends the
# queued runs it had taken again (README "Runs that never get lost"). A worker that keeps dying
# (five times within a minute: a broken setting, not bad luck) stops everything instead.
restarts=()
while true; do
  ended=
  if wait -n -p ended $(servers); then status=0; else status=$?; fi
  if [ "$ended" != "$worker_pid" ]; then
    echo "The web server stopped unexpectedly (exit status $status); stopping the worker." >&2
    exit 1
  fi
  # Its pool process and embedded beat share its process group: end them too, so that no orphan
  # goes on running a check or firing schedules next to the new worker.
  kill -KILL -- "-$worker_pid" 2>/dev/null || true
  now=$(date +%s)
  recent=()
  for at in "${restarts[@]}"; do [ $((now - at)) -lt 60 ] && recent+=("$at"); done
  restarts=("${recent[@]}" "$now")
  if [ "${#restarts[@]}" -gt 5 ]; then
    echo "The Celery worker stopped five times within a minute (exit status $status); see the messages above. Stopping." >&2
    exit 1
  fi
  echo "The Celery worker stopped (exit status $status); starting a new one. The web server keeps running." >&2
  start_worker
done
