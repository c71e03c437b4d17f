"""The version, apart from the public surface, so every layer may read it."""

__version__ = "0.1.0"
