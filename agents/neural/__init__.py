"""The neural side: the policy network (``network``), a network as an agent (``policy``),
policy bundles (``bundle``: saved, verified, loaded), their ONNX export (``export``) and the
real positions that check and teach networks (``positions``).

Importing this package imports neither torch nor numpy; its modules do.
"""
