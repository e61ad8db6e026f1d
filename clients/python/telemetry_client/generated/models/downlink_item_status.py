from enum import StrEnum

class DownlinkItemStatus(StrEnum):
    ACKNOWLEDGED = "acknowledged"
    EXPIRED = "expired"
    FAILED = "failed"
    NACKED = "nacked"
    QUEUED = "queued"
    SENT = "sent"
    SUBMITTED = "submitted"

    def __str__(self) -> str:
        return str(self.value)
