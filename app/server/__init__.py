"""The HTTP server around the application: granian's configuration (granian.py) and the
checks made before routing (face.py)."""
