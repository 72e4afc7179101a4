"""gunicorn's settings for every way the platform is served: `make run` (scripts/run.sh), the
image's default command and docker-compose's web service. Each can be changed by environment."""

import os

wsgi_app = "dq_platform.wsgi:application"
bind = os.environ.get("DQ_BIND", "0.0.0.0:8000")
# Threads, not more processes: requests mostly wait on the database, and the machine may be small.
workers = int(os.environ.get("WEB_CONCURRENCY", "2"))
threads = int(os.environ.get("DQ_WEB_THREADS", "4"))
worker_class = "gthread"
# Longer than the slowest honest request (a catalog listing against a slow database), short
# enough that a stuck worker is replaced.
timeout = int(os.environ.get("DQ_WEB_TIMEOUT", "120"))
graceful_timeout = 20
accesslog = os.environ.get("DQ_ACCESS_LOG", "-")
errorlog = "-"
loglevel = os.environ.get("DQ_WEB_LOG_LEVEL", "info")
# X-Forwarded-Proto is believed from these proxies only (DQ_ENV=production trusts it for https).
forwarded_allow_ips = os.environ.get("FORWARDED_ALLOW_IPS", "127.0.0.1")
