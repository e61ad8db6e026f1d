from enum import StrEnum

class ExportFleetTelemetryAgg(StrEnum):
    AVG = "avg"
    COUNT = "count"
    LAST = "last"
    MAX = "max"
    MIN = "min"
    SUM = "sum"

    def __str__(self) -> str:
        return str(self.value)
