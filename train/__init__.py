"""Training: PPO self-play with a warm start (``python -m train``; see README "Training")."""
