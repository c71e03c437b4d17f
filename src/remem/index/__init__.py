"""In-memory search indexes (dense, BM25) and their per-user cache."""

from .bm25 import BM25Index
from .cache import IndexCache, UserIndex
from .dense import DenseIndex, top_k

__all__ = ["BM25Index", "DenseIndex", "IndexCache", "UserIndex", "top_k"]
