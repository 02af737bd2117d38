# A complete TideMQ deployment in an existing VPC: gateways on Fargate behind an HTTPS
# load balancer, storage nodes in an Auto Scaling group, ElastiCache as the control
# plane, an S3 archive, and logs and alarms, all encrypted under one KMS key.
#
#   terraform init && terraform apply -var-file=my.tfvars
#
# See docs/deploy.md for what runs where, sizing and operations.

provider "aws" {
  region = var.region

  default_tags {
    tags = {
      Application = "TideMQ"
      Deployment  = var.name
    }
  }
}

data "aws_caller_identity" "current" {}
data "aws_partition" "current" {}

locals {
  account_id = data.aws_caller_identity.current.account_id
  partition  = data.aws_partition.current.partition
}

# --- one key for the archive, the control plane, the secrets, the logs and alarms ------

resource "aws_kms_key" "this" {
  description             = "TideMQ ${var.name}: archive, control plane, secrets, logs"
  enable_key_rotation     = true
  deletion_window_in_days = 30
  policy = jsonencode({
    Version = "2012-10-17"
    Statement = [
      {
        # IAM policies decide who else uses the key (the nodes' and gateways' roles).
        Sid       = "AccountAdministersAndDelegatesToIam"
        Effect    = "Allow"
        Principal = { AWS = "arn:${local.partition}:iam::${local.account_id}:root" }
        Action    = "kms:*"
        Resource  = "*"
      },
      {
        Sid       = "CloudWatchLogsEncryptsTideMQLogGroups"
        Effect    = "Allow"
        Principal = { Service = "logs.${var.region}.amazonaws.com" }
        Action    = ["kms:Encrypt*", "kms:Decrypt*", "kms:ReEncrypt*", "kms:GenerateDataKey*", "kms:Describe*"]
        Resource  = "*"
        Condition = {
          ArnLike = {
            "kms:EncryptionContext:aws:logs:arn" = "arn:${local.partition}:logs:${var.region}:${local.account_id}:log-group:/tidemq/${var.name}/*"
          }
        }
      },
      {
        # Alarms publish to the encrypted alarm topic.
        Sid       = "CloudWatchAlarmsPublishToTheTopic"
        Effect    = "Allow"
        Principal = { Service = "cloudwatch.amazonaws.com" }
        Action    = ["kms:Decrypt", "kms:GenerateDataKey*"]
        Resource  = "*"
        Condition = { StringEquals = { "aws:SourceAccount" = local.account_id } }
      },
    ]
  })
}

resource "aws_kms_alias" "this" {
  name          = "alias/${var.name}"
  target_key_id = aws_kms_key.this.key_id
}

# --- the gateways' admin credentials and master key --------------------------------------

resource "random_string" "admin_access_key_id" {
  # Shaped like the ones `tidemq up` makes: TQ and 18 upper-case letters or digits.
  length  = 18
  upper   = true
  lower   = false
  numeric = true
  special = false
}

resource "random_password" "admin_secret_access_key" {
  length  = 40
  special = false
}

resource "random_id" "master_key" {
  # TIDEMQ_MASTER_KEY: base64 of 32 bytes, sealing the access keys' secrets in Redis.
  byte_length = 32
}

resource "aws_secretsmanager_secret" "gateway_credentials" {
  #checkov:skip=CKV2_AWS_57:The admin credentials and master key are changed by an operator (docs/deploy.md), not by a rotation Lambda: a new master key must re-seal every stored secret.
  name_prefix             = "${var.name}-gateway-credentials-"
  description             = "TideMQ ${var.name}: admin credentials and the master key of the gateways"
  kms_key_id              = aws_kms_key.this.arn
  recovery_window_in_days = 7
}

resource "aws_secretsmanager_secret_version" "gateway_credentials" {
  secret_id = aws_secretsmanager_secret.gateway_credentials.id
  secret_string = jsonencode({
    access_key_id     = "TQ${random_string.admin_access_key_id.result}"
    secret_access_key = random_password.admin_secret_access_key.result
    master_key        = random_id.master_key.b64_std
  })
}

