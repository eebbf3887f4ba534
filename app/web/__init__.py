"""The web page for game masters and players who do not program: static files the service
serves itself (no build step), calling the same API as any client."""
