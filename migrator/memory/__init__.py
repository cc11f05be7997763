"""``migrator memory``: does the training job fit the target card, and in what plan.

``cards`` reads the card data (``operator_maps/cards.json``, with ``[tool.migrator.cards]`` overrides);
``states`` is the model-state arithmetic (parameters, gradients, optimizer states) under DDP, ZeRO-1/2/3,
FSDP and offload; ``build`` builds the user's model without its weights (meta, empty weights, CPU);
``held`` follows what autograd holds over a step; ``measure`` runs one step on fake tensors, with and
without checkpointing; ``fit`` joins them into per-card plans, cheapest first.
Like ``migrator trace``, it runs user code: the model factory.
"""