# --- TideMQ ----------------------------------------------------------------------------

module "object_store" {
  source = "../../modules/object_store"

  bucket_name    = var.archive_bucket_name
  kms_key_arn    = aws_kms_key.this.arn
  node_role_arns = [module.storage_nodes.iam_role_arn]
}

module "control_plane" {
  source = "../../modules/control_plane"

  name        = var.name
  vpc_id      = var.vpc_id
  subnet_ids  = var.private_subnet_ids
  kms_key_arn = aws_kms_key.this.arn
  allowed_security_groups = {
    nodes    = module.storage_nodes.security_group_id
    gateways = module.gateway.task_security_group_id
  }
  slow_log_group_name = module.observability.control_plane_log_group_name
}

module "storage_nodes" {
  source = "../../modules/storage_nodes"

  name             = var.name
  vpc_id           = var.vpc_id
  subnet_ids       = var.private_subnet_ids
  image            = var.image
  min_size         = var.node_count
  desired_capacity = var.node_count
  max_size         = var.node_count + 1

  lease_ttl_ms     = var.lease_ttl_ms

  allowed_security_groups         = { gateways = module.gateway.task_security_group_id }
  control_plane_security_group_id = module.control_plane.security_group_id
  control_plane_port              = module.control_plane.port
  redis_url_secret_arn            = module.control_plane.connection_secret_arn

  archive_bucket_arn = module.object_store.bucket_arn
  archive_prefix     = module.object_store.archive_prefix
  kms_key_arns       = [aws_kms_key.this.arn]

  log_group_name         = module.observability.node_log_group_name
  metrics_log_group_name = module.observability.metrics_log_group_name
  metrics_namespace      = module.observability.metrics_namespace
}

module "gateway" {
  source = "../../modules/gateway"

  name                     = var.name
  vpc_id                   = var.vpc_id
  load_balancer_subnet_ids = var.public_subnet_ids
  task_subnet_ids          = var.private_subnet_ids
  ingress_cidr_blocks      = var.ingress_cidr_blocks
  certificate_arn          = var.certificate_arn
  public_url               = var.public_url
  image                    = var.image

  control_plane_security_group_id = module.control_plane.security_group_id
  control_plane_port              = module.control_plane.port
  storage_nodes_security_group_id = module.storage_nodes.security_group_id
  storage_nodes_port              = module.storage_nodes.node_port
  # The nodes' and the gateways' lease TTL must agree.
  lease_ttl_ms            = module.storage_nodes.lease_ttl_ms
  node_request_timeout_ms = var.node_request_timeout_ms
  replication             = var.replication
  redis_url_secret_arn    = module.control_plane.connection_secret_arn
  master_key_secret       = { secret_arn = aws_secretsmanager_secret.gateway_credentials.arn, json_key = "master_key" }
  secrets = {
    TIDEMQ_ACCESS_KEY_ID     = { secret_arn = aws_secretsmanager_secret.gateway_credentials.arn, json_key = "access_key_id" }
    TIDEMQ_SECRET_ACCESS_KEY = { secret_arn = aws_secretsmanager_secret.gateway_credentials.arn, json_key = "secret_access_key" }
  }
  kms_key_arns = [aws_kms_key.this.arn]

  log_group_name         = module.observability.gateway_log_group_name
  metrics_log_group_name = module.observability.metrics_log_group_name
  metrics_namespace      = module.observability.metrics_namespace
}

module "observability" {
  source = "../../modules/observability"

  name               = var.name
  kms_key_arn        = aws_kms_key.this.arn
  dead_letter_queues = var.dead_letter_queues

  gateway = {
    load_balancer_arn_suffix = module.gateway.load_balancer_arn_suffix
    target_group_arn_suffix  = module.gateway.target_group_arn_suffix
  }
  control_plane_member_cluster_ids = module.control_plane.member_cluster_ids
  storage_nodes = {
    autoscaling_group_name = module.storage_nodes.autoscaling_group_name
    expected_count         = var.node_count
  }
}
