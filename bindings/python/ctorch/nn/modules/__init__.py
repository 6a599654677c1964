"""The layers of ctorch.nn, one file per family as in torch.nn.modules."""

from .activation import (CELU, ELU, GELU, GLU, SELU, Hardshrink, Hardsigmoid, Hardswish, Hardtanh, LeakyReLU,
                         LogSigmoid, LogSoftmax, Mish, PReLU, ReLU, ReLU6, Sigmoid, SiLU, Softmax, Softmin, Softplus,
                         Softmax2d, Softshrink, Softsign, Tanh, Tanhshrink, Threshold, RReLU)
from .adaptive import AdaptiveLogSoftmaxWithLoss
from .batchnorm import (BatchNorm1d, BatchNorm2d, BatchNorm3d, InstanceNorm1d, InstanceNorm2d, InstanceNorm3d,
                        SyncBatchNorm)
from .container import Container, ModuleDict, ModuleList, ParameterDict, ParameterList, Sequential
from .conv import Conv1d, Conv2d, Conv3d, ConvTranspose1d, ConvTranspose2d, ConvTranspose3d
from .distance import CosineSimilarity, PairwiseDistance
from .dropout import AlphaDropout, Dropout, Dropout1d, Dropout2d, Dropout3d, FeatureAlphaDropout
from .linear import Bilinear, Flatten, Identity, Linear, Unflatten
from .lazy import (LazyBatchNorm1d, LazyBatchNorm2d, LazyBatchNorm3d, LazyConv1d, LazyConv2d, LazyConv3d,
                   LazyConvTranspose1d, LazyConvTranspose2d, LazyConvTranspose3d, LazyInstanceNorm1d, LazyInstanceNorm2d, LazyInstanceNorm3d, LazyLinear)
from .loss import (BCELoss, BCEWithLogitsLoss, CosineEmbeddingLoss, CrossEntropyLoss, GaussianNLLLoss,
                   HingeEmbeddingLoss, HuberLoss, KLDivLoss, L1Loss, MarginRankingLoss, MSELoss,
                   MultiLabelSoftMarginLoss, NLLLoss, PoissonNLLLoss, SmoothL1Loss, SoftMarginLoss, TripletMarginLoss,
                   TripletMarginWithDistanceLoss, NLLLoss2d, MultiMarginLoss, MultiLabelMarginLoss, CTCLoss)
from .module import Module
from .normalization import CrossMapLRN2d, GroupNorm, LayerNorm, LocalResponseNorm, RMSNorm
from . import padding as _padding
from .padding import *  # noqa: F401,F403
from .pixelshuffle import ChannelShuffle, PixelShuffle, PixelUnshuffle
from .pooling import (AdaptiveAvgPool1d, AdaptiveAvgPool2d, AdaptiveAvgPool3d, AdaptiveMaxPool1d, AdaptiveMaxPool2d,
                      AdaptiveMaxPool3d, AvgPool1d, AvgPool2d, AvgPool3d, Fold, FractionalMaxPool2d,
                      FractionalMaxPool3d, LPPool1d, LPPool2d, MaxPool1d, MaxPool2d,
                      MaxPool3d, MaxUnpool1d, MaxUnpool2d, MaxUnpool3d, Unfold, Upsample, UpsamplingBilinear2d,
                      UpsamplingNearest2d)
from .rnn import GRU, LSTM, RNN, GRUCell, LSTMCell, RNNBase, RNNCell, RNNCellBase
from .sparse import Embedding, EmbeddingBag
from .transformer import (MultiheadAttention, Transformer, TransformerDecoder, TransformerDecoderLayer,
                          TransformerEncoder, TransformerEncoderLayer)

__all__ = ["Module", "Linear", "Identity", "Flatten", "Conv2d", "MaxPool2d", "AvgPool2d", "BatchNorm1d",
           "BatchNorm2d", "LayerNorm", "Embedding", "Dropout", "ReLU", "GELU", "Sigmoid", "Tanh", "SiLU",
           "LeakyReLU", "Softmax", "LogSoftmax", "Sequential", "ModuleList", "ModuleDict", "L1Loss", "MSELoss",
           "SmoothL1Loss", "HuberLoss", "NLLLoss", "CrossEntropyLoss", "BCELoss", "BCEWithLogitsLoss", "KLDivLoss",
           "ReLU6", "ELU", "SELU", "CELU", "Mish", "Hardswish", "Hardsigmoid", "Hardtanh", "Softplus", "Softsign",
           "Tanhshrink", "Hardshrink", "Softshrink", "LogSigmoid", "Threshold", "GLU", "PReLU", "Softmin",
           "CosineSimilarity", "PairwiseDistance", "Dropout1d", "Dropout2d", "Dropout3d", "Unflatten",
           "MarginRankingLoss", "HingeEmbeddingLoss", "SoftMarginLoss", "CosineEmbeddingLoss", "TripletMarginLoss",
           "PoissonNLLLoss", "GaussianNLLLoss", "MultiLabelSoftMarginLoss", "GroupNorm", "RMSNorm", "PixelShuffle",
           "PixelUnshuffle", "ParameterList", "ParameterDict", "Conv1d", "ConvTranspose2d",
           "AdaptiveAvgPool2d", "Upsample", "UpsamplingNearest2d", "UpsamplingBilinear2d", "MultiheadAttention",
           "TransformerEncoderLayer", "TransformerEncoder", "TransformerDecoderLayer",
           "TransformerDecoder", "Transformer", "Softmax2d", "Bilinear",
           "TripletMarginWithDistanceLoss", "RNNBase", "RNN", "LSTM", "GRU", "RNNCellBase", "RNNCell", "LSTMCell",
           "GRUCell", "MaxPool1d", "AvgPool1d", "AdaptiveAvgPool1d", "AdaptiveMaxPool1d", "AdaptiveMaxPool2d", "InstanceNorm1d",
           "InstanceNorm2d", "InstanceNorm3d", "BatchNorm3d", "LPPool1d", "LPPool2d", "AlphaDropout",
           "FeatureAlphaDropout", "RReLU", "NLLLoss2d", "MultiMarginLoss", "MultiLabelMarginLoss", "LocalResponseNorm",
           "ChannelShuffle", "LazyLinear", "LazyConv1d", "LazyConv2d", "LazyConvTranspose2d", "LazyBatchNorm1d",
           "LazyBatchNorm2d", "LazyBatchNorm3d", "LazyInstanceNorm1d", "LazyInstanceNorm2d",
           "LazyInstanceNorm3d",
           "Conv3d", "ConvTranspose1d", "ConvTranspose3d", "LazyConv3d", "LazyConvTranspose1d", "LazyConvTranspose3d",
           "MaxPool3d", "AvgPool3d", "AdaptiveAvgPool3d", "AdaptiveMaxPool3d", "MaxUnpool1d", "MaxUnpool2d", "MaxUnpool3d",
           "Fold", "Unfold", "SyncBatchNorm", "Container", "CrossMapLRN2d", "EmbeddingBag", "CTCLoss",
           "FractionalMaxPool2d", "FractionalMaxPool3d", "AdaptiveLogSoftmaxWithLoss"] + _padding.__all__
