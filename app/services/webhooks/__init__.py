"""Webhooks: URLs the GM registers, the outbox of their deliveries, and the sender."""
