"""The one settings module, driven by the environment (django-environ).

Every value has a safe embedded default for a laptop (SQLite, a filesystem Celery broker, Spark
local[2], everything under ./var/). `DQ_ENV=production` refuses to start without a real
SECRET_KEY and Fernet key, turns DEBUG off and secure cookies on. A malformed value stops the
process with a message naming the variable, rather than surfacing later as a 500.
"""

from __future__ import annotations

import os
import secrets
from datetime import timedelta
from pathlib import Path

import environ
from cryptography.fernet import Fernet
from django.core.exceptions import ImproperlyConfigured

BASE_DIR = Path(__file__).resolve().parent.parent
env = environ.Env()


def _env(kind: str, name: str, **kwargs):
    """Read `name` with django-environ's `kind` parser; a bad value names the variable."""
    parse = getattr(env, kind) if kind else env
    try:
        return parse(name, **kwargs)
    except (ValueError, TypeError, ImproperlyConfigured) as exc:
        raise ImproperlyConfigured(f"Environment variable {name} has a bad value: {exc}") from exc


def _bool(name: str, default: bool) -> bool:
    """Strict: django-environ reads any unknown word as False, which would hide a typo."""
    raw = _env("str", name, default="").strip().lower()
    if not raw:
        return default
    if raw in ("1", "true", "yes", "on"):
        return True
    if raw in ("0", "false", "no", "off"):
        return False
    raise ImproperlyConfigured(f"{name} must be true or false; got {raw!r}.")


def _choice(name: str, default: str, allowed: tuple[str, ...]) -> str:
    value = _env("str", name, default=default)
    if value not in allowed:
        raise ImproperlyConfigured(f"{name} must be one of {', '.join(allowed)}; got {value!r}.")
    return value


DQ_ENV = _choice("DQ_ENV", "development", ("development", "production"))
PRODUCTION = DQ_ENV == "production"

VAR_DIR = Path(_env("str", "DQ_VAR_DIR", default=str(BASE_DIR / "var"))).resolve()
VAR_DIR.mkdir(parents=True, exist_ok=True)


def _local_secret(filename: str, make) -> str:
    """A development secret kept in ./var so that restarts keep sessions and ciphertexts."""
    path = VAR_DIR / filename
    if not path.exists():
        path.write_text(make())
        path.chmod(0o600)
    return path.read_text().strip()


# --- secrets ---------------------------------------------------------------------------------
SECRET_KEY = _env("str", "SECRET_KEY", default="")
if not SECRET_KEY:
    if PRODUCTION:
        raise ImproperlyConfigured("DQ_ENV=production needs SECRET_KEY (50+ random characters).")
    SECRET_KEY = _local_secret("secret_key", lambda: secrets.token_urlsafe(50))
elif PRODUCTION and (len(SECRET_KEY) < 50 or SECRET_KEY.startswith("django-insecure")):
    raise ImproperlyConfigured("SECRET_KEY is too weak for production: use 50+ random characters.")

# Fernet keys for datasource secrets. The first key encrypts; every key decrypts, so a rotation
# is: put the new key first, keep the old ones until `manage.py rotate_secrets` has run.
_fernet_keys = _env("list", "DQ_FERNET_KEYS", default=[])
if not _fernet_keys:
    if PRODUCTION:
        raise ImproperlyConfigured(
            "DQ_ENV=production needs DQ_FERNET_KEYS (comma-separated; make one with "
            "`python -c 'from cryptography.fernet import Fernet; print(Fernet.generate_key().decode())'`)."
        )
    _fernet_keys = [_local_secret("fernet_key", lambda: Fernet.generate_key().decode())]
for _index, _key in enumerate(_fernet_keys):
    try:
        Fernet(_key.encode())
    except (ValueError, TypeError) as exc:
        raise ImproperlyConfigured(
            f"DQ_FERNET_KEYS entry {_index + 1} is not a Fernet key (32 url-safe base64 bytes)."
        ) from exc
DQ_FERNET_KEYS = _fernet_keys

# Off unless DQ_DEBUG=1 (development only): a debug page shows settings and source to anyone who
# makes a 500, and an unknown URL lists every route. Production never turns it on.
DEBUG = False if PRODUCTION else _bool("DQ_DEBUG", False)
ALLOWED_HOSTS = _env("list", "ALLOWED_HOSTS", default=[] if PRODUCTION else ["127.0.0.1", "localhost"])
CSRF_TRUSTED_ORIGINS = _env("list", "CSRF_TRUSTED_ORIGINS", default=[])
if PRODUCTION:
    SESSION_COOKIE_SECURE = True
    CSRF_COOKIE_SECURE = True
    SECURE_CONTENT_TYPE_NOSNIFF = True
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")

