# Storage nodes: an Auto Scaling group of EC2 instances, each running `tidemq node` in a
# container on a gp3 data volume. Nodes keep no metadata of their own (DESIGN.md section 4):
# partitions come from leases in the control plane and history lives in the archive, so
# an instance can be replaced at any time. A termination lifecycle hook gives a node
# the time to hand its partitions over before the instance goes.
#
# Two ports per node (docs/cluster.md): `node_port`, the node protocol the gateways
# reach; `port`, HTTP for operators (/healthz, /readyz, /metrics), reached on the
# instance by its liveness check and CloudWatch agent.

data "aws_partition" "current" {}
data "aws_region" "current" {}
data "aws_caller_identity" "current" {}

locals {
  autoscaling_group_name = "${var.name}-nodes"
  termination_hook_name  = "${var.name}-nodes-graceful-termination"
  data_dir               = "/var/lib/tidemq"

  partition  = data.aws_partition.current.partition
  region     = data.aws_region.current.region
  account_id = data.aws_caller_identity.current.account_id

  # The ASG's ARN holds a generated id; a pattern keeps the role's policy independent of
  # the group, which itself depends on the role through the launch template.
  autoscaling_group_arn_pattern = "arn:${local.partition}:autoscaling:${local.region}:${local.account_id}:autoScalingGroup:*:autoScalingGroupName/${local.autoscaling_group_name}"

  archive_bucket_name = split(":::", var.archive_bucket_arn)[1]
  archive_url         = "s3://${local.archive_bucket_name}/${var.archive_prefix}"

  image_id = coalesce(var.ami_id, "resolve:ssm:/aws/service/ami-amazon-linux-latest/al2023-ami-kernel-default-${var.architecture}")

  # The node's settings (tidemq/settings.py); TIDEMQ_NODE_ADDRESS and TIDEMQ_S3_REGION
  # are added on the instance, which knows its private address and region (IMDSv2).
  # It listens on every interface: the gateways reach the node protocol on the private
  # address, the liveness check and the CloudWatch agent its HTTP on 127.0.0.1.
  environment = merge(
    {
      TIDEMQ_HOST              = "0.0.0.0"
      TIDEMQ_PORT              = tostring(var.port)
      TIDEMQ_NODE_PORT         = tostring(var.node_port)
      TIDEMQ_LEASE_TTL_MS      = tostring(var.lease_ttl_ms)
      TIDEMQ_LOG_FORMAT        = "json"
      TIDEMQ_DATA_DIR          = local.data_dir
      TIDEMQ_ARCHIVE_URL       = local.archive_url
      TIDEMQ_DURABILITY        = var.durability
      TIDEMQ_DISK_BUDGET_BYTES = tostring(floor(var.data_volume_size_gib * 1073741824 * var.disk_budget_percent / 100))
    },
    var.archive_retention_days == null ? {} : {
      TIDEMQ_ARCHIVE_RETENTION_MS = tostring(var.archive_retention_days * 86400000)
    },
    var.environment,
  )

  secrets = merge(
    { for key, secret in var.secrets : key => { secret_arn = secret.secret_arn, json_key = coalesce(secret.json_key, "-") } },
    { TIDEMQ_REDIS_URL = { secret_arn = var.redis_url_secret_arn, json_key = "url" } },
  )
  secret_arns = distinct([for secret in values(local.secrets) : secret.secret_arn])

  metrics_config = var.metrics_log_group_name == null ? "" : jsonencode({
    logs = {
      force_flush_interval = 5
      metrics_collected = {
        prometheus = {
          log_group_name         = var.metrics_log_group_name
          prometheus_config_path = "/opt/aws/amazon-cloudwatch-agent/etc/prometheus.yaml"
          emf_processor = {
            metric_declaration_dedup = true
            metric_namespace         = var.metrics_namespace
            metric_declaration = [{
              source_labels    = ["job"]
              label_matcher    = "^tidemq-nodes$"
              dimensions       = [["deployment"], ["deployment", "instance_id"]]
              metric_selectors = var.metric_selectors
            }]
          }
        }
      }
    }
  })

  log_group_arns = [
    for name in compact([var.log_group_name, var.metrics_log_group_name]) :
    "arn:${local.partition}:logs:${local.region}:${local.account_id}:log-group:${name}"
  ]

  tags = merge(var.tags, { Name = "${var.name}-node" })
}

# --- network -------------------------------------------------------------------------

resource "aws_security_group" "this" {
  name_prefix = "${var.name}-nodes-"
  description = "TideMQ storage nodes (${var.name})"
  vpc_id      = var.vpc_id

  tags = merge(var.tags, { Name = "${var.name}-nodes" })

  lifecycle {
    create_before_destroy = true
  }
}

