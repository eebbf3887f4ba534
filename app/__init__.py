"""Nocturne: audited dice and rules for tabletop role-playing campaigns."""
