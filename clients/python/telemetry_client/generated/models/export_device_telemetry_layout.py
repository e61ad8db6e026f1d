from enum import StrEnum

class ExportDeviceTelemetryLayout(StrEnum):
    LONG = "long"
    WIDE = "wide"

    def __str__(self) -> str:
        return str(self.value)
