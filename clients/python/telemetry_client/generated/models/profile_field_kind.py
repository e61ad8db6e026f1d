from enum import StrEnum

class ProfileFieldKind(StrEnum):
    DECODED = "decoded"
    FORMULA = "formula"
    MAPPING = "mapping"
    STATIC = "static"

    def __str__(self) -> str:
        return str(self.value)
