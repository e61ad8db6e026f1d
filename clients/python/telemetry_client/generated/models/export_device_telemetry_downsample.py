from enum import StrEnum

class ExportDeviceTelemetryDownsample(StrEnum):
    LTTB = "lttb"
    MINMAX = "minmax"

    def __str__(self) -> str:
        return str(self.value)
