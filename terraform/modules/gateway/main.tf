# Gateways: `tidemq gateway` as an ECS Fargate service behind an Application Load
# Balancer. Gateways are stateless (they route each partition's work to the node that
# holds its lease), so tasks scale out and in freely: on CPU, and on requests per task.
# The ALB ends TLS, keeps WebSockets open past its default idle timeout, and sends
# traffic only to tasks whose /readyz answers (the control plane is reachable). A task
# reaches the control plane and the nodes' node protocol port, nothing else of ours.

data "aws_partition" "current" {}
data "aws_region" "current" {}
data "aws_caller_identity" "current" {}

locals {
  full_name  = "${var.name}-gateway"
  partition  = data.aws_partition.current.partition
  region     = data.aws_region.current.region
  account_id = data.aws_caller_identity.current.account_id

  data_dir         = "/var/lib/tidemq"
  metrics_enabled  = var.metrics_log_group_name != null
  cpu_architecture = var.architecture == "arm64" ? "ARM64" : "X86_64"

  # The gateway's settings (tidemq/settings.py). The data directory holds no messages on
  # a gateway; it is a task-local scratch space.
  environment = merge(
    {
      TIDEMQ_HOST                    = "0.0.0.0"
      TIDEMQ_PORT                    = tostring(var.port)
      TIDEMQ_DATA_DIR                = local.data_dir
      TIDEMQ_LEASE_TTL_MS            = tostring(var.lease_ttl_ms)
      TIDEMQ_NODE_REQUEST_TIMEOUT_MS = tostring(var.node_request_timeout_ms)
      TIDEMQ_REPLICATION             = var.replication
      # One JSON object per line into CloudWatch Logs (docs/operations.md).
      TIDEMQ_LOG_FORMAT = "json"
    },
    var.public_url == null ? {} : { TIDEMQ_PUBLIC_URL = var.public_url },
    var.environment,
  )

  secrets = merge(
    var.secrets,
    {
      TIDEMQ_REDIS_URL  = { secret_arn = var.redis_url_secret_arn, json_key = "url" }
      TIDEMQ_MASTER_KEY = var.master_key_secret
    },
  )
  secret_arns = distinct([for secret in values(local.secrets) : secret.secret_arn])

  log_group_arns = [
    for name in compact([var.log_group_name, var.metrics_log_group_name]) :
    "arn:${local.partition}:logs:${local.region}:${local.account_id}:log-group:${name}"
  ]

  gateway_container = {
    name       = "tidemq"
    image      = var.image
    essential  = true
    entryPoint = ["tidemq"]
    command    = ["gateway"]
    portMappings = [{
      name          = "http"
      containerPort = var.port
      hostPort      = var.port
      protocol      = "tcp"
      appProtocol   = "http"
    }]
    environment = [for key, value in local.environment : { name = key, value = value }]
    secrets = [
      for key, secret in local.secrets : {
        name      = key
        valueFrom = secret.json_key == null ? secret.secret_arn : "${secret.secret_arn}:${secret.json_key}::"
      }
    ]
    readonlyRootFilesystem = true
    mountPoints = [
      { sourceVolume = "data", containerPath = local.data_dir, readOnly = false },
      { sourceVolume = "tmp", containerPath = "/tmp", readOnly = false },
    ]
    # Each long poll and WebSocket holds a connection: Fargate's default of 1024 open
    # files would cap a task far below TIDEMQ_MAX_CONNECTIONS.
    ulimits     = [{ name = "nofile", softLimit = 65536, hardLimit = 65536 }]
    stopTimeout = var.stop_timeout_s
    # Liveness: the process answers. Readiness (/readyz) is the load balancer's check.
    healthCheck = {
      command     = ["CMD", "python3", "-c", "import urllib.request; urllib.request.urlopen('http://127.0.0.1:${var.port}/healthz', timeout=3)"]
      interval    = 15
      timeout     = 5
      retries     = 3
      startPeriod = 30
    }
    linuxParameters = { initProcessEnabled = true }
    logConfiguration = {
      logDriver = "awslogs"
      options = {
        awslogs-group         = var.log_group_name
        awslogs-region        = local.region
        awslogs-stream-prefix = "gateway"
      }
    }
  }

  # The collector's configuration; JSON is YAML, so jsonencode writes it.
  collector_config = jsonencode({
    receivers = {
      prometheus = {
        config = {
          global = { scrape_interval = "1m", scrape_timeout = "10s" }
          scrape_configs = [{
            job_name = "tidemq-gateways"
            static_configs = [{
              targets = ["127.0.0.1:${var.port}"]
              labels  = { deployment = var.name }
            }]
          }]
        }
      }
    }
    processors = { batch = { timeout = "60s" } }
    exporters = {
      awsemf = {
        namespace               = var.metrics_namespace
        log_group_name          = coalesce(var.metrics_log_group_name, "unused")
        log_stream_name         = "gateway/{TaskId}"
        dimension_rollup_option = "NoDimensionRollup"
        metric_declarations = [{
          dimensions            = [["deployment"], ["deployment", "queue"]]
          metric_name_selectors = var.metric_selectors
        }]
      }
    }
    service = {
      pipelines = {
        metrics = { receivers = ["prometheus"], processors = ["batch"], exporters = ["awsemf"] }
      }
    }
  })

  collector_container = {
    name                   = "metrics-collector"
    image                  = var.collector_image
    essential              = false
    readonlyRootFilesystem = true
    mountPoints            = [{ sourceVolume = "tmp", containerPath = "/tmp", readOnly = false }]
    environment            = [{ name = "AOT_CONFIG_CONTENT", value = local.collector_config }]
    logConfiguration = {
      logDriver = "awslogs"
      options = {
        awslogs-group         = var.log_group_name
        awslogs-region        = local.region
        awslogs-stream-prefix = "metrics-collector"
      }
    }
  }
}

