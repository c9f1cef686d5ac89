"""Layers and models' building blocks."""

from . import (
    activation,
    adaptive,
    batchnorm,
    channelshuffle,
    container,
    conv,
    conv_volume,
    cross_map_lrn,
    ctc_loss,
    distance,
    dropout,
    flatten,
    fold,
    fractional_pooling,
    lazy,
    lazy_variants,
    legacy_container,
    linear,
    linear_cross_entropy,
    loss,
    module,
    normalization,
    padding,
    parameter_containers,
    pixelshuffle,
    pooling,
    pooling_nd,
    rnn,
    sparse,
    transformer,
    upsampling,
    volume_norm,
)
from .activation import (
    CELU,
    ELU,
    GELU,
    GLU,
    SELU,
    Hardshrink,
    Hardsigmoid,
    Hardswish,
    Hardtanh,
    LeakyReLU,
    LogSigmoid,
    LogSoftmax,
    Mish,
    PReLU,
    ReLU,
    ReLU6,
    RReLU,
    Sigmoid,
    SiLU,
    Softmax,
    Softmax2d,
    Softmin,
    Softplus,
    Softshrink,
    Softsign,
    Tanh,
    Tanhshrink,
    Threshold,
)
from .adaptive import AdaptiveLogSoftmaxWithLoss
from .batchnorm import BatchNorm1d, BatchNorm2d
from .channelshuffle import ChannelShuffle
from .container import ModuleDict, ModuleList, Sequential
from .conv import Conv1d, Conv2d, ConvTranspose2d
from .conv_volume import Conv3d, ConvTranspose1d, ConvTranspose3d
from .cross_map_lrn import CrossMapLRN2d
from .ctc_loss import CTCLoss
from .distance import CosineSimilarity, PairwiseDistance
from .dropout import AlphaDropout, Dropout, Dropout1d, Dropout2d, Dropout3d, FeatureAlphaDropout
from .flatten import Flatten, Unflatten
from .fold import Fold, Unfold
from .fractional_pooling import FractionalMaxPool2d, FractionalMaxPool3d
from .lazy import (
    LazyBatchNorm1d,
    LazyBatchNorm2d,
    LazyBatchNorm3d,
    LazyConv1d,
    LazyConv2d,
    LazyConv3d,
    LazyLinear,
    UninitializedParameter,
)
from .lazy_variants import (
    LazyConvTranspose1d,
    LazyConvTranspose2d,
    LazyConvTranspose3d,
    LazyInstanceNorm1d,
    LazyInstanceNorm2d,
    LazyInstanceNorm3d,
    UninitializedBuffer,
)
from .legacy_container import Container
from .linear import Bilinear, Identity, Linear
from .linear_cross_entropy import LinearCrossEntropyLoss, LinearCrossEntropyOptions
from .loss import (
    BCELoss,
    BCEWithLogitsLoss,
    CosineEmbeddingLoss,
    CrossEntropyLoss,
    GaussianNLLLoss,
    HingeEmbeddingLoss,
    HuberLoss,
    KLDivLoss,
    L1Loss,
    MarginRankingLoss,
    MSELoss,
    MultiLabelMarginLoss,
    MultiLabelSoftMarginLoss,
    MultiMarginLoss,
    NLLLoss,
    NLLLoss2d,
    PoissonNLLLoss,
    SmoothL1Loss,
    SoftMarginLoss,
    TripletMarginLoss,
    TripletMarginWithDistanceLoss,
)
from .module import Module
from .normalization import (
    GroupNorm,
    InstanceNorm1d,
    InstanceNorm2d,
    LayerNorm,
    LocalResponseNorm,
    RMSNorm,
)
from .padding import (
    CircularPad1d,
    CircularPad2d,
    CircularPad3d,
    ConstantPad1d,
    ConstantPad2d,
    ConstantPad3d,
    ReflectionPad1d,
    ReflectionPad2d,
    ReflectionPad3d,
    ReplicationPad1d,
    ReplicationPad2d,
    ReplicationPad3d,
    ZeroPad1d,
    ZeroPad2d,
    ZeroPad3d,
)
from .parameter_containers import ParameterDict, ParameterList
from .pixelshuffle import PixelShuffle, PixelUnshuffle
from .pooling import AdaptiveAvgPool2d, AvgPool2d, MaxPool2d
from .pooling_nd import (
    AdaptiveAvgPool1d,
    AdaptiveAvgPool3d,
    AdaptiveMaxPool1d,
    AdaptiveMaxPool3d,
    AvgPool1d,
    AvgPool3d,
    LPPool1d,
    LPPool2d,
    LPPool3d,
    MaxPool1d,
    MaxPool3d,
    MaxUnpool1d,
    MaxUnpool2d,
    MaxUnpool3d,
)
from .rnn import GRU, LSTM, RNN, GRUCell, LSTMCell, RNNBase, RNNCell, RNNCellBase
from .sparse import Embedding, EmbeddingBag
from .transformer import (
    MultiheadAttention,
    Transformer,
    TransformerDecoder,
    TransformerDecoderLayer,
    TransformerEncoder,
    TransformerEncoderLayer,
)
from .upsampling import AdaptiveMaxPool2d, Upsample, UpsamplingBilinear2d, UpsamplingNearest2d
from .volume_norm import BatchNorm3d, InstanceNorm3d

__all__ = ["Module", "Sequential", "ModuleList", "ModuleDict"] + [
    name
    for file in (
        linear,
        conv,
        pooling,
        batchnorm,
        normalization,
        dropout,
        activation,
        flatten,
        pixelshuffle,
        sparse,
        padding,
        upsampling,
        rnn,
        transformer,
        loss,
        pooling_nd,
        conv_volume,
        fold,
        channelshuffle,
        distance,
        volume_norm,
        parameter_containers,
        lazy,
        lazy_variants,
        legacy_container,
        fractional_pooling,
        ctc_loss,
        linear_cross_entropy,
        adaptive,
        cross_map_lrn,
    )
    for name in file.__all__
]
