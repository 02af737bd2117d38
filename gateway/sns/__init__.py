"""The SNS Query protocol."""