# --- apps ------------------------------------------------------------------------------------
INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "rest_framework",
    "rest_framework.authtoken",
    "axes",
    "drf_spectacular",
    "django_celery_beat",
    "django_celery_results",
    "datasources",
    "rules",
    "executions",
    "watching",
    "gates",
    "monitors",
    "profiling",
    "demo",
    "accounts",
    "health",
    "imports",
    "integrations",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    # Static files (the browser app, the admin's) from STATIC_ROOT, with DEBUG off too.
    "whitenoise.middleware.WhiteNoiseMiddleware",
    # Before anything reads a body: a request over DQ_MAX_BODY_BYTES is a 413 in the error shape.
    "dq_platform.middleware.BodySizeLimit",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    # After authentication: a signed-in user's saved language counts (dq_platform/language.py).
    "dq_platform.language.RequestLanguage",
    # A read-only request asks which datasources its user may read once, however many lists ask.
    "datasources.readable.ReadableOncePerRequest",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    # Last, as django-axes asks: turns a locked-out login on /login/ or the admin into a 429.
    "axes.middleware.AxesMiddleware",
]

ROOT_URLCONF = "dq_platform.urls"
WSGI_APPLICATION = "dq_platform.wsgi.application"
TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ]
        },
    }
]

# --- database --------------------------------------------------------------------------------
DATABASES = {
    "default": _env("db", "DATABASE_URL", default=f"sqlite:///{VAR_DIR / 'db.sqlite3'}"),
}
# The platform's own database: the two it is tested on. MariaDB and MySQL are datasources only
# (their driver for Django is not installed, and some of the platform's indexes exceed their key length).
if not DATABASES["default"].get("ENGINE", "").endswith(("sqlite3", "postgresql")):
    raise ImproperlyConfigured(
        "DATABASE_URL must be sqlite:///PATH or postgres://USER:PASSWORD@HOST:PORT/DB (MariaDB and MySQL "
        "can be checked as datasources, not hold the platform's own data); "
        f"got scheme {str(_env('str', 'DATABASE_URL')).split(':', 1)[0]!r}."
    )
if DATABASES["default"]["ENGINE"].endswith("sqlite3"):
    # Tests keep their database in a file (not in memory) so that a real Celery worker process
    # can share it in the end-to-end tests; one file per test process, so parallel runs don't clash.
    DATABASES["default"].setdefault("TEST", {})["NAME"] = str(VAR_DIR / f"test-db-{os.getpid()}.sqlite3")
    # The worker writes results while the web process writes too: WAL + IMMEDIATE transactions
    # avoid "database is locked".
    DATABASES["default"].setdefault("OPTIONS", {}).update(
        {
            "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
            "transaction_mode": "IMMEDIATE",
            "timeout": 20,
        }
    )
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# django-axes first: it refuses a login for a username and address that is locked out, before the
# password is even tried (accounts/lockout.py).
AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesStandaloneBackend",
    "django.contrib.auth.backends.ModelBackend",
]

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
]
LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "home"
LOGOUT_REDIRECT_URL = "login"

# English and Simplified Chinese; a request's language is chosen in dq_platform/language.py.
# Messages: <app>/locale/zh_Hans/LC_MESSAGES/django.po (and locale/ for project-level files),
# compiled by scripts/build-messages.sh.
LANGUAGE_CODE = "en"
LANGUAGES = [("en", "English"), ("zh-hans", "简体中文")]
LOCALE_PATHS = [BASE_DIR / "locale"]
TIME_ZONE = _env("str", "TIME_ZONE", default="UTC")
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATIC_ROOT = VAR_DIR / "static"
STATIC_ROOT.mkdir(parents=True, exist_ok=True)  # WhiteNoise warns about a missing one before collectstatic
STATICFILES_DIRS = [p for p in [BASE_DIR / "frontend" / "dist"] if p.exists()]
# WhiteNoise serves STATIC_ROOT (`collectstatic`, which `make run`, the image and compose run);
# with DQ_DEBUG=1 it also serves straight from frontend/dist and the apps, as runserver would.
WHITENOISE_USE_FINDERS = DEBUG

