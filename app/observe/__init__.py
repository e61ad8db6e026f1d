"""Operations: structured logs, request ids and Prometheus metrics."""