# Nodes do not talk to each other: a partition changes hands through the control plane's
# leases and the archive (docs/cluster.md), so no rule opens the nodes to one another.
resource "aws_vpc_security_group_ingress_rule" "clients" {
  for_each = var.allowed_security_groups

  security_group_id            = aws_security_group.this.id
  description                  = "TideMQ ${each.key} to the nodes' node protocol"
  referenced_security_group_id = each.value
  ip_protocol                  = "tcp"
  from_port                    = var.node_port
  to_port                      = var.node_port

  tags = var.tags
}

resource "aws_vpc_security_group_ingress_rule" "metrics_scrapers" {
  for_each = var.metrics_scraper_security_groups

  security_group_id            = aws_security_group.this.id
  description                  = "TideMQ ${each.key} to the nodes' HTTP (/healthz, /readyz, /metrics)"
  referenced_security_group_id = each.value
  ip_protocol                  = "tcp"
  from_port                    = var.port
  to_port                      = var.port

  tags = var.tags
}

resource "aws_vpc_security_group_egress_rule" "control_plane" {
  security_group_id            = aws_security_group.this.id
  description                  = "TideMQ nodes to the control plane"
  referenced_security_group_id = var.control_plane_security_group_id
  ip_protocol                  = "tcp"
  from_port                    = var.control_plane_port
  to_port                      = var.control_plane_port

  tags = var.tags
}

resource "aws_vpc_security_group_egress_rule" "https" {
  security_group_id = aws_security_group.this.id
  description       = "HTTPS to AWS APIs (S3, Secrets Manager, CloudWatch, Auto Scaling), the image registry and the OS packages"
  cidr_ipv4         = "0.0.0.0/0"
  ip_protocol       = "tcp"
  from_port         = 443
  to_port           = 443

  tags = var.tags
}

# --- IAM -----------------------------------------------------------------------------

resource "aws_iam_role" "this" {
  name_prefix = "${var.name}-nodes-"
  description = "TideMQ storage nodes (${var.name})"
  assume_role_policy = jsonencode({
    Version = "2012-10-17"
    Statement = [{
      Effect    = "Allow"
      Principal = { Service = "ec2.amazonaws.com" }
      Action    = "sts:AssumeRole"
    }]
  })

  tags = var.tags
}

resource "aws_iam_role_policy" "this" {
  name = "tidemq-node"
  role = aws_iam_role.this.id
  policy = jsonencode({
    Version = "2012-10-17"
    Statement = concat(
      [
        {
          Sid       = "ListArchive"
          Effect    = "Allow"
          Action    = "s3:ListBucket"
          Resource  = var.archive_bucket_arn
          Condition = { StringLike = { "s3:prefix" = ["${var.archive_prefix}/*"] } }
        },
        {
          Sid    = "ReadWriteArchive"
          Effect = "Allow"
          Action = [
            "s3:GetObject",
            "s3:PutObject",
            "s3:DeleteObject",
            "s3:AbortMultipartUpload",
            "s3:ListMultipartUploadParts",
          ]
          Resource = "${var.archive_bucket_arn}/${var.archive_prefix}/*"
        },
        {
          Sid      = "ReadSettingsSecrets"
          Effect   = "Allow"
          Action   = "secretsmanager:GetSecretValue"
          Resource = local.secret_arns
        },
        {
          Sid    = "GracefulTerminationAndHealth"
          Effect = "Allow"
          Action = [
            "autoscaling:CompleteLifecycleAction",
            "autoscaling:RecordLifecycleActionHeartbeat",
            "autoscaling:SetInstanceHealth",
          ]
          Resource = local.autoscaling_group_arn_pattern
        },
        {
          Sid      = "WriteLogs"
          Effect   = "Allow"
          Action   = ["logs:CreateLogStream", "logs:PutLogEvents", "logs:DescribeLogStreams"]
          Resource = [for arn in local.log_group_arns : "${arn}:*"]
        },
      ],
      length(var.kms_key_arns) == 0 ? [] : [{
        Sid      = "UseKmsKeys"
        Effect   = "Allow"
        Action   = ["kms:Decrypt", "kms:GenerateDataKey"]
        Resource = var.kms_key_arns
      }],
      length(var.ecr_repository_arns) == 0 ? [] : [
        {
          Sid      = "EcrLogin"
          Effect   = "Allow"
          Action   = "ecr:GetAuthorizationToken"
          Resource = "*"
        },
        {
          Sid      = "EcrPull"
          Effect   = "Allow"
          Action   = ["ecr:BatchGetImage", "ecr:GetDownloadUrlForLayer", "ecr:BatchCheckLayerAvailability"]
          Resource = var.ecr_repository_arns
        },
      ],
    )
  })
}

resource "aws_iam_role_policy_attachment" "ssm" {
  count = var.enable_ssm_session_manager ? 1 : 0

  role       = aws_iam_role.this.name
  policy_arn = "arn:${local.partition}:iam::aws:policy/AmazonSSMManagedInstanceCore"
}

