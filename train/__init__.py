"""Training (``python -m train``; docs/training.md), in three floors above a frame.

- **Positions** (who plays, who labels): ``labels`` (``LabelJob``, ``label``, ``Labels`` and
  their target rules), ``workers`` (the one worker pool), ``teacher_noise`` (how often a teacher
  agrees with itself).
- **Fitting** (the one fit): ``supervised`` (``fit``, the supervised loop), ``fitting`` (the fit
  of labelled positions, data-parallel), ``exchange`` (gradients across processes),
  ``augment`` (suit renamings), ``hardware`` (device and number format).
- **Stages** (what a run does, in order): ``pretrain`` (the warm start), ``expert`` (expert
  iteration's rounds), PPO (``ppo``, ``policy``, ``selfplay``, ``opponents``, ``learners``),
  ``call_iteration`` (the call step); ``distill`` (a student from a teacher, its own command).
- **The frame**: ``config``, ``run`` and ``__main__`` (the command), ``skeleton`` and
  ``trainer`` (the run frame and its SB3 backend; ``rllib/`` the RLlib one), ``evaluation``,
  ``checkpoint``, ``curve``, ``progress``.

A floor imports only the floors below it (``tests/test_imports.py``); docs/ARCHITECTURE.md
draws them. A new training mode is a stage: it labels through positions and fits through fitting.
"""

# The floors, as the layers test reads them (module names under ``train``).
POSITIONS = ("labels", "workers", "teacher_noise")
FITTING = ("supervised", "fitting", "exchange", "augment", "hardware")
STAGES = ("pretrain", "expert", "ppo", "policy", "selfplay", "opponents", "learners", "call_iteration", "distill")
