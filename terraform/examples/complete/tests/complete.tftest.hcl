# Plan-only: `terraform test` in this directory plans the whole deployment against mock
# providers, which catches wiring mistakes (a missing input, a wrong type, a cycle
# between modules) without an AWS account.

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

mock_provider "random" {}

variables {
  region              = "eu-west-1"
  vpc_id              = "vpc-0123456789abcdef0"
  public_subnet_ids   = ["subnet-0123456789abcdef0", "subnet-0123456789abcdef1"]
  private_subnet_ids  = ["subnet-0123456789abcdef2", "subnet-0123456789abcdef3"]
  certificate_arn     = "arn:aws:acm:eu-west-1:123456789012:certificate/00000000-0000-0000-0000-000000000000"
  ingress_cidr_blocks = ["0.0.0.0/0"]
  image               = "ghcr.io/example/tidemq:0.1.0"
  archive_bucket_name = "tidemq-archive-example"
  dead_letter_queues  = ["orders-dlq"]
}

run "the_whole_deployment_plans" {
  command = plan

  assert {
    condition     = aws_kms_key.this.enable_key_rotation
    error_message = "The deployment's key must rotate."
  }

  assert {
    condition     = module.control_plane.member_cluster_ids == ["tidemq-001", "tidemq-002"]
    error_message = "The control plane is a primary and a replica."
  }

  assert {
    condition     = toset(keys(module.observability.alarm_names)) == toset(["queue-age", "tiering-lag", "dlq-orders-dlq", "gateway-5xx", "gateway-unhealthy-tasks", "control-plane-memory-tidemq-001", "control-plane-memory-tidemq-002", "nodes-in-service"])
    error_message = "Every alarm of the deployment is planned."
  }

  assert {
    condition     = output.storage_nodes_ports == { node = 9400, http = 9401 }
    error_message = "The nodes serve the node protocol on 9400 and HTTP on 9401."
  }
}

run "rejects_a_region_that_is_not_one" {
  command = plan

  variables {
    region = "eu-west"
  }

  expect_failures = [var.region]
}
