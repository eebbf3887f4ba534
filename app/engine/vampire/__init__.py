"""Vampire: D10 pools, rules of ../shared/rules/vampire.md."""
