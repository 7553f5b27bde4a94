"""table: play Baloot in a browser against the bots, watch them, replay hands, keep a score sheet.

``python -m table`` serves it (``table.server``). Modules, one concept each: ``clocks`` (the
club's clocks and auto-play, R10, with an injectable clock), ``seating`` (seats, a table's
settings, tokens), ``room`` (one live table: the authoritative state over
``baloot_env.driver.Table``), ``views`` (what a seat is sent, from ``agents.PlayerView``),
``hub`` (rooms, connections and the moves nobody waits for), ``store`` (the SQLite database),
``scoresheet`` (a score keeper's sheet scored by R7), ``replay`` (stepping through stored
hands; storing an evaluation's hands), ``server`` (the FastAPI app) and ``testing`` (a server
in a thread and a WebSocket client, for tests and the load benchmark). ``clocks``,
``seating``, ``room``, ``store``, ``scoresheet`` and ``replay`` need only the standard library,
the engine and the agents; the server needs the ``table`` extra (FastAPI, uvicorn).
"""
