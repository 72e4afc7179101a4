"""Benchmark of the Spark engine: the fused plan vs one query per rule vs the scan floor (bench/README.md)."""
