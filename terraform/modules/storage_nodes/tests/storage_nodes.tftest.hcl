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
  subnet_ids                      = ["subnet-0123456789abcdef0", "subnet-0123456789abcdef1"]
  image                           = "ghcr.io/example/tidemq:0.1.0"
  allowed_security_groups         = { gateways = "sg-0123456789abcdef0" }
  control_plane_security_group_id = "sg-0123456789abcdef1"
  redis_url_secret_arn            = "arn:aws:secretsmanager:eu-west-1:123456789012:secret:tidemq-control-plane-AbCdEf"
  archive_bucket_arn              = "arn:aws:s3:::tidemq-archive-test"
  archive_prefix                  = "tidemq"
  log_group_name                  = "/tidemq/tidemq-test/nodes"
  metrics_log_group_name          = "/tidemq/tidemq-test/metrics"
}

run "nodes_run_tidemq_node_with_their_settings" {
  command = plan

  assert {
    condition     = strcontains(base64decode(aws_launch_template.this.user_data), "--entrypoint tidemq ghcr.io/example/tidemq:0.1.0 node")
    error_message = "The user data must run `tidemq node` from the image."
  }

  assert {
    condition     = strcontains(base64decode(aws_launch_template.this.user_data), "TIDEMQ_ARCHIVE_URL=s3://tidemq-archive-test/tidemq")
    error_message = "The archive URL must come from the bucket and prefix."
  }

  assert {
    condition     = strcontains(base64decode(aws_launch_template.this.user_data), "TIDEMQ_REDIS_URL ${var.redis_url_secret_arn} url")
    error_message = "TIDEMQ_REDIS_URL must be read from the control plane's secret."
  }

  assert {
    condition     = strcontains(base64decode(aws_launch_template.this.user_data), "TIDEMQ_DISK_BUDGET_BYTES=171798691840")
    error_message = "The disk budget is 80% of the 200 GiB data volume."
  }

  assert {
    condition     = strcontains(base64decode(aws_launch_template.this.user_data), "amazon-cloudwatch-agent-ctl")
    error_message = "With a metrics log group the CloudWatch agent scrapes /metrics."
  }

  assert {
    condition     = strcontains(base64decode(aws_launch_template.this.user_data), "TIDEMQ_NODE_ADDRESS=$private_ip:9400")
    error_message = "The node registers the instance's private address and its node protocol port."
  }

  assert {
    condition = alltrue([
      for line in ["TIDEMQ_HOST=0.0.0.0", "TIDEMQ_PORT=9401", "TIDEMQ_NODE_PORT=9400", "TIDEMQ_LEASE_TTL_MS=10000", "TIDEMQ_LOG_FORMAT=json"] :
      strcontains(base64decode(aws_launch_template.this.user_data), line)
    ])
    error_message = "The node's ports, lease TTL and JSON logs must be in its settings."
  }

  assert {
    condition     = strcontains(base64decode(aws_launch_template.this.user_data), "http://127.0.0.1:9401/healthz")
    error_message = "Liveness is /healthz on the node's HTTP port."
  }
}

run "gateways_reach_the_node_protocol_only" {
  command = plan

  assert {
    condition     = aws_vpc_security_group_ingress_rule.clients["gateways"].from_port == 9400 && aws_vpc_security_group_ingress_rule.clients["gateways"].to_port == 9400
    error_message = "The gateways reach the node protocol port."
  }

  assert {
    condition     = length(aws_vpc_security_group_ingress_rule.metrics_scrapers) == 0
    error_message = "Without scrapers the HTTP port is reached from the instance only."
  }
}

run "scrapers_reach_the_http_port" {
  command = plan

  variables {
    metrics_scraper_security_groups = { prometheus = "sg-0123456789abcdef2" }
  }

  assert {
    condition     = aws_vpc_security_group_ingress_rule.metrics_scrapers["prometheus"].from_port == 9401
    error_message = "A scraper's group reaches the HTTP port."
  }
}

run "rejects_a_metrics_token_the_agent_cannot_send" {
  command = plan

  variables {
    environment = { TIDEMQ_METRICS_TOKEN = "scrape" }
  }

  expect_failures = [aws_launch_template.this]
}

run "volumes_are_encrypted_gp3_and_imds_v2_only" {
  command = plan

  assert {
    condition     = alltrue([for mapping in aws_launch_template.this.block_device_mappings : tostring(mapping.ebs[0].encrypted) == "true" && mapping.ebs[0].volume_type == "gp3"])
    error_message = "Every volume must be encrypted gp3."
  }

  assert {
    condition     = aws_launch_template.this.metadata_options[0].http_tokens == "required"
    error_message = "IMDSv2 must be required."
  }

  assert {
    condition     = aws_launch_template.this.image_id == "resolve:ssm:/aws/service/ami-amazon-linux-latest/al2023-ami-kernel-default-x86_64"
    error_message = "Without ami_id the nodes run the latest Amazon Linux 2023."
  }
}

run "termination_waits_for_the_node" {
  command = plan

  assert {
    condition     = one(aws_autoscaling_group.this.initial_lifecycle_hook).lifecycle_transition == "autoscaling:EC2_INSTANCE_TERMINATING"
    error_message = "A termination lifecycle hook must hold instances while the node stops."
  }

  assert {
    condition     = one(aws_autoscaling_group.this.initial_lifecycle_hook).heartbeat_timeout == 360
    error_message = "The hook waits for the grace period plus a minute."
  }
}

run "iam_reaches_only_the_archive_prefix" {
  command = plan

  assert {
    condition = [
      for s in jsondecode(aws_iam_role_policy.this.policy).Statement : s.Resource if s.Sid == "ReadWriteArchive"
    ][0] == "arn:aws:s3:::tidemq-archive-test/tidemq/*"
    error_message = "Object access must be limited to the archive prefix."
  }

  assert {
    condition     = !contains([for s in jsondecode(aws_iam_role_policy.this.policy).Statement : s.Sid], "EcrLogin")
    error_message = "Without ECR repositories the nodes get no ECR permission."
  }
}

run "no_metrics_without_a_log_group" {
  command = plan

  variables {
    metrics_log_group_name = null
  }

  assert {
    condition     = !strcontains(base64decode(aws_launch_template.this.user_data), "amazon-cloudwatch-agent")
    error_message = "Without a metrics log group there is no CloudWatch agent."
  }
}

run "rejects_overriding_a_derived_setting" {
  command = plan

  variables {
    environment = { TIDEMQ_ARCHIVE_URL = "s3://elsewhere/x" }
  }

  expect_failures = [var.environment]
}

run "rejects_a_short_lease" {
  command = plan

  variables {
    lease_ttl_ms = 100
  }

  expect_failures = [var.lease_ttl_ms]
}

run "rejects_short_archive_retention" {
  command = plan

  variables {
    archive_retention_days = 7
  }

  expect_failures = [var.archive_retention_days]
}

run "rejects_desired_above_max" {
  command = plan

  variables {
    desired_capacity = 8
  }

  expect_failures = [aws_autoscaling_group.this]
}
