# Plan-only: `terraform test` in this directory needs no AWS account or credentials.

mock_provider "aws" {}
mock_provider "random" {}

variables {
  name       = "tidemq-test"
  vpc_id     = "vpc-0123456789abcdef0"
  subnet_ids = ["subnet-0123456789abcdef0", "subnet-0123456789abcdef1"]
  allowed_security_groups = {
    nodes    = "sg-0123456789abcdef0"
    gateways = "sg-0123456789abcdef1"
  }
}

run "defaults_are_multi_az_encrypted_and_never_evict" {
  command = plan

  assert {
    condition     = aws_elasticache_replication_group.this.multi_az_enabled && aws_elasticache_replication_group.this.automatic_failover_enabled
    error_message = "The control plane must be Multi-AZ with automatic failover."
  }

  assert {
    condition     = aws_elasticache_replication_group.this.transit_encryption_enabled
    error_message = "TLS in transit must be on."
  }

  assert {
    condition     = tobool(aws_elasticache_replication_group.this.at_rest_encryption_enabled)
    error_message = "Encryption at rest must be on."
  }

  assert {
    condition     = contains([for p in aws_elasticache_parameter_group.this.parameter : "${p.name}=${p.value}"], "maxmemory-policy=noeviction")
    error_message = "Keys must never be evicted."
  }

  assert {
    condition     = aws_elasticache_parameter_group.this.family == "valkey8"
    error_message = "Valkey 8.1 uses the valkey8 family."
  }

  assert {
    condition     = output.member_cluster_ids == ["tidemq-test-001", "tidemq-test-002"]
    error_message = "One primary and one replica, named as ElastiCache names them."
  }

  assert {
    condition     = length(aws_vpc_security_group_ingress_rule.clients) == 2
    error_message = "Each allowed security group gets one ingress rule."
  }
}

run "cluster_mode_has_shards" {
  command = plan

  variables {
    engine                  = "redis"
    engine_version          = "7.1"
    cluster_mode_enabled    = true
    num_node_groups         = 2
    replicas_per_node_group = 2
  }

  assert {
    condition     = aws_elasticache_replication_group.this.num_node_groups == 2 && aws_elasticache_replication_group.this.cluster_mode == "enabled"
    error_message = "Cluster mode runs num_node_groups shards."
  }

  assert {
    condition     = contains([for p in aws_elasticache_parameter_group.this.parameter : "${p.name}=${p.value}"], "cluster-enabled=yes") && aws_elasticache_parameter_group.this.family == "redis7"
    error_message = "Cluster mode needs cluster-enabled in a redis7 parameter group."
  }

  assert {
    condition     = length(output.member_cluster_ids) == 6 && output.member_cluster_ids[5] == "tidemq-test-0002-003"
    error_message = "Two shards of three nodes each."
  }
}

run "shards_are_ignored_without_cluster_mode" {
  command = plan

  variables {
    num_node_groups = 4
  }

  assert {
    condition     = aws_elasticache_replication_group.this.num_node_groups == 1
    error_message = "Without cluster mode there is one shard."
  }
}

run "rejects_eviction_override" {
  command = plan

  variables {
    parameters = [{ name = "maxmemory-policy", value = "allkeys-lru" }]
  }

  expect_failures = [var.parameters]
}

run "rejects_a_single_subnet" {
  command = plan

  variables {
    subnet_ids = ["subnet-0123456789abcdef0"]
  }

  expect_failures = [var.subnet_ids]
}
