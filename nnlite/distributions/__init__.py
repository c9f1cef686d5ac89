"""``nnlite.distributions`` (PyTorch's ``torch.distributions``): probability distributions with
sampling (reparameterised where the distribution allows), log densities, entropies, and the
KL divergence between them.

Distributions: ``Normal``, ``Uniform``, ``Bernoulli``, ``Categorical``, ``MultivariateNormal``,
``Independent``. Closed-form KL divergences: Normal-Normal, Bernoulli-Bernoulli,
Categorical-Categorical, Uniform-Uniform, Uniform-Normal, MultivariateNormal-MultivariateNormal,
Independent-Independent; ``register_kl`` adds more.
"""

from . import constraints
from .bernoulli import Bernoulli
from .categorical import Categorical
from .distribution import Distribution
from .independent import Independent
from .kl import kl_divergence, register_kl
from .multivariate_normal import MultivariateNormal
from .normal import Normal
from .uniform import Uniform

__all__ = [
    "Bernoulli",
    "Categorical",
    "Distribution",
    "Independent",
    "MultivariateNormal",
    "Normal",
    "Uniform",
    "constraints",
    "kl_divergence",
    "register_kl",
]
