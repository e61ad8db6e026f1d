from enum import StrEnum

class IdentityBoundTo(StrEnum):
    PARTNER = "partner"
    SUB_ACCOUNT = "sub_account"

    def __str__(self) -> str:
        return str(self.value)
