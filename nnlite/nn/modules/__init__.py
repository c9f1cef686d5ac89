"""Layers and models' building blocks."""
from . import (activation, batchnorm, container, conv, dropout, flatten, linear, loss, module, normalization,
               padding, pixelshuffle, pooling, rnn, sparse, transformer, upsampling)
from .module import Module
from .container import Sequential, ModuleList, ModuleDict
from .linear import Linear, Identity
from .conv import Conv2d, Conv1d, ConvTranspose2d
from .pooling import MaxPool2d, AvgPool2d, AdaptiveAvgPool2d
from .batchnorm import BatchNorm1d, BatchNorm2d
from .normalization import LayerNorm, GroupNorm, InstanceNorm1d, InstanceNorm2d
from .dropout import Dropout, Dropout1d, Dropout2d
from .activation import (ReLU, LeakyReLU, Sigmoid, Tanh, Softmax, LogSoftmax, GELU, SiLU, Mish, Hardswish,
                         Hardsigmoid, ELU, Softplus, Hardtanh, ReLU6, PReLU)
from .flatten import Flatten, Unflatten
from .pixelshuffle import PixelShuffle, PixelUnshuffle
from .sparse import Embedding
from .transformer import (MultiheadAttention, TransformerEncoderLayer, TransformerEncoder,
                          TransformerDecoderLayer, TransformerDecoder, Transformer)
from .rnn import RNNBase, RNN, LSTM, GRU, RNNCellBase, RNNCell, LSTMCell, GRUCell
from .padding import (ZeroPad2d, ConstantPad2d, ReflectionPad1d, ReflectionPad2d, ReplicationPad1d,
                      ReplicationPad2d, CircularPad2d)
from .upsampling import Upsample, UpsamplingNearest2d, UpsamplingBilinear2d, AdaptiveMaxPool2d
from .loss import (MSELoss, L1Loss, NLLLoss, CrossEntropyLoss, BCEWithLogitsLoss, BCELoss, SmoothL1Loss, HuberLoss,
                   KLDivLoss, CosineEmbeddingLoss, MarginRankingLoss, TripletMarginLoss)

__all__ = ["Module", "Sequential", "ModuleList", "ModuleDict"] + [
    name for file in (linear, conv, pooling, batchnorm, normalization, dropout, activation, flatten, pixelshuffle,
                      sparse, padding, upsampling, rnn, transformer, loss) for name in file.__all__]
