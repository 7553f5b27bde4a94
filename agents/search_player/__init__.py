"""The search player, ``search``: worlds of the hidden cards sampled from a seat's view
(``baloot_env.worlds``, the engine's sampler), played out by the rule-based card play and solved exactly at the end
(``endgame``); ``player`` is the agent. The playouts run on the batched core by default
(``batch_search``, with the endgame as a kernel in ``batch_endgame``; ``jit`` guards their disk
cache), or through the engine's ``HandState`` with ``backend="python"``. ``calls`` (with its
kernels in ``batch_calls``) searches the calls, bids and doubling, by playing sampled deals to
the end; ``netsearch`` is the search guided by a trained network."""