# --- request limits ----------------------------------------------------------------------------
# The largest request body accepted (JSON, forms, YAML imports alike); bigger is a 413.
DQ_MAX_BODY_BYTES = _env("int", "DQ_MAX_BODY_BYTES", default=5 * 1024 * 1024)
if DQ_MAX_BODY_BYTES < 1024:
    raise ImproperlyConfigured("DQ_MAX_BODY_BYTES must be at least 1024 bytes.")
DATA_UPLOAD_MAX_MEMORY_SIZE = DQ_MAX_BODY_BYTES

# --- sign-in ----------------------------------------------------------------------------------
# Failed logins (token endpoint, /login/, the admin's login): the 10th failure for one username
# from one address within 15 minutes locks that pair out (429 with Retry-After) until 15 minutes
# after that failure, the right password included (django-axes; accounts/lockout.py).
AXES_FAILURE_LIMIT = _env("int", "DQ_LOGIN_FAILURE_LIMIT", default=10)
AXES_COOLOFF_TIME = timedelta(seconds=_env("int", "DQ_LOGIN_LOCKOUT_SECONDS", default=15 * 60))
if AXES_FAILURE_LIMIT < 1 or AXES_COOLOFF_TIME.total_seconds() < 1:
    raise ImproperlyConfigured("DQ_LOGIN_FAILURE_LIMIT and DQ_LOGIN_LOCKOUT_SECONDS must be at least 1.")
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"]]
# Attempts during a lock are refused without being counted, so the lock ends when its window does.
AXES_RESET_COOL_OFF_ON_FAILURE_DURING_LOCKOUT = False
AXES_LOCKOUT_CALLABLE = "accounts.lockout.lockout_response"
# The client's address is the TCP peer's, never a header a client can forge; behind N proxies
# that set X-Forwarded-For, DQ_PROXY_COUNT=N reads the address the nearest proxy saw.
DQ_PROXY_COUNT = _env("int", "DQ_PROXY_COUNT", default=0)
if DQ_PROXY_COUNT:
    AXES_IPWARE_PROXY_COUNT = DQ_PROXY_COUNT
    AXES_IPWARE_META_PRECEDENCE_ORDER = ["HTTP_X_FORWARDED_FOR", "REMOTE_ADDR"]
else:
    AXES_IPWARE_META_PRECEDENCE_ORDER = ["REMOTE_ADDR"]
AXES_VERBOSE = False
# API tokens expire this many seconds after they were made (accounts/authentication.py).
DQ_TOKEN_TTL = _env("int", "DQ_TOKEN_TTL", default=30 * 24 * 3600)
if DQ_TOKEN_TTL < 60:
    raise ImproperlyConfigured("DQ_TOKEN_TTL must be at least 60 seconds.")

# --- API -------------------------------------------------------------------------------------
REST_FRAMEWORK = {
    # Token first: its WWW-Authenticate header makes an unauthenticated call a 401, not a 403.
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "accounts.authentication.ExpiringTokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    "DEFAULT_SCHEMA_CLASS": "dq_platform.schema.AutoSchema",
    "EXCEPTION_HANDLER": "dq_platform.api_errors.exception_handler",
    # DRF's JSON parser that answers 400 for too-deeply nested bodies; forms as DRF has them.
    "DEFAULT_PARSER_CLASSES": [
        "dq_platform.parsers.JSONParser",
        "rest_framework.parsers.FormParser",
        "rest_framework.parsers.MultiPartParser",
    ],
    # Every list endpoint pages: ?page=&page_size= (50 by default, at most 500).
    "DEFAULT_PAGINATION_CLASS": "dq_platform.pagination.Pages",
}
SPECTACULAR_SETTINGS = {
    "TITLE": "Data quality platform API",
    "DESCRIPTION": "Datasources, rule templates, checks, runs and results.",
    "VERSION": "1",
    "SERVE_INCLUDE_SCHEMA": False,
    "COMPONENT_SPLIT_REQUEST": True,
    # One name for a choice set several serializers share (gates' batch states, result statuses).
    "ENUM_NAME_OVERRIDES": {
        "BatchStateEnum": "gates.models.Batch.State",
        "ResultStatusEnum": "executions.models.Result.Status",
        "RunStatusEnum": "executions.models.Run.Status",
        "RunTriggerEnum": "executions.models.Run.Trigger",
        "IncidentStatusEnum": "watching.models.Incident.Status",
        "ProfileStatusEnum": "profiling.models.Profile.Status",
        "AlertChannelLanguageEnum": "watching.models.AlertChannel.Language",
        "LanguageEnum": "accounts.models.Preference.Language",
        "KindEnum": "watching.models.AlertChannel.Kind",
        "EventEnum": "watching.models.Notification.Event",
        "NotificationStatusEnum": "watching.models.Notification.Status",
        "IntegrationKindEnum": "integrations.models.Integration.Kind",
        "IntegrationEventEnum": "integrations.models.Delivery.Event",
    },
}

