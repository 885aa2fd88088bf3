"""pairedframe: trec_eval-exact evaluation and paired statistics on polars / DuckDB tables."""

from pairedframe.errors import (
    DuplicateError,
    InputFormatError,
    InsufficientSampleError,
    PairedFrameError,
    PlanError,
    SchemaError,
    SmallSampleWarning,
    UnknownMeasureError,
)

__version__ = "0.1.0"
