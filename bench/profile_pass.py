"""How fast ONE JVM loop per partition computes a profile's first step, against Spark's scan floor
of the same orders (bench/prototypes/ProfilePass.java; a measurement for bench/README.md, "Table
profiles", not the engine). Builds the class with javac against the installed pyspark's jars.

Run: `BENCH_ROWS=1000000 python -m bench.profile_pass` (the orders must fit the orders' four types).
"""

from __future__ import annotations

import os
import subprocess
import tempfile
import time
from pathlib import Path

from bench import generate as gen
from bench import profile as bench_profile

SOURCE = Path(__file__).resolve().parent / "prototypes" / "ProfilePass.java"


def build(into: Path) -> Path:
    import pyspark

    jars = Path(pyspark.__file__).parent / "jars"
    classes = into / "classes"
    subprocess.run(
        ["javac", "--release", "17", "-nowarn", "-cp", f"{jars}/*", "-d", str(classes), str(SOURCE)], check=True
    )
    jar = into / "profile-pass.jar"
    subprocess.run(["jar", "--create", "--file", str(jar), "-C", str(classes), "."], check=True)
    return jar


def main() -> None:
    from dq_engine.spark.session import DEFAULT_JARS, build_spark

    rows = int(os.environ.get("BENCH_ROWS", "1000000"))
    dataset = gen.generate(rows, Path(os.environ.get("BENCH_DIR", gen.DEFAULT_DIR)))
    with tempfile.TemporaryDirectory() as scratch:
        jar = build(Path(scratch))
        spark = build_spark(master=os.environ.get("BENCH_MASTER", "local[2]"), jars=[*DEFAULT_JARS, str(jar)])
        frame = spark.read.parquet(str(dataset.orders))
        ways = {
            "floor": lambda: bench_profile.orders_floor(spark, dataset),
            "one pass": lambda: spark.sparkContext._jvm.org.dqplatform.bench.ProfilePass.run(frame._jdf),
        }
        best = {}
        for name, action in ways.items():
            action()  # warm-up
            seconds = []
            for _ in range(int(os.environ.get("BENCH_REPEAT", "3"))):
                started = time.perf_counter()
                action()
                seconds.append(time.perf_counter() - started)
            best[name] = min(seconds)
            print(f"{name}: {best[name]:.2f} s (runs {', '.join(f'{s:.2f}' for s in seconds)})")
        print(f"one pass / floor = {best['one pass'] / best['floor']:.2f} (load {os.getloadavg()[0]:.2f})")
        spark.stop()


if __name__ == "__main__":
    main()