# --- Celery ----------------------------------------------------------------------------------
CELERY_BROKER_URL = _env("str", "CELERY_BROKER_URL", default="filesystem://")
if CELERY_BROKER_URL.startswith("filesystem"):
    # kombu's filesystem transport: no server to install; in and out must be the same folder
    # for one shared queue, and kombu does not create the folders.
    _broker_dir = Path(_env("str", "DQ_CELERY_BROKER_DIR", default=str(VAR_DIR / "celery-broker")))
    CELERY_BROKER_TRANSPORT_OPTIONS = {
        "data_folder_in": str(_broker_dir / "queue"),
        "data_folder_out": str(_broker_dir / "queue"),
        "processed_folder": str(_broker_dir / "processed"),
        # Broadcast (inspect ping, remote control) files; kombu's default is ./control in the CWD.
        "control_folder": str(_broker_dir / "control"),
        "store_processed": False,
        "polling_interval": 0.1,
    }
    # kombu's transport with whole messages only (dq_platform/broker.py): its own can hand a
    # worker a message file before it is written, which stops the worker and loses the message.
    CELERY_BROKER_TRANSPORT = "dq_platform.broker:Transport"
    for _folder in ("queue", "processed", "control"):
        (_broker_dir / _folder).mkdir(parents=True, exist_ok=True)
elif not CELERY_BROKER_URL.startswith(("redis://", "rediss://", "amqp://", "memory://")):
    raise ImproperlyConfigured(
        "CELERY_BROKER_URL must start with filesystem://, redis://, rediss://, amqp:// or memory://."
    )
CELERY_RESULT_BACKEND = _env("str", "CELERY_RESULT_BACKEND", default="django-db")
CELERY_RESULT_EXTENDED = True
CELERY_TASK_TRACK_STARTED = True
CELERY_TASK_SERIALIZER = "json"
CELERY_ACCEPT_CONTENT = ["json"]
# django-celery-beat's database scheduler; the reaper runs in beat's own process (dq_platform/beat.py).
CELERY_BEAT_SCHEDULER = "dq_platform.beat:Scheduler"
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
CELERY_TASK_ALWAYS_EAGER = _bool("CELERY_TASK_ALWAYS_EAGER", False)
# Spark work has its own queue so a worker holding a JVM (-c 1) takes only that.
DQ_SPARK_QUEUE = _env("str", "DQ_SPARK_QUEUE", default="spark")
# Beat's own tasks (the reaper, schedule ticks) and alerts; renamed only to keep two platforms
# apart on one broker (the production test, tests/test_production_from_clean_install.py).
CELERY_TASK_DEFAULT_QUEUE = _env("str", "DQ_DEFAULT_QUEUE", default="default")
# A worker takes one message at a time and acknowledges it when the task ends: a worker that dies
# holds at most the run it was running, never queued ones (the filesystem broker deletes a message
# from its folder as soon as a worker fetches it, so a fetched message dies with its worker).
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TASK_ACKS_LATE = True

