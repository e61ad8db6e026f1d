from enum import StrEnum

class QueryTelemetryQueryBodyDownsampleType0(StrEnum):
    LTTB = "lttb"
    MINMAX = "minmax"

    def __str__(self) -> str:
        return str(self.value)
