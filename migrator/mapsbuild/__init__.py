"""The maps build: ``migrator maps build | update | trace | signatures | show``, the vendor readers and the
torch tracer that generate ``operator_maps/`` from the vendors' published files. A scan never imports this package
(it reads the generated maps through ``migrator.maps``); ``tests/test_layers.py`` holds it to that."""
