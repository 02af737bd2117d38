# Plan-only: `terraform test` in this directory needs no AWS account or credentials.

mock_provider "aws" {}

variables {
  name = "tidemq-test"
}

run "log_groups_and_the_three_tidemq_alarms" {
  command = plan

  variables {
    dead_letter_queues = ["orders-dlq", "payments-dlq.fifo"]
  }

  assert {
    condition     = output.gateway_log_group_name == "/tidemq/tidemq-test/gateways" && output.node_log_group_name == "/tidemq/tidemq-test/nodes"
    error_message = "Log groups are named /tidemq/<name>/<part>."
  }

  assert {
    condition     = aws_cloudwatch_log_group.nodes.retention_in_days == 365
    error_message = "Logs are kept a year by default."
  }

  assert {
    condition     = toset(keys(aws_cloudwatch_metric_alarm.this)) == toset(["queue-age", "tiering-lag", "dlq-orders-dlq", "dlq-payments-dlq-fifo"])
    error_message = "Queue age, tiering lag and one alarm per dead-letter queue."
  }

  assert {
    condition     = aws_cloudwatch_metric_alarm.this["dlq-orders-dlq"].dimensions == tomap({ deployment = "tidemq-test", queue = "orders-dlq" })
    error_message = "A dead-letter queue's alarm watches that queue of this deployment."
  }

  assert {
    condition     = aws_cloudwatch_metric_alarm.this["queue-age"].namespace == "TideMQ" && aws_cloudwatch_metric_alarm.this["queue-age"].metric_name == "tidemq_queue_oldest_message_age_seconds"
    error_message = "The queue-age alarm reads TideMQ's exported metric."
  }
}

run "infrastructure_alarms_when_given" {
  command = plan

  variables {
    gateway = {
      load_balancer_arn_suffix = "app/tidemq-test-gateway/0123456789abcdef"
      target_group_arn_suffix  = "targetgroup/tidemq-test-gateway/0123456789abcdef"
    }
    control_plane_member_cluster_ids = ["tidemq-test-001", "tidemq-test-002"]
    storage_nodes = {
      autoscaling_group_name = "tidemq-test-nodes"
      expected_count         = 3
    }
  }

  assert {
    condition     = length(aws_cloudwatch_metric_alarm.this) == 7
    error_message = "Two TideMQ alarms, two gateway alarms, two control plane memory alarms and one node count alarm."
  }

  assert {
    condition     = aws_cloudwatch_metric_alarm.this["nodes-in-service"].comparison_operator == "LessThanThreshold" && aws_cloudwatch_metric_alarm.this["nodes-in-service"].threshold == 3
    error_message = "The node count alarm fires below the expected count."
  }
}

run "rejects_a_bad_retention" {
  command = plan

  variables {
    log_retention_days = 42
  }

  expect_failures = [var.log_retention_days]
}