# --- network -------------------------------------------------------------------------

resource "aws_security_group" "alb" {
  name_prefix = "${local.full_name}-alb-"
  description = "TideMQ gateways' load balancer (${var.name})"
  vpc_id      = var.vpc_id

  tags = merge(var.tags, { Name = "${local.full_name}-alb" })

  lifecycle {
    create_before_destroy = true
  }
}

resource "aws_vpc_security_group_ingress_rule" "alb_https" {
  for_each = toset(var.ingress_cidr_blocks)

  security_group_id = aws_security_group.alb.id
  description       = "HTTPS from clients"
  cidr_ipv4         = each.value
  ip_protocol       = "tcp"
  from_port         = 443
  to_port           = 443

  tags = var.tags
}

resource "aws_vpc_security_group_ingress_rule" "alb_http" {
  #checkov:skip=CKV_AWS_260:Port 80 answers only with a redirect to HTTPS (aws_lb_listener.http); nothing is served over plain HTTP.
  for_each = var.http_redirect ? toset(var.ingress_cidr_blocks) : toset([])

  security_group_id = aws_security_group.alb.id
  description       = "HTTP from clients, redirected to HTTPS"
  cidr_ipv4         = each.value
  ip_protocol       = "tcp"
  from_port         = 80
  to_port           = 80

  tags = var.tags
}

resource "aws_vpc_security_group_egress_rule" "alb_to_tasks" {
  security_group_id            = aws_security_group.alb.id
  description                  = "To the gateway tasks"
  referenced_security_group_id = aws_security_group.tasks.id
  ip_protocol                  = "tcp"
  from_port                    = var.port
  to_port                      = var.port

  tags = var.tags
}

resource "aws_security_group" "tasks" {
  name_prefix = "${local.full_name}-tasks-"
  description = "TideMQ gateway tasks (${var.name})"
  vpc_id      = var.vpc_id

  tags = merge(var.tags, { Name = "${local.full_name}-tasks" })

  lifecycle {
    create_before_destroy = true
  }
}

resource "aws_vpc_security_group_ingress_rule" "tasks_from_alb" {
  security_group_id            = aws_security_group.tasks.id
  description                  = "From the load balancer"
  referenced_security_group_id = aws_security_group.alb.id
  ip_protocol                  = "tcp"
  from_port                    = var.port
  to_port                      = var.port

  tags = var.tags
}

