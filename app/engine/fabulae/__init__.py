"""Fabulae Tenebris (Victorian Age): rules of ../shared/rules/fabulae-tenebris.md."""