resource "aws_iam_instance_profile" "this" {
  name_prefix = "${var.name}-nodes-"
  role        = aws_iam_role.this.name

  tags = var.tags
}

# --- instances -----------------------------------------------------------------------

resource "aws_launch_template" "this" {
  name_prefix            = "${var.name}-nodes-"
  description            = "TideMQ storage node (${var.name})"
  image_id               = local.image_id
  instance_type          = var.instance_type
  ebs_optimized          = true
  update_default_version = true
  vpc_security_group_ids = [aws_security_group.this.id]

  user_data = base64encode(templatefile("${path.module}/templates/user_data.sh.tftpl", {
    image                       = var.image
    port                        = var.port
    node_port                   = var.node_port
    data_dir                    = local.data_dir
    environment                 = local.environment
    secrets                     = local.secrets
    log_group_name              = var.log_group_name
    grace_period_s              = var.termination_grace_period_s
    health_check_grace_period_s = var.health_check_grace_period_s
    autoscaling_group_name      = local.autoscaling_group_name
    termination_hook_name       = local.termination_hook_name
    deployment                  = var.name
    metrics_config              = local.metrics_config
  }))

  iam_instance_profile {
    arn = aws_iam_instance_profile.this.arn
  }

  # IMDSv2 only, one hop: the container shares the host's network, so it still reaches
  # the instance role's credentials.
  metadata_options {
    http_endpoint               = "enabled"
    http_tokens                 = "required"
    http_put_response_hop_limit = 1
  }

  monitoring {
    enabled = true
  }

  block_device_mappings {
    device_name = "/dev/xvda"

    ebs {
      volume_type           = "gp3"
      volume_size           = var.root_volume_size_gib
      encrypted             = true
      kms_key_id            = var.ebs_kms_key_arn
      delete_on_termination = true
    }
  }

  # The data volume goes with the instance: what it holds beyond the archive is the
  # un-tiered tail, which a graceful stop hands over and the durability policy covers.
  block_device_mappings {
    device_name = "/dev/xvdb"

    ebs {
      volume_type           = "gp3"
      volume_size           = var.data_volume_size_gib
      iops                  = var.data_volume_iops
      throughput            = var.data_volume_throughput_mibps
      encrypted             = true
      kms_key_id            = var.ebs_kms_key_arn
      delete_on_termination = true
    }
  }

  tag_specifications {
    resource_type = "instance"
    tags          = local.tags
  }

  tag_specifications {
    resource_type = "volume"
    tags          = local.tags
  }

  tags = var.tags

  lifecycle {
    precondition {
      # The CloudWatch agent's scrape sends no token: with one, every scrape gets 401.
      condition     = var.metrics_log_group_name == null || !contains(concat(keys(var.environment), keys(var.secrets)), "TIDEMQ_METRICS_TOKEN")
      error_message = "TIDEMQ_METRICS_TOKEN cannot be set while the CloudWatch agent scrapes /metrics (metrics_log_group_name): its scrape sends no token. The HTTP port is reachable only from the instance and metrics_scraper_security_groups."
    }
  }
}

resource "aws_autoscaling_group" "this" {
  name                      = local.autoscaling_group_name
  vpc_zone_identifier       = var.subnet_ids
  min_size                  = var.min_size
  max_size                  = var.max_size
  desired_capacity          = var.desired_capacity
  health_check_type         = "EC2"
  health_check_grace_period = var.health_check_grace_period_s
  default_instance_warmup   = var.health_check_grace_period_s
  # One node at a time, oldest configuration first, so partitions move in small steps.
  termination_policies = ["OldestLaunchTemplate", "OldestInstance"]
  enabled_metrics = [
    "GroupDesiredCapacity",
    "GroupInServiceInstances",
    "GroupPendingInstances",
    "GroupTerminatingInstances",
    "GroupTotalInstances",
  ]

  launch_template {
    id      = aws_launch_template.this.id
    version = aws_launch_template.this.latest_version
  }

  initial_lifecycle_hook {
    name                 = local.termination_hook_name
    lifecycle_transition = "autoscaling:EC2_INSTANCE_TERMINATING"
    # The on-instance watcher completes the action as soon as the node has stopped;
    # the timeout only bounds a node that hangs.
    heartbeat_timeout = var.termination_grace_period_s + 60
    default_result    = "CONTINUE"
  }

  instance_refresh {
    strategy = "Rolling"

    preferences {
      min_healthy_percentage = var.instance_refresh_min_healthy_percentage
      max_healthy_percentage = 100
      instance_warmup        = var.health_check_grace_period_s
    }
  }

  dynamic "tag" {
    for_each = local.tags

    content {
      key                 = tag.key
      value               = tag.value
      propagate_at_launch = true
    }
  }

  lifecycle {
    precondition {
      condition     = var.min_size <= var.desired_capacity && var.desired_capacity <= var.max_size
      error_message = "The node counts must hold min_size <= desired_capacity <= max_size."
    }
  }
}
