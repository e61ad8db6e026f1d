from enum import StrEnum

class AddMemberAddMemberRole(StrEnum):
    SUBACCOUNT_ADMIN = "subaccount_admin"
    SUBACCOUNT_OPERATOR = "subaccount_operator"
    SUBACCOUNT_VIEWER = "subaccount_viewer"

    def __str__(self) -> str:
        return str(self.value)
