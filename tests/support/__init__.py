"""Support shared by the test modules: request helpers, the ChirpStack event builders and
their worlds, the webhook receiver, the MQTT broker and processes, CLI runs. Test modules
import from here, never from one another (a `test_*.py` holds tests only)."""
