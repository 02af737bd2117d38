# Plan-only: `terraform test` in this directory needs no AWS account or credentials.

mock_provider "aws" {
  mock_data "aws_partition" {
    defaults = {
      partition = "aws"
    }
  }
  mock_data "aws_region" {
    defaults = {
      region = "eu-west-1"
    }
  }
  mock_data "aws_caller_identity" {
    defaults = {
      account_id = "123456789012"
    }
  }
}

variables {
  name                            = "tidemq-test"
  vpc_id                          = "vpc-0123456789abcdef0"
  load_balancer_subnet_ids        = ["subnet-0123456789abcdef0", "subnet-0123456789abcdef1"]
  task_subnet_ids                 = ["subnet-0123456789abcdef2", "subnet-0123456789abcdef3"]
  ingress_cidr_blocks             = ["0.0.0.0/0"]
  certificate_arn                 = "arn:aws:acm:eu-west-1:123456789012:certificate/00000000-0000-0000-0000-000000000000"
  image                           = "ghcr.io/example/tidemq:0.1.0"
  control_plane_security_group_id = "sg-0123456789abcdef0"
  storage_nodes_security_group_id = "sg-0123456789abcdef1"
  redis_url_secret_arn            = "arn:aws:secretsmanager:eu-west-1:123456789012:secret:tidemq-control-plane-AbCdEf"
  master_key_secret               = { secret_arn = "arn:aws:secretsmanager:eu-west-1:123456789012:secret:tidemq-gateway-AbCdEf", json_key = "master_key" }
  log_group_name                  = "/tidemq/tidemq-test/gateways"
  metrics_log_group_name          = "/tidemq/tidemq-test/metrics"
}

run "the_service_runs_tidemq_gateway" {
  command = plan

  assert {
    condition     = jsondecode(aws_ecs_task_definition.this.container_definitions)[0].command == ["gateway"]
    error_message = "The task must run `tidemq gateway`."
  }

  assert {
    condition     = contains([for s in jsondecode(aws_ecs_task_definition.this.container_definitions)[0].secrets : s.valueFrom if s.name == "TIDEMQ_REDIS_URL"], "${var.redis_url_secret_arn}:url::")
    error_message = "TIDEMQ_REDIS_URL must come from the control plane's secret."
  }

  assert {
    condition     = contains([for s in jsondecode(aws_ecs_task_definition.this.container_definitions)[0].secrets : s.valueFrom if s.name == "TIDEMQ_MASTER_KEY"], "${var.master_key_secret.secret_arn}:master_key::")
    error_message = "TIDEMQ_MASTER_KEY must come from the master key's secret."
  }

  assert {
    condition     = contains(jsondecode(aws_iam_role_policy.execution.policy).Statement[0].Resource, var.master_key_secret.secret_arn)
    error_message = "The execution role must read the master key's secret."
  }

  assert {
    condition = alltrue([
      for setting in [
        { name = "TIDEMQ_LEASE_TTL_MS", value = "10000" },
        { name = "TIDEMQ_NODE_REQUEST_TIMEOUT_MS", value = "10000" },
        { name = "TIDEMQ_LOG_FORMAT", value = "json" },
      ] : contains(jsondecode(aws_ecs_task_definition.this.container_definitions)[0].environment, setting)
    ])
    error_message = "The lease TTL, node request timeout and JSON logs must be in the gateway's settings."
  }

  assert {
    condition     = aws_vpc_security_group_egress_rule.tasks_to_nodes.from_port == 9400 && aws_vpc_security_group_egress_rule.tasks_to_nodes.referenced_security_group_id == var.storage_nodes_security_group_id
    error_message = "The tasks reach the nodes' node protocol port."
  }

  assert {
    condition     = length(jsondecode(aws_ecs_task_definition.this.container_definitions)) == 2
    error_message = "With a metrics log group the task has a collector sidecar."
  }

  assert {
    condition     = aws_ecs_service.this.launch_type == "FARGATE"
    error_message = "Gateways run on Fargate."
  }
}

run "the_load_balancer_speaks_https_and_keeps_websockets" {
  command = plan

  assert {
    condition     = aws_lb_listener.https.protocol == "HTTPS" && aws_lb_listener.https.ssl_policy == "ELBSecurityPolicy-TLS13-1-2-2021-06"
    error_message = "The listener must be HTTPS with TLS 1.2 or newer."
  }

  assert {
    condition     = aws_lb.this.idle_timeout == 3600
    error_message = "The idle timeout must be long enough for quiet WebSockets."
  }

  assert {
    condition     = aws_lb_target_group.this.health_check[0].path == "/readyz"
    error_message = "Target health must be /readyz."
  }

  assert {
    condition     = one(aws_lb_listener.http[0].default_action).type == "redirect"
    error_message = "Port 80 must only redirect."
  }

  assert {
    condition     = aws_lb.this.drop_invalid_header_fields
    error_message = "Invalid headers must be dropped."
  }
}

run "tasks_scale_on_cpu_and_requests" {
  command = plan

  assert {
    condition     = aws_appautoscaling_policy.cpu.target_tracking_scaling_policy_configuration[0].predefined_metric_specification[0].predefined_metric_type == "ECSServiceAverageCPUUtilization"
    error_message = "One policy tracks CPU."
  }

  assert {
    condition     = aws_appautoscaling_policy.requests.target_tracking_scaling_policy_configuration[0].predefined_metric_specification[0].predefined_metric_type == "ALBRequestCountPerTarget"
    error_message = "One policy tracks requests per target."
  }
}

run "no_sidecar_and_no_redirect_when_off" {
  command = plan

  variables {
    metrics_log_group_name = null
    http_redirect          = false
  }

  assert {
    condition     = length(jsondecode(aws_ecs_task_definition.this.container_definitions)) == 1 && length(aws_iam_role_policy.task) == 0
    error_message = "Without a metrics log group there is no sidecar and no task policy."
  }

  assert {
    condition     = length(aws_lb_listener.http) == 0 && length(aws_vpc_security_group_ingress_rule.alb_http) == 0
    error_message = "Without the redirect port 80 stays closed."
  }
}

run "rejects_a_short_idle_timeout" {
  command = plan

  variables {
    idle_timeout_s = 30
  }

  expect_failures = [var.idle_timeout_s]
}

run "rejects_the_master_key_among_other_secrets" {
  command = plan

  variables {
    secrets = { TIDEMQ_MASTER_KEY = { secret_arn = "arn:aws:secretsmanager:eu-west-1:123456789012:secret:other-AbCdEf" } }
  }

  expect_failures = [var.secrets]
}

run "rejects_a_node_timeout_past_the_idle_timeout" {
  command = plan

  variables {
    idle_timeout_s          = 60
    node_request_timeout_ms = 60000
  }

  expect_failures = [aws_ecs_service.this]
}

run "rejects_desired_below_min" {
  command = plan

  variables {
    desired_count = 1
  }

  expect_failures = [aws_ecs_service.this]
}