# --- engine and data -------------------------------------------------------------------------
DQ_SPARK_MASTER = _env("str", "DQ_SPARK_MASTER", default="local[2]")
DQ_SPARK_JARS = _env(
    "list",
    "DQ_SPARK_JARS",
    default=["/usr/share/java/postgresql.jar", "/usr/share/java/mariadb-java-client.jar"],
)
# Spark reads a database table in this many ranges of its numeric key, over as many connections
# (dq_engine/databases/partitions.py); 1 reads it in one.
DQ_SPARK_JDBC_PARTITIONS = _env("int", "DQ_SPARK_JDBC_PARTITIONS", default=4)
DQ_ERROR_DATA_ROOT = Path(_env("str", "DQ_ERROR_DATA_ROOT", default=str(VAR_DIR / "error-data")))
DQ_ERROR_ROWS_LIMIT = _env("int", "DQ_ERROR_ROWS_LIMIT", default=1000)
# Local file datasources must lie under one of these directories; remote URIs (hdfs://, s3a://)
# are passed to Spark as they are.
DQ_FILE_ROOTS = [
    Path(p).resolve() for p in _env("list", "DQ_FILE_ROOTS", default=[str(VAR_DIR / "demo"), str(VAR_DIR / "files")])
]
DQ_ENGINE_MODE = _choice("DQ_ENGINE_MODE", "in_process", ("in_process", "spark_submit"))
# `auto` engine selection (dq_engine/selection.py): local files up to this many bytes are read by
# the embedded DuckDB engine (no JVM), larger ones by Spark.
DQ_DUCKDB_MAX_BYTES = _env("int", "DQ_DUCKDB_MAX_BYTES", default=2 * 1024**3)
if DQ_DUCKDB_MAX_BYTES < 0:
    raise ImproperlyConfigured("DQ_DUCKDB_MAX_BYTES must be 0 or more (0 sends every file source to Spark).")
# DuckDB's memory limit in the worker (e.g. "1GB"; empty: DuckDB's default, 80% of RAM); it
# spills to the temp directory beyond it.
DQ_DUCKDB_MEMORY_LIMIT = _env("str", "DQ_DUCKDB_MEMORY_LIMIT", default="")
# --- the run lifecycle (README "Runs that never get lost") ------------------------------------
# A run's time limit: when it passes, the worker cancels the run's Spark jobs, ends it `error` and
# takes the next run. Celery's own limits on the task are a backstop a little later.
# The row checks' previews (POST /api/v1/row-checks/preview/, a job the browser polls): how long
# one may wait for a worker and then run, the queue they go to (apart from the runs', so that a
# flood of previews never delays a run; every worker of make run and docker-compose consumes it),
# and how many one user may have in flight (429 beyond).
DQ_PREVIEW_TIMEOUT = _env("int", "DQ_PREVIEW_TIMEOUT", default=30)
if DQ_PREVIEW_TIMEOUT < 1:
    raise ImproperlyConfigured("DQ_PREVIEW_TIMEOUT must be at least 1 second.")
DQ_PREVIEW_QUEUE = _env("str", "DQ_PREVIEW_QUEUE", default="preview")
DQ_PREVIEW_PER_USER = _env("int", "DQ_PREVIEW_PER_USER", default=3)
if DQ_PREVIEW_PER_USER < 1:
    raise ImproperlyConfigured("DQ_PREVIEW_PER_USER must be at least 1.")
# List pages kept per web process while the database is unchanged (dq_platform/kept_pages.py):
# their budget per process (0 switches keeping off) and how long one may be given at most.
DQ_KEPT_PAGE_MB = _env("int", "DQ_KEPT_PAGE_MB", default=16)
DQ_KEPT_PAGE_SECONDS = _env("int", "DQ_KEPT_PAGE_SECONDS", default=10)
if DQ_KEPT_PAGE_MB < 0 or DQ_KEPT_PAGE_SECONDS < 0:
    raise ImproperlyConfigured("DQ_KEPT_PAGE_MB and DQ_KEPT_PAGE_SECONDS must be 0 or more.")
DQ_RUN_TIME_LIMIT = _env("int", "DQ_RUN_TIME_LIMIT", default=15 * 60)
# Run and wait in one request (POST /runs/?wait=S, executions/waiting.py): the longest wait one
# request may ask, and how many requests of one web process may wait at once (fewer than its
# gunicorn threads, DQ_WEB_THREADS, so that waiting never takes every thread; 429 beyond).
DQ_RUN_WAIT_MAX = _env("int", "DQ_RUN_WAIT_MAX", default=600)
DQ_RUN_WAIT_SLOTS = _env("int", "DQ_RUN_WAIT_SLOTS", default=2)
if DQ_RUN_WAIT_MAX < 0 or DQ_RUN_WAIT_SLOTS < 1:
    raise ImproperlyConfigured("DQ_RUN_WAIT_MAX must be 0 or more and DQ_RUN_WAIT_SLOTS at least 1.")
