from enum import StrEnum

class QueryTelemetryQueryBodyFillType0(StrEnum):
    LINEAR = "linear"
    NONE = "none"
    NULL = "null"
    PREVIOUS = "previous"
    ZERO = "zero"

    def __str__(self) -> str:
        return str(self.value)
