# The API image for compose.yaml: the same code as `telemetry serve`, on Timescale's image
# for the database. Only Apache-2 TimescaleDB features are used, so both editions work.
FROM python:3.11-slim
WORKDIR /srv
COPY pyproject.toml README.md ./
COPY app ./app
COPY sql ./sql
COPY schema ./schema
# Editable, so that sql/ and schema/ are found beside the package.
RUN pip install --no-cache-dir -e .
ENV PYTHONUNBUFFERED=1
EXPOSE 8000
CMD ["sh", "-c", "telemetry db migrate && telemetry serve --host 0.0.0.0 --port 8000 --workers ${WORKERS:-2}"]