# Table profiles (profiling/, dq_engine/profiling/): a table or batch of more rows is profiled on a
# random sample of about this many rows (the document says so); up to DQ_PROFILE_EXACT_ROWS
# profiled rows, distinct counts and quantiles are exact where the engine can compute them so.
DQ_PROFILE_ROW_GUARD = _env("int", "DQ_PROFILE_ROW_GUARD", default=1_000_000)
DQ_PROFILE_EXACT_ROWS = _env("int", "DQ_PROFILE_EXACT_ROWS", default=100_000)
if DQ_RUN_TIME_LIMIT < 1:
    raise ImproperlyConfigured("DQ_RUN_TIME_LIMIT must be at least 1 second.")
# Every worker process that runs runs writes a heartbeat this often (executions/heartbeat.py) ...
DQ_WORKER_HEARTBEAT_INTERVAL = _env("int", "DQ_WORKER_HEARTBEAT_INTERVAL", default=10)
# ... and counts as gone when its last one is older than this: its running run ends `error`.
DQ_WORKER_STALE_AFTER = _env("int", "DQ_WORKER_STALE_AFTER", default=60)
if DQ_WORKER_HEARTBEAT_INTERVAL < 1 or DQ_WORKER_STALE_AFTER < 2 * DQ_WORKER_HEARTBEAT_INTERVAL:
    raise ImproperlyConfigured(
        "DQ_WORKER_STALE_AFTER must be at least twice DQ_WORKER_HEARTBEAT_INTERVAL (and the interval at "
        "least 1 s), or a busy worker would be taken for dead."
    )
# A queued run that no worker took within this many seconds, while a worker has been idle that
# long, lost its message (a worker died holding it): the reaper sends it again ...
DQ_RUN_CLAIM_TIMEOUT = _env("int", "DQ_RUN_CLAIM_TIMEOUT", default=60)
# ... at most this many sends in all; then the run ends `error`.
DQ_RUN_MAX_ENQUEUES = _env("int", "DQ_RUN_MAX_ENQUEUES", default=3)
if DQ_RUN_CLAIM_TIMEOUT < 1 or DQ_RUN_MAX_ENQUEUES < 1:
    raise ImproperlyConfigured("DQ_RUN_CLAIM_TIMEOUT and DQ_RUN_MAX_ENQUEUES must be at least 1.")
# How often beat runs the reaper, in beat's own process (dq_platform/beat.py), never in a worker.
DQ_REAPER_INTERVAL = _env("int", "DQ_REAPER_INTERVAL", default=30)
# How often beat looks for schedule slots that have come (watching/); a slot fires within this.
DQ_SCHEDULE_TICK = _env("float", "DQ_SCHEDULE_TICK", default=15.0)
if not 1 <= DQ_SCHEDULE_TICK <= 60:
    raise ImproperlyConfigured("DQ_SCHEDULE_TICK must be between 1 and 60 seconds.")
# How often beat ends releases past their expiry (gates/); reads catch up between ticks.
DQ_RELEASE_EXPIRY_TICK = _env("int", "DQ_RELEASE_EXPIRY_TICK", default=60)
if DQ_RELEASE_EXPIRY_TICK < 1:
    raise ImproperlyConfigured("DQ_RELEASE_EXPIRY_TICK must be at least 1 second.")
# The longest a release of a held batch may last, and a mute of a check's messages (days).
DQ_RELEASE_MAX_DAYS = _env("int", "DQ_RELEASE_MAX_DAYS", default=30)
DQ_MUTE_MAX_DAYS = _env("int", "DQ_MUTE_MAX_DAYS", default=30)
if DQ_RELEASE_MAX_DAYS < 1 or DQ_MUTE_MAX_DAYS < 1:
    raise ImproperlyConfigured("DQ_RELEASE_MAX_DAYS and DQ_MUTE_MAX_DAYS must be at least 1 day.")
CELERY_BEAT_SCHEDULE = {
    "reap-stale-runs": {"task": "executions.tasks.reap_stale_runs", "schedule": DQ_REAPER_INTERVAL},
    "expire-releases": {
        "task": "gates.tasks.expire_releases",
        "schedule": DQ_RELEASE_EXPIRY_TICK,
        "options": {"expires": DQ_RELEASE_EXPIRY_TICK * 4},
    },
    "fire-due-schedules": {
        "task": "watching.tasks.fire_due_schedules",
        "schedule": DQ_SCHEDULE_TICK,
        "options": {"expires": DQ_SCHEDULE_TICK * 4},  # a stale tick is useless: the next one covers it
    },
}
DQ_CONNECT_TIMEOUT = _env("int", "DQ_CONNECT_TIMEOUT", default=5)
if not 1 <= DQ_CONNECT_TIMEOUT <= 120:
    raise ImproperlyConfigured("DQ_CONNECT_TIMEOUT must be between 1 and 120 seconds.")