resource "aws_vpc_security_group_egress_rule" "tasks_to_control_plane" {
  security_group_id            = aws_security_group.tasks.id
  description                  = "To the control plane"
  referenced_security_group_id = var.control_plane_security_group_id
  ip_protocol                  = "tcp"
  from_port                    = var.control_plane_port
  to_port                      = var.control_plane_port

  tags = var.tags
}

resource "aws_vpc_security_group_egress_rule" "tasks_to_nodes" {
  security_group_id            = aws_security_group.tasks.id
  description                  = "To the storage nodes"
  referenced_security_group_id = var.storage_nodes_security_group_id
  ip_protocol                  = "tcp"
  from_port                    = var.storage_nodes_port
  to_port                      = var.storage_nodes_port

  tags = var.tags
}

resource "aws_vpc_security_group_egress_rule" "tasks_https" {
  security_group_id = aws_security_group.tasks.id
  description       = "HTTPS to AWS APIs (Secrets Manager, CloudWatch) and the image registry"
  cidr_ipv4         = "0.0.0.0/0"
  ip_protocol       = "tcp"
  from_port         = 443
  to_port           = 443

  tags = var.tags
}

# --- load balancer -------------------------------------------------------------------

resource "aws_lb" "this" {
  #checkov:skip=CKV_AWS_91:Access logs go to access_logs_bucket when it is set; the bucket belongs to the deployment.
  #checkov:skip=CKV2_AWS_28:A WAF web ACL is associated when web_acl_arn is set; its rules belong to the deployment.
  #checkov:skip=CKV2_AWS_76:A WAF web ACL (and its Log4j rule set) is associated when web_acl_arn is set; TideMQ runs no Java.
  name                       = local.full_name
  load_balancer_type         = "application"
  internal                   = var.internal
  security_groups            = [aws_security_group.alb.id]
  subnets                    = var.load_balancer_subnet_ids
  idle_timeout               = var.idle_timeout_s
  drop_invalid_header_fields = true
  enable_deletion_protection = var.enable_deletion_protection
  enable_http2               = true

  dynamic "access_logs" {
    for_each = var.access_logs_bucket == null ? [] : [var.access_logs_bucket]

    content {
      bucket  = access_logs.value
      prefix  = local.full_name
      enabled = true
    }
  }

  tags = var.tags
}

resource "aws_wafv2_web_acl_association" "this" {
  count = var.web_acl_arn == null ? 0 : 1

  resource_arn = aws_lb.this.arn
  web_acl_arn  = var.web_acl_arn
}

resource "aws_lb_target_group" "this" {
  name        = local.full_name
  target_type = "ip"
  vpc_id      = var.vpc_id
  port        = var.port
  protocol    = "HTTP"
  # HTTP/1.1 to the tasks: WebSocket upgrades need it.
  protocol_version     = "HTTP1"
  deregistration_delay = var.deregistration_delay_s
  # Long polls and WebSockets hold requests open: spreading by outstanding requests
  # keeps one task from collecting them.
  load_balancing_algorithm_type = "least_outstanding_requests"

  health_check {
    path                = "/readyz"
    matcher             = "200"
    protocol            = "HTTP"
    port                = "traffic-port"
    interval            = 15
    timeout             = 5
    healthy_threshold   = 2
    unhealthy_threshold = 3
  }

  tags = var.tags
}

resource "aws_lb_listener" "https" {
  load_balancer_arn = aws_lb.this.arn
  port              = 443
  protocol          = "HTTPS"
  ssl_policy        = var.ssl_policy
  certificate_arn   = var.certificate_arn

  default_action {
    type             = "forward"
    target_group_arn = aws_lb_target_group.this.arn
  }

  tags = var.tags
}

resource "aws_lb_listener" "http" {
  count = var.http_redirect ? 1 : 0

  load_balancer_arn = aws_lb.this.arn
  port              = 80
  protocol          = "HTTP"

  default_action {
    type = "redirect"

    redirect {
      protocol    = "HTTPS"
      port        = "443"
      status_code = "HTTP_301"
    }
  }

  tags = var.tags
}

