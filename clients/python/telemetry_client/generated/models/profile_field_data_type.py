from enum import StrEnum

class ProfileFieldDataType(StrEnum):
    BOOLEAN = "boolean"
    DATE = "date"
    LOCATION = "location"
    NUMBER = "number"
    STRING = "string"

    def __str__(self) -> str:
        return str(self.value)