if DQ_ERROR_ROWS_LIMIT < 0:
    raise ImproperlyConfigured("DQ_ERROR_ROWS_LIMIT must be 0 or more.")
# The health pages' catalog (health/catalog.py): read again when older than this many seconds, and
# the columns of at most this many tables per datasource are read each time.
DQ_HEALTH_CATALOG_MAX_AGE = _env("int", "DQ_HEALTH_CATALOG_MAX_AGE", default=3600)
DQ_HEALTH_CATALOG_COLUMN_TABLES = _env("int", "DQ_HEALTH_CATALOG_COLUMN_TABLES", default=100)
if DQ_HEALTH_CATALOG_MAX_AGE < 0 or DQ_HEALTH_CATALOG_COLUMN_TABLES < 0:
    raise ImproperlyConfigured("DQ_HEALTH_CATALOG_MAX_AGE and DQ_HEALTH_CATALOG_COLUMN_TABLES must be 0 or more.")

# --- alerts (watching/) ---------------------------------------------------------------------------
# Links in messages point here (the run page is DQ_PUBLIC_URL/runs/<id>).
DQ_PUBLIC_URL = _env("str", "DQ_PUBLIC_URL", default="http://127.0.0.1:8000").rstrip("/")
if not DQ_PUBLIC_URL.startswith(("http://", "https://")):
    raise ImproperlyConfigured("DQ_PUBLIC_URL must start with http:// or https://.")
# A failing check's incident is said again after this many seconds (or when its blocking changes).
DQ_REALERT_AFTER = _env("int", "DQ_REALERT_AFTER", default=24 * 3600)
DQ_NOTIFY_ATTEMPTS = _env("int", "DQ_NOTIFY_ATTEMPTS", default=5)
DQ_NOTIFY_BACKOFF = _env("float", "DQ_NOTIFY_BACKOFF", default=30.0)  # seconds, doubled per attempt
if DQ_REALERT_AFTER < 0 or DQ_NOTIFY_ATTEMPTS < 1 or DQ_NOTIFY_BACKOFF < 0:
    raise ImproperlyConfigured(
        "DQ_REALERT_AFTER and DQ_NOTIFY_BACKOFF must be 0 or more, DQ_NOTIFY_ATTEMPTS 1 or more."
    )
# Alert targets reach public addresses only; these hosts and networks (comma-separated names or
# CIDRs, e.g. `hooks.internal,10.20.0.0/16`) are allowed even when loopback/private/link-local.
DQ_ALERT_ALLOWED_HOSTS = [h.strip() for h in _env("str", "DQ_ALERT_ALLOWED_HOSTS", default="").split(",") if h.strip()]
try:
    from watching.channels.reach import parse_allowed

    parse_allowed(DQ_ALERT_ALLOWED_HOSTS)
except ValueError as exc:
    raise ImproperlyConfigured(f"Environment variable DQ_ALERT_ALLOWED_HOSTS has a bad value: {exc}") from exc
# The SMTP server of `email` alert channels: smtp://user:password@host:587 (+tls), smtps://… (ssl).
try:
    vars().update(env.email_url("EMAIL_URL", default="smtp://127.0.0.1:25"))
except (ValueError, KeyError) as exc:
    raise ImproperlyConfigured(f"Environment variable EMAIL_URL has a bad value: {exc}") from exc
DEFAULT_FROM_EMAIL = _env("str", "DEFAULT_FROM_EMAIL", default="dq-platform@localhost")

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {"plain": {"format": "%(asctime)s %(levelname)s %(name)s: %(message)s"}},
    "handlers": {"console": {"class": "logging.StreamHandler", "formatter": "plain"}},
    "root": {"handlers": ["console"], "level": _env("str", "LOG_LEVEL", default="INFO")},
    "loggers": {"py4j": {"level": "WARNING"}},
}

os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
os.environ.setdefault("SPARK_CONF_DIR", str(BASE_DIR / "conf" / "spark"))
