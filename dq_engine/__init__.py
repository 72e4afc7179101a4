"""The Spark engine: one JSON job spec in, one result document out.

Pure Python + PySpark. It imports nothing from Django or Celery, so it runs inside a Celery worker
or as its own `spark-submit` application alike (tests/test_layout.py holds it to that).
"""
