"""Helpers for the executable CS336 lecture 2 book: resource accounting in PyTorch.

The top level holds what a reader of the chapters imports, one module a concern:

- :mod:`~cs336_lec2.floats`, :mod:`~cs336_lec2.tensors`: number formats, storage and strides
- :mod:`~cs336_lec2.flops`, :mod:`~cs336_lec2.timing`: counting FLOPs, timing them, MFU
- :mod:`~cs336_lec2.napkin`, :mod:`~cs336_lec2.memory`: back-of-the-envelope and measured memory
- :mod:`~cs336_lec2.models`, :mod:`~cs336_lec2.optim`, :mod:`~cs336_lec2.data`,
  :mod:`~cs336_lec2.training`: the lecture's models, optimizers, data loading and training loop
- :mod:`~cs336_lec2.lm`: the Transformer of chapters 13-14, its architecture in one ``TransformerConfig``
  (its small blocks, norms, RoPE tables and dropout, in :mod:`~cs336_lec2.layers`)
- :mod:`~cs336_lec2.transformer`, :mod:`~cs336_lec2.activations`: accounting for it (parameters and
  FLOPs per token; activation memory by recomputation policy), every count read from the config
- :mod:`~cs336_lec2.hardware` (a subpackage): dense datasheet peaks of accelerators, CPU estimates
- :mod:`~cs336_lec2.distributed` (a subpackage): ZeRO / FSDP accounting, and the launcher and worker
  that run a real process group for chapter 14
- :mod:`~cs336_lec2.device`, :mod:`~cs336_lec2.presets`, :mod:`~cs336_lec2.checks`: which device and
  problem sizes a chapter uses; the argument checks every module shares
- :mod:`~cs336_lec2.results`, :mod:`~cs336_lec2.source`: what a chapter calls to publish a measurement
  and to show the package's own code

:mod:`~cs336_lec2.publish` builds and re-executes the book (the ``cs336-lec2`` command). It imports
from the modules above, never the other way round (``tests/test_project.py`` checks the direction).
``presets``, ``results`` and ``source`` stay up here although the publisher uses them too, because
every chapter imports them; the launcher sits in ``distributed`` because chapter 14 calls it.
"""

__version__ = "0.1.0"
