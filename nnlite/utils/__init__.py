"""``nnlite.utils``: PyTorch's and torchvision's import paths for helpers: ``nnlite.utils.data``
(the objects of ``nnlite.data``), ``nnlite.utils.tensorboard.SummaryWriter`` (over tensorboardX,
imported on use), and ``make_grid`` / ``save_image`` for image batches."""

from . import data
from .image_grid import make_grid, save_image

__all__ = ["data", "make_grid", "save_image"]
