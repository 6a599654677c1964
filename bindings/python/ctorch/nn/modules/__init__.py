"""The layers of ctorch.nn, one file per family as in torch.nn.modules."""

from .activation import GELU, LeakyReLU, LogSoftmax, ReLU, Sigmoid, SiLU, Softmax, Tanh
from .batchnorm import BatchNorm1d, BatchNorm2d
from .container import ModuleDict, ModuleList, Sequential
from .conv import Conv2d
from .dropout import Dropout
from .linear import Flatten, Identity, Linear
from .loss import (BCELoss, BCEWithLogitsLoss, CrossEntropyLoss, HuberLoss, KLDivLoss, L1Loss, MSELoss, NLLLoss,
                   SmoothL1Loss)
from .module import Module
from .normalization import LayerNorm
from .pooling import AvgPool2d, MaxPool2d
from .sparse import Embedding

__all__ = ["Module", "Linear", "Identity", "Flatten", "Conv2d", "MaxPool2d", "AvgPool2d", "BatchNorm1d",
           "BatchNorm2d", "LayerNorm", "Embedding", "Dropout", "ReLU", "GELU", "Sigmoid", "Tanh", "SiLU",
           "LeakyReLU", "Softmax", "LogSoftmax", "Sequential", "ModuleList", "ModuleDict", "L1Loss", "MSELoss",
           "SmoothL1Loss", "HuberLoss", "NLLLoss", "CrossEntropyLoss", "BCELoss", "BCEWithLogitsLoss", "KLDivLoss"]
