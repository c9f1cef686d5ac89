"""``MixtureSameFamily``: a categorical mixture of components from one batched distribution."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from ..autograd.grad_mode import no_grad
from ..autograd.tensor import Tensor
from .categorical import Categorical
from .distribution import Distribution

if TYPE_CHECKING:
    from .constraints import Constraint

__all__ = ["MixtureSameFamily"]


class MixtureSameFamily(Distribution):
    """A mixture whose ``K`` components are the rightmost batch dimension of
    ``component_distribution``, weighted by ``mixture_distribution``.

    Args:
        mixture_distribution (Categorical): the weights of the ``K`` components.
        component_distribution (Distribution): batch shape ``(*batch, K)``.
        validate_args (bool, optional): check the values given to ``log_prob``.

    Examples:
        >>> D = nl.distributions
        >>> mix = D.Categorical(probs=nl.tensor([0.5, 0.5]))
        >>> gmm = D.MixtureSameFamily(mix, D.Normal(nl.tensor([-1.0, 1.0]), nl.tensor([1.0, 1.0])))
        >>> gmm.mean
        tensor(0.)
    """

    arg_constraints: dict[str, Constraint] = {}
    has_rsample = False

    def __init__(
        self,
        mixture_distribution: Categorical,
        component_distribution: Distribution,
        validate_args: bool | None = None,
    ) -> None:
        self._mixture_distribution = mixture_distribution
        self._component_distribution = component_distribution
        if not isinstance(mixture_distribution, Categorical):
            raise ValueError(
                " The Mixture distribution needs to be an  instance of "
                "nnlite.distributions.Categorical"
            )
        if not isinstance(component_distribution, Distribution):
            raise ValueError(
                "The Component distribution needs to be an instance of "
                "nnlite.distributions.Distribution"
            )
        mdbs = mixture_distribution.batch_shape
        cdbs = component_distribution.batch_shape[:-1]
        for size1, size2 in zip(reversed(mdbs), reversed(cdbs)):
            if size1 != 1 and size2 != 1 and size1 != size2:
                raise ValueError(
                    f"`mixture_distribution.batch_shape` ({mdbs}) is not compatible with "
                    f"`component_distribution.batch_shape`({cdbs})"
                )
        km = mixture_distribution.logits.shape[-1]
        kc = component_distribution.batch_shape[-1]
        if km != kc:
            raise ValueError(
                f"`mixture_distribution component` ({km}) does not equal "
                f"`component_distribution.batch_shape[-1]` ({kc})"
            )
        self._num_component = km
        event_shape = component_distribution.event_shape
        self._event_ndims = len(event_shape)
        super().__init__(cdbs, event_shape, validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> Distribution:
        new = object.__new__(type(self)) if _instance is None else _instance
        new.__dict__.update(self.__dict__)
        batch = tuple(batch_shape)
        new._component_distribution = self._component_distribution.expand(
            batch + (self._num_component,)
        )
        new._mixture_distribution = self._mixture_distribution.expand(batch)
        new._batch_shape = type(self._batch_shape)(batch)
        return new

    @property
    def support(self) -> Any:
        return self._component_distribution.support

    @property
    def mixture_distribution(self) -> Categorical:
        """The weights of the components."""
        return self._mixture_distribution

    @property
    def component_distribution(self) -> Distribution:
        """The components, along the rightmost batch dimension."""
        return self._component_distribution

    def _pad(self, x: Tensor) -> Tensor:
        return x.unsqueeze(-1 - self._event_ndims)

    def _pad_mixture_dimensions(self, x: Tensor) -> Tensor:
        dist_batch_ndims = len(self._batch_shape)
        cat_batch_ndims = len(self._mixture_distribution.batch_shape)
        pad_ndims = 0 if cat_batch_ndims == 1 else dist_batch_ndims - cat_batch_ndims
        shape = tuple(x.shape)
        return x.reshape(*shape[:-1], *([1] * pad_ndims), shape[-1], *([1] * self._event_ndims))

    @property
    def mean(self) -> Tensor:
        probs = self._pad_mixture_dimensions(self._mixture_distribution.probs)
        return (probs * self._component_distribution.mean).sum(-1 - self._event_ndims)

    @property
    def variance(self) -> Tensor:
        # the law of total variance: E[Var(Y | X)] + Var(E[Y | X])
        probs = self._pad_mixture_dimensions(self._mixture_distribution.probs)
        dim = -1 - self._event_ndims
        components = self._component_distribution
        mean_of_variances = (probs * components.variance).sum(dim)
        variance_of_means = (probs * (components.mean - self._pad(self.mean)) ** 2).sum(dim)
        return mean_of_variances + variance_of_means

    def cdf(self, x: Tensor) -> Tensor:
        cdf_x = self._component_distribution.cdf(self._pad(x))
        return (cdf_x * self._mixture_distribution.probs).sum(-1)

    def log_prob(self, x: Tensor) -> Tensor:
        from ..autograd.ops.activation import log_softmax

        if self._validate_args:
            self._validate_sample(x)
        log_prob_x = self._component_distribution.log_prob(self._pad(x))
        log_mix_prob = log_softmax(self._mixture_distribution.logits, -1)
        return (log_prob_x + log_mix_prob).logsumexp(-1)

    def sample(self, sample_shape: Any = ()) -> Tensor:
        from ..autograd.creation import tensor

        with no_grad():
            gather_dim = len(tuple(sample_shape)) + len(self._batch_shape)
            picks = self._mixture_distribution.sample(sample_shape)._data
            components = self._component_distribution.sample(sample_shape)._data
            sample, batch = tuple(sample_shape), tuple(self._batch_shape)
            pad = len(batch) - len(self._mixture_distribution.batch_shape)
            picks = picks.reshape(sample + (1,) * pad + picks.shape[len(sample) :])
            picks = np.broadcast_to(picks, sample + batch)
            index = picks.reshape(picks.shape + (1,) * (self._event_ndims + 1))
            chosen = np.take_along_axis(components, index, gather_dim)
            return tensor(chosen.squeeze(gather_dim))

    def __repr__(self) -> str:
        return (
            f"MixtureSameFamily(\n  {self._mixture_distribution},\n  "
            f"{self._component_distribution})"
        )
