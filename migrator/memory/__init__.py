"""``migrator memory``: does the training job fit the target card, and in what configuration.

``cards`` reads the card data (``operator_maps/cards.json``, with ``[tool.migrator.cards]`` overrides);
``states`` is the model-state arithmetic (parameters, gradients, optimizer states) under DDP, ZeRO-1/2/3
and FSDP; ``measure`` builds the user's model without memory (meta device, fake tensors) and measures
activations with PyTorch's own memory tracker; ``fit`` joins them into per-card verdicts.
Like ``migrator trace``, it runs user code: the model factory.
"""
