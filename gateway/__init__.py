"""The gateway: SQS JSON 1.0 API, native REST API, WebSocket API, health and metrics."""
