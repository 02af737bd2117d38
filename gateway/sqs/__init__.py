"""The SQS JSON 1.0 wire protocol (`POST /`, `X-Amz-Target: AmazonSQS.<Action>`)."""
