from enum import StrEnum

class ExportFleetTelemetryFormat(StrEnum):
    CSV = "csv"
    NDJSON = "ndjson"
    PARQUET = "parquet"

    def __str__(self) -> str:
        return str(self.value)
