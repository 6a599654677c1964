"""Routes the library's log messages into Python (ct_set_log_handler, installed at import).

CT_LOG_WARNING messages become warnings.warn(message, UserWarning), attributed to the first frame
outside the ctorch package (the user's line that made the library warn), so warnings filters and
pytest.warns apply. Debug, info and error messages go to logging.getLogger("ctorch") at the matching
level. The library drops messages below its own threshold before they reach Python: raise the
detail with ctorch.set_log_level("info") (the default is "warning").
"""

import logging
import os
import sys
import warnings

from . import _C

logger = logging.getLogger("ctorch")

_PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__)) + os.sep
_TO_LOGGING = {_C.CT_LOG_DEBUG: logging.DEBUG, _C.CT_LOG_INFO: logging.INFO, _C.CT_LOG_WARNING: logging.WARNING,
               _C.CT_LOG_ERROR: logging.ERROR}
_FROM_NAME = {"debug": _C.CT_LOG_DEBUG, "info": _C.CT_LOG_INFO, "warning": _C.CT_LOG_WARNING, "error": _C.CT_LOG_ERROR}


def _stacklevel():
    """The stacklevel, for a warn() called in _route, of the first frame outside this package (and
    outside the import machinery, for messages logged while `import ctorch` runs)."""
    level, frame = 2, sys._getframe(2)  # _route's caller: Python code that called into the library
    while frame is not None and (os.path.abspath(frame.f_code.co_filename).startswith(_PACKAGE_DIR)
                                 or frame.f_code.co_filename.startswith("<frozen importlib")):
        frame, level = frame.f_back, level + 1
    return level


def _route(level, message):
    if level == _C.CT_LOG_WARNING:
        warnings.warn(message, UserWarning, stacklevel=_stacklevel())
    else:
        logger.log(_TO_LOGGING.get(level, logging.ERROR), message)


def set_log_level(level):
    """The lowest level the library reports: "debug", "info", "warning" (default) or "error", or a
    logging level (logging.INFO ...)."""
    if isinstance(level, str):
        try:
            code = _FROM_NAME[level.lower()]
        except KeyError:
            raise ValueError(f"set_log_level: unknown level {level!r}; use one of {sorted(_FROM_NAME)}") from None
    else:
        code = (_C.CT_LOG_DEBUG if level <= logging.DEBUG else _C.CT_LOG_INFO if level <= logging.INFO
                else _C.CT_LOG_WARNING if level <= logging.WARNING else _C.CT_LOG_ERROR)
    _C.ct_set_log_level(code)


def get_log_level():
    """The library's threshold as a logging level (logging.WARNING by default)."""
    return _TO_LOGGING[_C.ct_get_log_level()]


def _install():
    _C.ct_py_install_log_handler(_route)
