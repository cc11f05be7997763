"""migrator: how ready PyTorch CUDA training code is for Ascend, Cambricon and Kunlunxin."""

__version__ = "0.2.0"
#: The name migrator is published and installed under (``pip install migrator-accel``): the package and the
#: ``migrator`` command keep their name, but ``migrator`` on the public index is an unrelated project.
DISTRIBUTION = "migrator-accel"
#: Where this project is described: the SARIF driver's ``informationUri`` (pyproject's [project.urls]).
HOMEPAGE = f"https://pypi.org/project/{DISTRIBUTION}/"
