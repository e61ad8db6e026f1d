from enum import StrEnum

class ProfileFieldMeasurementType1(StrEnum):
    COUNTER = "counter"
    GAUGE = "gauge"
    STATE = "state"

    def __str__(self) -> str:
        return str(self.value)
