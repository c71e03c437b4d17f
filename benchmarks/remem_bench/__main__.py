"""``python -m remem_bench ...``: the same as the ``remem-bench`` script."""

from .cli import run

run()
