from enum import StrEnum

class ExportFleetTelemetryLayout(StrEnum):
    LONG = "long"
    WIDE = "wide"

    def __str__(self) -> str:
        return str(self.value)
