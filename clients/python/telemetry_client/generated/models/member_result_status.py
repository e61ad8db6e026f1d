from enum import StrEnum

class MemberResultStatus(StrEnum):
    FAILED = "failed"
    QUEUED = "queued"
    RATE_LIMITED = "rate_limited"

    def __str__(self) -> str:
        return str(self.value)