# --- IAM -----------------------------------------------------------------------------

resource "aws_iam_role" "execution" {
  name_prefix = "${local.full_name}-exec-"
  description = "TideMQ gateways (${var.name}): ECS pulls the image, writes logs, reads the secrets"
  assume_role_policy = jsonencode({
    Version = "2012-10-17"
    Statement = [{
      Effect    = "Allow"
      Principal = { Service = "ecs-tasks.amazonaws.com" }
      Action    = "sts:AssumeRole"
      Condition = { ArnLike = { "aws:SourceArn" = "arn:${local.partition}:ecs:${local.region}:${local.account_id}:*" } }
    }]
  })

  tags = var.tags
}

resource "aws_iam_role_policy" "execution" {
  name = "tidemq-gateway-execution"
  role = aws_iam_role.execution.id
  policy = jsonencode({
    Version = "2012-10-17"
    Statement = concat(
      [
        {
          Sid      = "ReadSettingsSecrets"
          Effect   = "Allow"
          Action   = "secretsmanager:GetSecretValue"
          Resource = local.secret_arns
        },
        {
          Sid      = "WriteLogs"
          Effect   = "Allow"
          Action   = ["logs:CreateLogStream", "logs:PutLogEvents"]
          Resource = "arn:${local.partition}:logs:${local.region}:${local.account_id}:log-group:${var.log_group_name}:*"
        },
      ],
      length(var.kms_key_arns) == 0 ? [] : [{
        Sid      = "DecryptSecrets"
        Effect   = "Allow"
        Action   = "kms:Decrypt"
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

resource "aws_iam_role" "task" {
  name_prefix = "${local.full_name}-task-"
  description = "TideMQ gateways (${var.name}): what the running tasks may do"
  assume_role_policy = jsonencode({
    Version = "2012-10-17"
    Statement = [{
      Effect    = "Allow"
      Principal = { Service = "ecs-tasks.amazonaws.com" }
      Action    = "sts:AssumeRole"
      Condition = { ArnLike = { "aws:SourceArn" = "arn:${local.partition}:ecs:${local.region}:${local.account_id}:*" } }
    }]
  })

  tags = var.tags
}

# A gateway itself calls no AWS API: it reaches the control plane and the nodes only.
# The task role serves the metrics sidecar and ECS Exec, when they are on.
resource "aws_iam_role_policy" "task" {
  count = local.metrics_enabled || var.enable_execute_command ? 1 : 0

  name = "tidemq-gateway-task"
  role = aws_iam_role.task.id
  policy = jsonencode({
    Version = "2012-10-17"
    Statement = concat(
      local.metrics_enabled ? [{
        Sid      = "WriteMetrics"
        Effect   = "Allow"
        Action   = ["logs:CreateLogStream", "logs:PutLogEvents", "logs:DescribeLogStreams"]
        Resource = "arn:${local.partition}:logs:${local.region}:${local.account_id}:log-group:${var.metrics_log_group_name}:*"
      }] : [],
      var.enable_execute_command ? [{
        Sid    = "EcsExec"
        Effect = "Allow"
        Action = [
          "ssmmessages:CreateControlChannel",
          "ssmmessages:CreateDataChannel",
          "ssmmessages:OpenControlChannel",
          "ssmmessages:OpenDataChannel",
        ]
        Resource = "*"
      }] : [],
    )
  })
}

# --- ECS -----------------------------------------------------------------------------

resource "aws_ecs_cluster" "this" {
  name = local.full_name

  setting {
    name  = "containerInsights"
    value = "enabled"
  }

  tags = var.tags
}

resource "aws_ecs_task_definition" "this" {
  family                   = local.full_name
  requires_compatibilities = ["FARGATE"]
  network_mode             = "awsvpc"
  cpu                      = var.cpu
  memory                   = var.memory_mib
  execution_role_arn       = aws_iam_role.execution.arn
  task_role_arn            = aws_iam_role.task.arn

  container_definitions = jsonencode(concat(
    [local.gateway_container],
    local.metrics_enabled ? [local.collector_container] : [],
  ))

  runtime_platform {
    operating_system_family = "LINUX"
    cpu_architecture        = local.cpu_architecture
  }

  # Task-local scratch space: the root file system is read-only.
  volume {
    name = "data"
  }

  volume {
    name = "tmp"
  }

  tags = var.tags
}

resource "aws_ecs_service" "this" {
  name                               = local.full_name
  cluster                            = aws_ecs_cluster.this.id
  task_definition                    = aws_ecs_task_definition.this.arn
  desired_count                      = var.desired_count
  launch_type                        = "FARGATE"
  platform_version                   = "LATEST"
  health_check_grace_period_seconds  = var.health_check_grace_period_s
  deployment_minimum_healthy_percent = 100
  deployment_maximum_percent         = 200
  enable_execute_command             = var.enable_execute_command
  enable_ecs_managed_tags            = true
  propagate_tags                     = "SERVICE"

  deployment_circuit_breaker {
    enable   = true
    rollback = true
  }

  network_configuration {
    subnets          = var.task_subnet_ids
    security_groups  = [aws_security_group.tasks.id]
    assign_public_ip = false
  }

  load_balancer {
    target_group_arn = aws_lb_target_group.this.arn
    container_name   = local.gateway_container.name
    container_port   = var.port
  }

  tags = var.tags

  # Autoscaling owns the task count once the service exists.
  lifecycle {
    ignore_changes = [desired_count]

    precondition {
      # Past the idle timeout the load balancer drops the connection of a request still
      # waiting for a node, and the client gets a 504 instead of a retryable 503.
      condition     = var.node_request_timeout_ms < var.idle_timeout_s * 1000
      error_message = "node_request_timeout_ms must be shorter than the load balancer's idle timeout (idle_timeout_s)."
    }

    precondition {
      condition     = var.min_capacity <= var.desired_count && var.desired_count <= var.max_capacity
      error_message = "The task counts must hold min_capacity <= desired_count <= max_capacity."
    }
  }

  # The target group must belong to a load balancer before a service can use it.
  depends_on = [aws_lb_listener.https]
}

# --- autoscaling ---------------------------------------------------------------------

resource "aws_appautoscaling_target" "this" {
  service_namespace  = "ecs"
  resource_id        = "service/${aws_ecs_cluster.this.name}/${aws_ecs_service.this.name}"
  scalable_dimension = "ecs:service:DesiredCount"
  min_capacity       = var.min_capacity
  max_capacity       = var.max_capacity

  tags = var.tags
}

resource "aws_appautoscaling_policy" "cpu" {
  name               = "${local.full_name}-cpu"
  policy_type        = "TargetTrackingScaling"
  service_namespace  = aws_appautoscaling_target.this.service_namespace
  resource_id        = aws_appautoscaling_target.this.resource_id
  scalable_dimension = aws_appautoscaling_target.this.scalable_dimension

  target_tracking_scaling_policy_configuration {
    target_value       = var.cpu_target_percent
    scale_in_cooldown  = var.scale_in_cooldown_s
    scale_out_cooldown = var.scale_out_cooldown_s

    predefined_metric_specification {
      predefined_metric_type = "ECSServiceAverageCPUUtilization"
    }
  }
}

resource "aws_appautoscaling_policy" "requests" {
  name               = "${local.full_name}-requests"
  policy_type        = "TargetTrackingScaling"
  service_namespace  = aws_appautoscaling_target.this.service_namespace
  resource_id        = aws_appautoscaling_target.this.resource_id
  scalable_dimension = aws_appautoscaling_target.this.scalable_dimension

  target_tracking_scaling_policy_configuration {
    target_value       = var.requests_per_target
    scale_in_cooldown  = var.scale_in_cooldown_s
    scale_out_cooldown = var.scale_out_cooldown_s

    predefined_metric_specification {
      predefined_metric_type = "ALBRequestCountPerTarget"
      resource_label         = "${aws_lb.this.arn_suffix}/${aws_lb_target_group.this.arn_suffix}"
    }
  }
}
