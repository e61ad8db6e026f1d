from enum import StrEnum

class ExportFleetTelemetryAgg(StrEnum):
    AVG = "avg"
    COUNT = "count"
    DURATION = "duration"
    INCREASE = "increase"
    INTEGRAL = "integral"
    LAST = "last"
    MAX = "max"
    MIN = "min"
    SUM = "sum"
    TWA = "twa"

    def __str__(self) -> str:
        return str(self.value)
