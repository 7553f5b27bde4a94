"""The RLlib backend: self-play PPO on a Ray cluster (``python -m train --backend rllib``).

Optional: it needs the ``scale`` extra (``pip install -e ".[scale]"``, ``ray[rllib]``). The
modules of this package:

- ``config``: ``RLlibTrainConfig`` (``TrainConfig`` plus the ``rllib:`` section); no Ray needed;
- ``vector_env``: ``SelfPlayVectorEnv``, the SB3 backend's self-play games on the batched core as
  a Gymnasium ``VectorEnv``: what each EnvRunner steps;
- ``env``: ``BalootMultiAgentEnv``, the RLlib ``MultiAgentEnv`` over the game driver ``Table``,
  for multi-agent work of one's own (the backend does not use it);
- ``module``: ``BalootRLModule``, our ``BalootNet`` as an RLModule;
- ``league``: the driver's snapshots and champions kept in every EnvRunner's pool, and the
  EnvRunner callbacks (torch threads, self-play statistics);
- ``algorithm``: Ray (a cluster or a private local one) and the RLlib PPO ``Algorithm``;
- ``checkpoint``: run checkpoints, and a checkpoint's learner module as a policy bundle (no Ray
  needed);
- ``backend``: the training run (``RLlibTrainer``, ``run_rllib_training``).

``python -m train.rllib bundle CHECKPOINT OUT`` turns a checkpoint into a policy bundle.
"""

from __future__ import annotations

import importlib.util

SCALE_HINT = 'the RLlib backend needs Ray: pip install -e ".[scale]"'


def ray_available() -> bool:
    """True when ``ray[rllib]`` can be imported (the ``scale`` extra is installed)."""

    return importlib.util.find_spec("ray") is not None and importlib.util.find_spec("ray.rllib") is not None
