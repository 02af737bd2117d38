# The control plane: an ElastiCache replication group (Valkey or Redis OSS) holding
# TideMQ's metadata, leases, cursors and timers (docs/control-plane.md). Multi-AZ with
# automatic failover, TLS in transit, encrypted at rest, AUTH token generated here and
# kept in Secrets Manager together with the URL the processes take as TIDEMQ_REDIS_URL
# (`rediss://`, or `rediss+cluster://` in cluster mode).

locals {
  # valkey8, redis7, ...: the family follows the engine and its major version.
  family          = "${var.engine}${split(".", var.engine_version)[0]}"
  num_node_groups = var.cluster_mode_enabled ? var.num_node_groups : 1

  # Cluster mode is reached through the configuration endpoint, otherwise through the
  # primary endpoint, which follows a failover.
  endpoint = (var.cluster_mode_enabled
    ? aws_elasticache_replication_group.this.configuration_endpoint_address
    : aws_elasticache_replication_group.this.primary_endpoint_address
  )

  # ElastiCache names member clusters <group>-<node> (<group>-<shard>-<node> in cluster
  # mode). Computing them here keeps them known at plan time, so that alarms can be made
  # per member with for_each.
  member_cluster_ids = (var.cluster_mode_enabled
    ? [for pair in setproduct(range(1, local.num_node_groups + 1), range(1, var.replicas_per_node_group + 2)) : format("%s-%04d-%03d", var.name, pair[0], pair[1])]
    : [for node in range(1, var.replicas_per_node_group + 2) : format("%s-%03d", var.name, node)]
  )
}

resource "aws_security_group" "this" {
  name_prefix = "${var.name}-control-plane-"
  description = "TideMQ control plane (${var.name}): reached by the storage nodes and gateways only"
  vpc_id      = var.vpc_id

  tags = merge(var.tags, { Name = "${var.name}-control-plane" })

  lifecycle {
    create_before_destroy = true
  }
}

resource "aws_vpc_security_group_ingress_rule" "clients" {
  for_each = var.allowed_security_groups

  security_group_id            = aws_security_group.this.id
  description                  = "TideMQ ${each.key} to the control plane"
  referenced_security_group_id = each.value
  ip_protocol                  = "tcp"
  from_port                    = var.port
  to_port                      = var.port

  tags = var.tags
}

resource "aws_elasticache_subnet_group" "this" {
  name        = "${var.name}-control-plane"
  description = "TideMQ control plane (${var.name})"
  subnet_ids  = var.subnet_ids

  tags = var.tags
}

resource "aws_elasticache_parameter_group" "this" {
  name        = "${var.name}-control-plane-${local.family}"
  description = "TideMQ control plane (${var.name})"
  family      = local.family

  # Leases, timers and cursors must never be evicted: a full cache refuses writes
  # (TideMQ answers 503) instead of forgetting an in-flight message.
  parameter {
    name  = "maxmemory-policy"
    value = "noeviction"
  }

  parameter {
    name  = "cluster-enabled"
    value = var.cluster_mode_enabled ? "yes" : "no"
  }

  dynamic "parameter" {
    for_each = var.parameters

    content {
      name  = parameter.value.name
      value = parameter.value.value
    }
  }

  tags = var.tags

  # A new family needs a new group while the old one is still in use.
  lifecycle {
    create_before_destroy = true
  }
}

resource "random_password" "auth_token" {
  # ElastiCache takes 16 to 128 printable characters; letters and digits only, so that
  # the token needs no escaping inside the rediss:// URL.
  length  = 64
  special = false
}

resource "aws_elasticache_replication_group" "this" {
  replication_group_id = var.name
  description          = "TideMQ control plane (${var.name})"

  engine               = var.engine
  engine_version       = var.engine_version
  node_type            = var.node_type
  port                 = var.port
  parameter_group_name = aws_elasticache_parameter_group.this.name
  subnet_group_name    = aws_elasticache_subnet_group.this.name
  security_group_ids   = [aws_security_group.this.id]

  cluster_mode            = var.cluster_mode_enabled ? "enabled" : "disabled"
  num_node_groups         = local.num_node_groups
  replicas_per_node_group = var.replicas_per_node_group

  automatic_failover_enabled = true
  multi_az_enabled           = true

  at_rest_encryption_enabled = true
  kms_key_id                 = var.kms_key_arn
  transit_encryption_enabled = true
  auth_token                 = random_password.auth_token.result
  # A new token is accepted beside the old one until clients have restarted with it
  # (docs/deploy.md, Secrets).
  auth_token_update_strategy = "ROTATE"

  auto_minor_version_upgrade = true
  maintenance_window         = var.maintenance_window
  snapshot_window            = var.snapshot_window
  snapshot_retention_limit   = var.snapshot_retention_days
  final_snapshot_identifier  = "${var.name}-final"
  apply_immediately          = var.apply_immediately

  dynamic "log_delivery_configuration" {
    for_each = var.slow_log_group_name == null ? [] : [var.slow_log_group_name]

    content {
      destination      = log_delivery_configuration.value
      destination_type = "cloudwatch-logs"
      log_format       = "json"
      log_type         = "slow-log"
    }
  }

  tags = var.tags
}

resource "aws_secretsmanager_secret" "connection" {
  #checkov:skip=CKV2_AWS_57:The AUTH token is rotated through ElastiCache (auth_token_update_strategy ROTATE, then SET) while clients restart; docs/deploy.md gives the steps. A Secrets Manager rotation Lambda would change the secret without changing the cache.
  #checkov:skip=CKV_AWS_149:Encrypted with kms_key_arn when set, with the AWS managed key otherwise; the operator chooses (variables.tf).
  name_prefix             = "${var.name}-control-plane-"
  description             = "TideMQ control plane (${var.name}): the AUTH token and the URL for TIDEMQ_REDIS_URL"
  kms_key_id              = var.kms_key_arn
  recovery_window_in_days = var.secret_recovery_window_days

  tags = var.tags
}

resource "aws_secretsmanager_secret_version" "connection" {
  secret_id = aws_secretsmanager_secret.connection.id
  secret_string = jsonencode({
    # rediss+cluster:// tells TideMQ to use a Redis Cluster client (docs/control-plane.md).
    url        = "${var.cluster_mode_enabled ? "rediss+cluster" : "rediss"}://:${random_password.auth_token.result}@${local.endpoint}:${var.port}"
    auth_token = random_password.auth_token.result
    host       = local.endpoint
    port       = var.port
  })
}
