"""The rules engine: pure and deterministic. It takes a dice source and returns results."""
