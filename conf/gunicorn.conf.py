"""gunicorn's settings for every way the platform is served: `make run` (scripts/run.sh), the
image's default command and docker-compose's web service. Each can be changed by environment."""

import os

wsgi_app = "dq_platform.wsgi:application"
bind = os.environ.get("DQ_BIND", "0.0.0.0:8000")


def _cores() -> int:
    """The cores this process may use (a container's CPU set, not the host's)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        return os.cpu_count() or 1


# One process per core, since Python runs one thread at a time per process (the JSON of a page
# of results is CPU work), capped so that a many-core laptop keeps `make run` small; threads in
# each for requests that wait on the database. WEB_CONCURRENCY sets the processes outright.
workers = int(os.environ.get("WEB_CONCURRENCY") or min(_cores(), int(os.environ.get("DQ_WEB_MAX_WORKERS", "4"))))
threads = int(os.environ.get("DQ_WEB_THREADS", "4"))
worker_class = "gthread"
# The app is imported once, before the processes fork: they share its memory pages (copy on
# write), so each extra process costs far less than a fresh one (README "The web server").
preload_app = os.environ.get("DQ_WEB_PRELOAD", "1") != "0"
# Longer than the slowest honest request (a catalog listing against a slow database), short
# enough that a stuck worker is replaced.
timeout = int(os.environ.get("DQ_WEB_TIMEOUT", "120"))
graceful_timeout = 20
accesslog = os.environ.get("DQ_ACCESS_LOG", "-")
errorlog = "-"
loglevel = os.environ.get("DQ_WEB_LOG_LEVEL", "info")
# X-Forwarded-Proto is believed from these proxies only (DQ_ENV=production trusts it for https).
forwarded_allow_ips = os.environ.get("FORWARDED_ALLOW_IPS", "127.0.0.1")
