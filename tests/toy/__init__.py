"""A toy ruleset, registered by tests only: proof that a ruleset needs no other change."""
