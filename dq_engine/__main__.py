"""Command line: `python -m dq_engine --spec FILE --out FILE [--master M] [--jars a,b]`.

Runs the spec through `dq_engine.run`: Spark starts only when a batch needs it, and the CLI stops
the session it started. Also runnable as a file by spark-submit (`spark-submit ... dq_engine/__main__.py --spec ...`, with
the project root on PYTHONPATH), which is how executions/launcher.py starts a run on a cluster.
Under spark-submit the master and jars come from spark-submit unless given here.

Secrets come from the environment: a JDBC source's `password_secret` names the variable that holds
its password, so neither the spec file nor the command line carries one. Exit status: 0 when the
result document was written (even if checks report `error`: the document says so), 2 when the
spec is malformed, 1 when the engine itself failed.
"""

from __future__ import annotations

import os
import sys

if __package__ in (None, ""):  # run as a file: import the package, not sibling modules by bare name
    _here = os.path.dirname(os.path.abspath(__file__))
    if sys.path and os.path.abspath(sys.path[0]) == _here:
        sys.path[0] = os.path.dirname(_here)
    else:
        sys.path.insert(0, os.path.dirname(_here))

import argparse  # noqa: E402
import json  # noqa: E402
from pathlib import Path  # noqa: E402

from dq_engine.plan import validate  # noqa: E402
from dq_engine.spec import JobSpec, SpecError  # noqa: E402


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m dq_engine", description="Run a data-quality job spec on Spark.")
    parser.add_argument("--spec", required=True, help="the job spec (JSON file)")
    parser.add_argument("--out", required=True, help="where to write the result document (JSON)")
    parser.add_argument("--master", help="Spark master (default: spark-submit's, else local[2])")
    parser.add_argument("--jars", help="comma-separated jars for spark.jars (default: Debian's JDBC drivers)")
    parser.add_argument("--driver-memory", help="e.g. 2g")
    return parser.parse_args(argv)


def load_spec(path: str) -> JobSpec:
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except OSError as exc:
        raise SpecError(f"Cannot read the spec file: {exc.strerror or exc}.")
    except json.JSONDecodeError as exc:
        raise SpecError(f"The spec file is not JSON: {exc}.")
    spec = JobSpec.from_dict(data)
    validate(spec)
    return spec


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    try:
        spec = load_spec(args.spec)
    except SpecError as exc:
        print(f"dq_engine: malformed spec: {exc}", file=sys.stderr)  # noqa: T201
        return 2

    from dq_engine import run

    sessions: list = []  # the session this process started, if a batch needed Spark

    def start_spark():
        from dq_engine.spark.session import DEFAULT_JARS, build_spark

        under_submit = "PYSPARK_GATEWAY_PORT" in os.environ  # spark-submit started the JVM and set the master
        master = args.master or (None if under_submit else "local[2]")
        # Under spark-submit its --jars (the launcher's JDBC drivers and the engine's jar) stand:
        # build_spark(jars=None) leaves spark.jars alone, so the executors get them too.
        jars = [j for j in args.jars.split(",") if j] if args.jars else (None if under_submit else DEFAULT_JARS)
        sessions.append(
            build_spark(
                master=master, jars=jars, app_name=f"dq-engine-run-{spec.run_id}", driver_memory=args.driver_memory
            )
        )
        return sessions[-1]

    try:
        document = run(spec, os.environ, spark=start_spark)
    finally:
        for session in sessions:
            session.stop()
    out = Path(args.out)
    partial = out.with_name(out.name + ".partial")
    partial.write_text(json.dumps(document, indent=2, ensure_ascii=False), encoding="utf-8")
    partial.replace(out)  # readers never see half a document
    return 0


if __name__ == "__main__":
    sys.exit(main())
