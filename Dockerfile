# One image for web, worker, beat and the Spark master and worker: the pip pyspark brings
# spark-class, Debian brings Java and the JDBC drivers that DQ_SPARK_JARS points at.
# bookworm, not the newer default base: Debian 13 no longer ships OpenJDK 17.

# The browser app, built once; only its static output goes into the runtime image.
FROM node:20-bookworm-slim AS frontend
WORKDIR /frontend
COPY frontend/package.json frontend/package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY frontend/ ./
RUN npx vite build

FROM python:3.11-slim-bookworm

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    DQ_VAR_DIR=/var/lib/dq \
    SPARK_CONF_DIR=/app/conf/spark \
    PYSPARK_PYTHON=/usr/local/bin/python

# The JDK: javac builds the engine's JVM functions, java runs Spark. Its postinst links man pages,
# and slim images delete /usr/share/man.
RUN mkdir -p /usr/share/man/man1 \
 && apt-get update \
 && apt-get install -y --no-install-recommends openjdk-17-jdk-headless libpostgresql-jdbc-java libmariadb-java gettext \
 && rm -rf /var/lib/apt/lists/*

WORKDIR /app
# Requirements first, so a code change does not reinstall every package.
COPY requirements.txt .
RUN pip install -r requirements.txt

COPY . .
# The engine's JVM functions (dq_engine/jvm/), compiled against the installed pyspark.
RUN PY=python scripts/build-jvm.sh
RUN scripts/build-messages.sh
COPY --from=frontend /frontend/dist /app/frontend/dist
# /var/lib/dq/error-data exists in the image, owned by dq, so a fresh named volume mounted there
# starts with that owner.
RUN useradd --system --uid 10001 --home-dir /var/lib/dq dq \
 && mkdir -p /var/lib/dq/error-data /data \
 && chown -R dq:dq /var/lib/dq
USER dq

EXPOSE 8000
# gunicorn (conf/gunicorn.conf.py) with WhiteNoise serving the static files collected at start
# (not at build: settings need the deployment's secrets). docker-compose migrates first.
CMD ["sh", "-c", "python manage.py collectstatic --noinput -v0 && exec gunicorn -c conf/gunicorn.conf.py"]
