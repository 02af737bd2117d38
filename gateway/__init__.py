"""The gateway: the SQS, REST and WebSocket APIs over one core, and health checks."""
