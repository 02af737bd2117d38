"""The WebSocket API's frames, generated from sdk/asyncapi.json's schemas:
`Subscribe`, `Deliver`, `Settled`, ... (models/). tidemq_client.websocket uses them."""
