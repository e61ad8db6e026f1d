from enum import StrEnum

class ProfileFieldRoleType1(StrEnum):
    BATTERY_PCT = "battery_pct"

    def __str__(self) -> str:
        return str(self.value)
