from enum import StrEnum

class ExportDeviceTelemetryAgg(StrEnum):
    AVG = "avg"
    COUNT = "count"
    LAST = "last"
    MAX = "max"
    MIN = "min"
    SUM = "sum"

    def __str__(self) -> str:
        return str(self.value)
