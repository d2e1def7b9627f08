"""`stepscope run`: record a trace of an unmodified PyTorch script (docs/run.md).

The `startup` folder holds a ``sitecustomize`` that ``stepscope run`` puts on the child's
``PYTHONPATH``; it installs the recorder (``_recorder``) once the script imports torch.
"""
