"""Dice notation as dice-bot users write it (issue 21): parse (`grammar.py`, into the tree of
`ast.py`), evaluate with the campaign's dice (`evaluate.py`), write it out (`render.py`),
and its exact odds (`odds.py`)."""
