"""The first-run experience: demo data with exact defects, the first admin, the production topology."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from datetime import datetime
from io import StringIO
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pa_csv
import pyarrow.parquet as pq
import pytest
import yaml
from django.contrib.auth import get_user_model
from django.core.management import call_command

from datasources.models import Datasource
from demo import data as demo

REPO = Path(__file__).resolve().parent.parent
COMPOSE_FILE = REPO / "docker-compose.yml"
SERVICES = {"postgres", "redis", "web", "worker", "beat", "spark-master", "spark-worker"}
LOGIN_LINE = re.compile(r"^Admin login: (\S+) / (\S+)  \(saved in (.+)\)$", re.MULTILINE)


@pytest.fixture
def var_dir(settings, tmp_path: Path) -> Path:
    var = tmp_path.resolve()
    settings.VAR_DIR = var
    settings.DQ_FILE_ROOTS = [var / "demo", var / "files"]
    return var


def run(command: str, *args: str) -> str:
    out = StringIO()
    call_command(command, *args, stdout=out, stderr=StringIO())
    return out.getvalue()


def count(mask: pa.ChunkedArray | pa.Array) -> int:
    """Rows where the mask is true; a NULL in the mask counts as false."""
    return pc.sum(pc.fill_null(mask, False)).as_py() or 0


def timestamp(text: str) -> pa.Scalar:
    return pa.scalar(datetime.strptime(text, "%Y-%m-%d %H:%M:%S"), pa.timestamp("us"))


def repeated(values: pa.ChunkedArray) -> tuple[int, int]:
    """Distinct values that occur more than once, and the rows that carry them."""
    counts = pc.value_counts(values).field("counts")
    many = pc.filter(counts, pc.greater(counts, 1))
    return len(many), pc.sum(many).as_py() or 0


def null_or_empty(values: pa.ChunkedArray) -> int:
    return count(pc.or_kleene(pc.is_null(values), pc.equal(values, "")))


# --- load_demo -------------------------------------------------------------------------------


@pytest.mark.django_db
def test_it_registers_the_demo_datasources_with_their_paths_and_formats(var_dir):
    run("load_demo")
    parquet = Datasource.objects.get(name="demo")
    csv = Datasource.objects.get(name="demo_csv")
    assert (parquet.type, parquet.format, parquet.path) == ("file", "parquet", str(var_dir / "demo" / "parquet"))
    assert (csv.type, csv.format, csv.path) == ("file", "csv", str(var_dir / "demo" / "csv"))
    assert parquet.validate_config() == {} and csv.validate_config() == {}
    orders = demo.DEMO_DEFECTS["orders"]
    assert (
        f"{orders['customer_email_null']} NULL + {orders['customer_email_empty']} empty = {orders['null_customer_email']}"
        in (var_dir / "demo" / "README.txt").read_text()
    )


@pytest.mark.django_db
def test_it_plants_exactly_the_documented_defects_in_orders(var_dir):
    run("load_demo")
    orders = pq.read_table(var_dir / "demo" / "parquet" / "orders")
    customers = pa_csv.read_csv(var_dir / "demo" / "csv" / "customers.csv")
    email, status, amount = orders["customer_email"], orders["status"], orders["amount"]
    begin, deadline = (timestamp(t) for t in demo.ORDER_WINDOW)
    duplicate_values, duplicate_rows = repeated(orders["order_id"])
    not_matching = pc.invert(pc.match_substring_regex(email, demo.EMAIL_PATTERN))
    not_in_enum = pc.invert(pc.is_in(status, value_set=pa.array(demo.ORDER_STATUSES)))

    measured = {
        "customer_email_null": count(pc.is_null(email)),
        "customer_email_empty": count(pc.equal(email, "")),
        "null_customer_email": null_or_empty(email),
        "malformed_customer_email": count(pc.and_(pc.not_equal(email, ""), not_matching)),
        "regexp_customer_email": count(not_matching),
        "duplicate_order_id_values": duplicate_values,
        "duplicate_order_id_rows": duplicate_rows,
        "status_null": count(pc.is_null(status)),
        "status_bad_value": count(pc.and_(pc.is_valid(status), not_in_enum)),
        "status_not_in_enum": count(not_in_enum),
        "negative_amount": count(pc.less(amount, 0)),
        "amount_above_max": count(pc.greater(amount, demo.AMOUNT_MAX)),
        "amount_out_of_range": count(pc.or_(pc.less(amount, demo.AMOUNT_MIN), pc.greater(amount, demo.AMOUNT_MAX))),
        "created_at_before_window": count(pc.less(orders["created_at"], begin)),
        "created_at_after_window": count(pc.greater(orders["created_at"], deadline)),
        "created_at_in_window": count(
            pc.and_(pc.greater_equal(orders["created_at"], begin), pc.less_equal(orders["created_at"], deadline))
        ),
        "country_length_not_2": count(pc.not_equal(pc.utf8_length(orders["country"]), 2)),
        "orphan_customer_id": count(pc.invert(pc.is_in(orders["customer_id"], value_set=customers["customer_id"]))),
    }

    assert orders.num_rows == demo.DEMO_ROWS["orders"]
    assert measured == demo.DEMO_DEFECTS["orders"]


@pytest.mark.django_db
def test_it_plants_exactly_the_documented_defects_in_customers(var_dir):
    run("load_demo")
    customers = pa_csv.read_csv(var_dir / "demo" / "csv" / "customers.csv")
    duplicate_values, duplicate_rows = repeated(customers["customer_id"])

    assert customers.num_rows == demo.DEMO_ROWS["customers"]
    assert {
        "duplicate_customer_id_values": duplicate_values,
        "duplicate_customer_id_rows": duplicate_rows,
        "missing_email": null_or_empty(customers["email"]),
    } == demo.DEMO_DEFECTS["customers"]


def test_it_builds_the_same_data_every_time():
    assert demo.build_orders().equals(demo.build_orders())
    assert demo.build_customers().equals(demo.build_customers())


@pytest.mark.django_db
def test_it_neither_duplicates_datasources_nor_rewrites_data_on_a_second_run(var_dir):
    run("load_demo")
    files = sorted((var_dir / "demo").rglob("*.*"))
    before = {path: path.stat().st_mtime_ns for path in files}

    second = run("load_demo")

    assert Datasource.objects.filter(name__in=["demo", "demo_csv"]).count() == 2
    assert {path: path.stat().st_mtime_ns for path in files} == before
    assert "already" in second


@pytest.mark.django_db
def test_it_rewrites_an_incomplete_data_set_and_on_force(var_dir):
    run("load_demo")
    orders_dir = var_dir / "demo" / "parquet" / "orders"
    (var_dir / "demo" / "manifest.json").unlink()  # as an interrupted first run leaves it
    shutil.rmtree(orders_dir)

    assert "Wrote demo data" in run("load_demo")
    assert pq.read_table(orders_dir).num_rows == demo.DEMO_ROWS["orders"]
    assert "Wrote demo data" in run("load_demo", "--force")


@pytest.mark.django_db
def test_it_leaves_a_datasource_someone_else_named_demo_alone(var_dir):
    Datasource.objects.create(name="demo", type="postgresql", host="db", database="d", username="u")

    run("load_demo")

    assert Datasource.objects.get(name="demo").type == "postgresql"
    assert Datasource.objects.get(name="demo_csv").format == "csv"


# --- ensure_admin ----------------------------------------------------------------------------


@pytest.mark.django_db
def test_it_creates_exactly_one_superuser_whose_printed_password_works(var_dir):
    output = run("ensure_admin")

    username, password, saved_in = LOGIN_LINE.search(output).groups()
    admin = get_user_model().objects.get(is_superuser=True)
    assert username == admin.username == "admin" and admin.check_password(password)
    assert Path(saved_in) == var_dir / "admin-credentials.txt"
    assert (var_dir / "admin-credentials.txt").read_text().split() == [username, password]
    assert (var_dir / "admin-credentials.txt").stat().st_mode & 0o777 == 0o600


@pytest.mark.django_db
def test_it_prints_the_same_login_on_a_second_run_without_a_new_user(var_dir):
    first = run("ensure_admin")
    second = run("ensure_admin")

    assert second == first
    assert get_user_model().objects.filter(is_superuser=True).count() == 1


@pytest.mark.django_db
def test_it_never_prints_or_resets_a_password_it_does_not_know(var_dir):
    get_user_model().objects.create_superuser("root", password="chosen-by-a-person")

    output = run("ensure_admin")

    assert "Admin user exists: root" in output and "changepassword root" in output
    assert get_user_model().objects.count() == 1
    assert get_user_model().objects.get().check_password("chosen-by-a-person")
    assert not (var_dir / "admin-credentials.txt").exists()


@pytest.mark.django_db
def test_it_stops_trusting_saved_credentials_once_the_password_changed(var_dir):
    run("ensure_admin")
    admin = get_user_model().objects.get()
    admin.set_password("changed-by-a-person")
    admin.save()

    assert "Admin user exists: admin (password unchanged" in run("ensure_admin")


# --- docker-compose.yml ----------------------------------------------------------------------


@pytest.fixture(scope="module")
def compose() -> dict:
    return yaml.safe_load(COMPOSE_FILE.read_text())


def test_it_defines_the_seven_services_of_the_production_topology(compose):
    assert set(compose["services"]) == SERVICES


def test_it_gives_web_worker_and_beat_the_same_production_environment(compose):
    services = compose["services"]
    environment = services["web"]["environment"]
    assert services["worker"]["environment"] == environment == services["beat"]["environment"]
    assert environment["DQ_ENV"] == "production"
    assert environment["CELERY_BROKER_URL"].startswith("redis://redis:")
    assert environment["DQ_SPARK_MASTER"] == "spark://spark-master:7077"
    assert environment["DQ_ENGINE_MODE"] == "spark_submit"  # runs go to the cluster, as in the cluster test
    assert environment["DATABASE_URL"].startswith("postgres://")
    for required in ("SECRET_KEY", "DQ_FERNET_KEYS"):
        assert re.fullmatch(r"\$\{" + required + r":\?[^}]+\}", environment[required]), required


def test_it_runs_beat_on_the_database_scheduler_and_the_worker_on_every_queue(compose):
    from django_celery_beat.schedulers import DatabaseScheduler

    from dq_platform.beat import RUN_IN_BEAT, Scheduler

    beat = " ".join(compose["services"]["beat"]["command"])
    worker = " ".join(compose["services"]["worker"]["command"])
    # Beat runs apart from the worker, on the database scheduler that runs the reaper in beat's
    # own process: the plain DatabaseScheduler would send it to the workers' queue.
    assert "--scheduler dq_platform.beat:Scheduler" in beat and issubclass(Scheduler, DatabaseScheduler)
    assert "executions.tasks.reap_stale_runs" in RUN_IN_BEAT
    queues = re.search(r"-Q (\S+)", worker)
    assert queues and set(queues.group(1).split(",")) == {"spark", "preview", "default"}, worker
    assert not re.search(r"(^|\s)(-B|--beat)(\s|$)", worker), "beat (and the reaper) must not live in the worker"


def _compose_command() -> list[str] | None:
    """`docker compose` (the plugin) or the standalone `docker-compose`, whichever works here."""
    candidates = [["docker", "compose"], ["docker-compose"]]
    for candidate in candidates:
        if shutil.which(candidate[0]) and subprocess.run([*candidate, "version"], capture_output=True).returncode == 0:
            return candidate
    return None


def test_it_passes_docker_compose_config_only_when_the_secrets_are_set():
    command = _compose_command()
    if command is None:
        pytest.skip("Neither the docker compose plugin nor docker-compose is installed.")
    secrets = {"SECRET_KEY": "x" * 50, "DQ_FERNET_KEYS": "k", "POSTGRES_PASSWORD": "p"}
    clean = {k: v for k, v in os.environ.items() if k not in secrets}
    config = [*command, "-f", str(COMPOSE_FILE), "config", "-q"]

    with_secrets = subprocess.run(config, env={**clean, **secrets}, capture_output=True, text=True, cwd=REPO)
    secrets.pop("SECRET_KEY")
    without = subprocess.run(config, env={**clean, **secrets}, capture_output=True, text=True, cwd=REPO)

    assert with_secrets.returncode == 0, with_secrets.stderr
    assert without.returncode != 0 and "SECRET_KEY" in without.stderr


@pytest.mark.django_db
def test_it_creates_the_demo_checks_once_owned_by_the_admin(var_dir, django_user_model):
    from rules.models import Check

    admin = django_user_model.objects.create_superuser("admin", password="admin-pass-123")
    assert "Created 7 demo checks" in run("load_demo")
    assert "Demo checks already present" in run("load_demo")
    checks = Check.objects.filter(name__startswith="demo · ")
    assert checks.count() == 7 and {c.owner_id for c in checks} == {admin.pk}
    ids = checks.get(name="demo · order ids unique").params
    assert ids["src_datasource_id"] == Datasource.objects.get(name="demo").pk and ids["src_field"] == "order_id"


def test_the_demo_checks_run_on_duckdb_when_auto_picks_the_engine(var_dir, django_user_model):
    from executions.starting import start_run
    from rules.models import Check

    admin = django_user_model.objects.create_superuser("admin", password="admin-pass-123")
    run("load_demo")

    started, _ = start_run(list(Check.objects.filter(name__startswith="demo · ")), admin)

    batches = started.batches["definitions"].values()
    assert {b["engine"] for b in batches} == {"duckdb"}
    assert all(b["engine_reason"].startswith("auto: local parquet files") for b in batches)
