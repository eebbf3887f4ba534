"""The live feed: what a committed transaction announces, the event streams that follow a
campaign in each process, and the PostgreSQL notifications that carry it across processes."""
