"""Benchmarks: LoCoMo retrieval, synthetic scale, their metrics and reports."""
