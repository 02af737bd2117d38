variable "name" {
  description = "Name of the deployment. Resources are named `<name>-gateway...`; the gateways' metrics carry it as their `deployment` dimension."
  type        = string

  validation {
    # The load balancer's and target group's names, `<name>-gateway`, have 32 characters at most.
    condition     = can(regex("^[a-z][a-z0-9-]{0,22}[a-z0-9]$", var.name))
    error_message = "name must be 2 to 24 lower-case letters, digits or hyphens, start with a letter and not end with a hyphen."
  }
}

variable "vpc_id" {
  description = "ID of the VPC the gateways run in."
  type        = string

  validation {
    condition     = can(regex("^vpc-[0-9a-f]+$", var.vpc_id))
    error_message = "vpc_id must be a VPC id (vpc-...)."
  }
}

variable "load_balancer_subnet_ids" {
  description = "IDs of the subnets of the load balancer, in at least two Availability Zones: public subnets for an internet-facing one, private ones when internal is true."
  type        = list(string)

  validation {
    condition     = length(var.load_balancer_subnet_ids) >= 2 && alltrue([for id in var.load_balancer_subnet_ids : can(regex("^subnet-[0-9a-f]+$", id))])
    error_message = "load_balancer_subnet_ids must list at least two subnet ids (subnet-...)."
  }
}

variable "task_subnet_ids" {
  description = "IDs of the private subnets of the gateway tasks. They need a route to Secrets Manager, CloudWatch and the image registry (a NAT gateway or VPC endpoints)."
  type        = list(string)

  validation {
    condition     = length(var.task_subnet_ids) > 0 && alltrue([for id in var.task_subnet_ids : can(regex("^subnet-[0-9a-f]+$", id))])
    error_message = "task_subnet_ids must list at least one subnet id (subnet-...)."
  }
}

variable "internal" {
  description = "Whether the load balancer is internal (reachable from the VPC and its peers only) rather than internet-facing."
  type        = bool
  default     = false
}

variable "ingress_cidr_blocks" {
  description = "IPv4 CIDR blocks that may reach the load balancer on ports 443 (and 80, which only redirects). Every request is still authenticated (SigV4 or a bearer token)."
  type        = list(string)

  validation {
    condition     = length(var.ingress_cidr_blocks) > 0 && alltrue([for cidr in var.ingress_cidr_blocks : can(cidrnetmask(cidr))])
    error_message = "ingress_cidr_blocks must list at least one IPv4 CIDR block."
  }
}

variable "certificate_arn" {
  description = "ARN of the ACM certificate of the HTTPS listener."
  type        = string

  validation {
    condition     = can(regex("^arn:aws[a-z-]*:acm:", var.certificate_arn))
    error_message = "certificate_arn must be an ACM certificate ARN (arn:aws:acm:...)."
  }
}

variable "ssl_policy" {
  description = "TLS policy of the HTTPS listener; the default allows TLS 1.3 and 1.2 only."
  type        = string
  default     = "ELBSecurityPolicy-TLS13-1-2-2021-06"

  validation {
    condition     = startswith(var.ssl_policy, "ELBSecurityPolicy-")
    error_message = "ssl_policy must be an ELB security policy name (ELBSecurityPolicy-...)."
  }
}

variable "http_redirect" {
  description = "Whether port 80 answers with a redirect to HTTPS (nothing is served over plain HTTP either way)."
  type        = bool
  default     = true
}

variable "idle_timeout_s" {
  description = "Seconds the load balancer keeps a connection with no data before closing it. WebSocket subscribers that are quiet for long (between pushes, with pings every 30 s) need more than the ALB's 60 s default."
  type        = number
  default     = 3600

  validation {
    condition     = var.idle_timeout_s >= 60 && var.idle_timeout_s <= 4000 && floor(var.idle_timeout_s) == var.idle_timeout_s
    error_message = "idle_timeout_s must be a whole number from 60 to 4000."
  }
}

variable "deregistration_delay_s" {
  description = "Seconds a stopping gateway keeps its connections through the load balancer: long enough for a long poll (20 s) to finish."
  type        = number
  default     = 60

  validation {
    condition     = var.deregistration_delay_s >= 25 && var.deregistration_delay_s <= 3600 && floor(var.deregistration_delay_s) == var.deregistration_delay_s
    error_message = "deregistration_delay_s must be a whole number from 25 (a 20 s long poll and some slack) to 3600."
  }
}

variable "access_logs_bucket" {
  description = "Name of an S3 bucket for the load balancer's access logs (its policy must allow the ELB log delivery). Null: no access logs."
  type        = string
  default     = null
}

variable "web_acl_arn" {
  description = "ARN of a WAFv2 web ACL to associate with the load balancer. Null: none."
  type        = string
  default     = null

  validation {
    condition     = var.web_acl_arn == null || can(regex("^arn:aws[a-z-]*:wafv2:", var.web_acl_arn))
    error_message = "web_acl_arn must be a WAFv2 web ACL ARN or null."
  }
}

variable "enable_deletion_protection" {
  description = "Whether the load balancer is protected from deletion (turn off before `terraform destroy`)."
  type        = bool
  default     = true
}

variable "image" {
  description = "Container image with the `tidemq` command, as `registry/repository:tag` (a digest pins it best). Runs as `tidemq gateway`."
  type        = string

  validation {
    condition     = length(trimspace(var.image)) > 0 && !can(regex("\\s", var.image))
    error_message = "image must be a container image reference without spaces."
  }
}

variable "ecr_repository_arns" {
  description = "ARNs of the ECR repositories the image is pulled from, if it is in ECR."
  type        = list(string)
  default     = []

  validation {
    condition     = alltrue([for arn in var.ecr_repository_arns : can(regex("^arn:aws[a-z-]*:ecr:", arn))])
    error_message = "ecr_repository_arns must hold ECR repository ARNs (arn:aws:ecr:...)."
  }
}

variable "architecture" {
  description = "CPU architecture of the tasks and the image: `x86_64` or `arm64` (Graviton)."
  type        = string
  default     = "x86_64"

  validation {
    condition     = contains(["x86_64", "arm64"], var.architecture)
    error_message = "architecture must be x86_64 or arm64."
  }
}

variable "cpu" {
  description = "CPU units of a task (1024 = 1 vCPU). One gateway process uses one core; docs/deploy.md gives throughput per task."
  type        = number
  default     = 1024

  validation {
    condition     = contains([256, 512, 1024, 2048, 4096, 8192, 16384], var.cpu)
    error_message = "cpu must be a Fargate CPU size: 256, 512, 1024, 2048, 4096, 8192 or 16384."
  }
}

variable "memory_mib" {
  description = "Memory of a task in MiB, within what Fargate allows for the cpu size."
  type        = number
  default     = 2048

  validation {
    condition     = var.memory_mib >= 512 && var.memory_mib <= 122880 && floor(var.memory_mib) == var.memory_mib
    error_message = "memory_mib must be a whole number from 512 to 122880."
  }
}

variable "port" {
  description = "TCP port the gateway listens on in its task (TIDEMQ_PORT)."
  type        = number
  default     = 9324

  validation {
    condition     = var.port >= 1024 && var.port <= 65535 && floor(var.port) == var.port
    error_message = "port must be a whole number from 1024 to 65535."
  }
}

variable "public_url" {
  description = "Base of the queue URLs the gateway returns (TIDEMQ_PUBLIC_URL), such as https://sqs.example.com. Null: from each request's Host header."
  type        = string
  default     = null

  validation {
    condition     = var.public_url == null || can(regex("^https?://[^/]+$", var.public_url))
    error_message = "public_url must be scheme://host[:port] without a path, or null."
  }
}

variable "desired_count" {
  description = "Gateway tasks to start with; autoscaling moves it between min_capacity and max_capacity."
  type        = number
  default     = 2

  validation {
    condition     = var.desired_count >= 1 && floor(var.desired_count) == var.desired_count
    error_message = "desired_count must be a whole number, at least 1."
  }
}

variable "min_capacity" {
  description = "Least gateway tasks. Two or more keep serving through the loss of an Availability Zone or a deployment."
  type        = number
  default     = 2

  validation {
    condition     = var.min_capacity >= 1 && floor(var.min_capacity) == var.min_capacity
    error_message = "min_capacity must be a whole number, at least 1."
  }
}

variable "max_capacity" {
  description = "Most gateway tasks."
  type        = number
  default     = 10

  validation {
    condition     = var.max_capacity >= 1 && floor(var.max_capacity) == var.max_capacity
    error_message = "max_capacity must be a whole number, at least 1."
  }
}

variable "cpu_target_percent" {
  description = "Average CPU use of the tasks that autoscaling keeps them near."
  type        = number
  default     = 60

  validation {
    condition     = var.cpu_target_percent >= 10 && var.cpu_target_percent <= 90
    error_message = "cpu_target_percent must be from 10 to 90."
  }
}

variable "requests_per_target" {
  description = "Requests per task per minute (ALBRequestCountPerTarget) that autoscaling keeps them near. A WebSocket counts once however many messages it carries, so CPU scales WebSocket load."
  type        = number
  default     = 60000

  validation {
    condition     = var.requests_per_target >= 1 && floor(var.requests_per_target) == var.requests_per_target
    error_message = "requests_per_target must be a whole number, at least 1."
  }
}

variable "scale_in_cooldown_s" {
  description = "Seconds after a scale-in before another: WebSocket clients of a stopped task reconnect elsewhere."
  type        = number
  default     = 300

  validation {
    condition     = var.scale_in_cooldown_s >= 0 && floor(var.scale_in_cooldown_s) == var.scale_in_cooldown_s
    error_message = "scale_in_cooldown_s must be a whole number, 0 or more."
  }
}

variable "scale_out_cooldown_s" {
  description = "Seconds after a scale-out before another."
  type        = number
  default     = 60

  validation {
    condition     = var.scale_out_cooldown_s >= 0 && floor(var.scale_out_cooldown_s) == var.scale_out_cooldown_s
    error_message = "scale_out_cooldown_s must be a whole number, 0 or more."
  }
}

variable "stop_timeout_s" {
  description = "Seconds a stopping gateway has after SIGTERM to finish its requests and close its WebSockets before it is killed (Fargate allows 120 at most)."
  type        = number
  default     = 60

  validation {
    condition     = var.stop_timeout_s >= 2 && var.stop_timeout_s <= 120 && floor(var.stop_timeout_s) == var.stop_timeout_s
    error_message = "stop_timeout_s must be a whole number from 2 to 120."
  }
}

variable "health_check_grace_period_s" {
  description = "Seconds after a task starts before the load balancer's failed checks of /readyz count against it."
  type        = number
  default     = 60

  validation {
    condition     = var.health_check_grace_period_s >= 0 && var.health_check_grace_period_s <= 2147483647 && floor(var.health_check_grace_period_s) == var.health_check_grace_period_s
    error_message = "health_check_grace_period_s must be a whole number, 0 or more."
  }
}

variable "control_plane_security_group_id" {
  description = "ID of the control plane's security group; the tasks get an egress rule to it."
  type        = string

  validation {
    condition     = can(regex("^sg-[0-9a-f]+$", var.control_plane_security_group_id))
    error_message = "control_plane_security_group_id must be a security group id (sg-...)."
  }
}

variable "control_plane_port" {
  description = "TCP port of the control plane."
  type        = number
  default     = 6379

  validation {
    condition     = var.control_plane_port >= 1 && var.control_plane_port <= 65535 && floor(var.control_plane_port) == var.control_plane_port
    error_message = "control_plane_port must be a whole number from 1 to 65535."
  }
}

variable "storage_nodes_security_group_id" {
  description = "ID of the storage nodes' security group; the tasks get an egress rule to it."
  type        = string

  validation {
    condition     = can(regex("^sg-[0-9a-f]+$", var.storage_nodes_security_group_id))
    error_message = "storage_nodes_security_group_id must be a security group id (sg-...)."
  }
}

variable "storage_nodes_port" {
  description = "TCP port of the storage nodes' node protocol (the storage_nodes module's node_port), which the tasks' security group may reach."
  type        = number
  default     = 9400

  validation {
    condition     = var.storage_nodes_port >= 1 && var.storage_nodes_port <= 65535 && floor(var.storage_nodes_port) == var.storage_nodes_port
    error_message = "storage_nodes_port must be a whole number from 1 to 65535."
  }
}

variable "lease_ttl_ms" {
  description = "TIDEMQ_LEASE_TTL_MS: a gateway registration's time to live, and how long the gateways take a partition lease to last. The same as the nodes' (the storage_nodes module's lease_ttl_ms)."
  type        = number
  default     = 10000

  validation {
    condition     = var.lease_ttl_ms >= 1000 && var.lease_ttl_ms <= 600000 && floor(var.lease_ttl_ms) == var.lease_ttl_ms
    error_message = "lease_ttl_ms must be a whole number of milliseconds from 1000 to 600000."
  }
}

variable "replication" {
  description = "TIDEMQ_REPLICATION: how a new queue's or topic's un-archived tail is kept when its create does not name a Replication attribute: none (on its node's disk only), replica (fsynced by a follower node too) or object (written to the object store) before a send is acknowledged (docs/durability.md)."
  type        = string
  default     = "none"

  validation {
    condition     = contains(["none", "replica", "object"], var.replication)
    error_message = "replication must be none, replica or object."
  }
}

variable "node_request_timeout_ms" {
  description = "TIDEMQ_NODE_REQUEST_TIMEOUT_MS: how long a request may wait for a node, across retries (a partition's new owner after a node is lost), before it is answered 503, which the AWS SDKs retry. At least lease_ttl_ms rides out a lost node without a 503; it must stay below the load balancer's idle timeout."
  type        = number
  default     = 10000

  validation {
    condition     = var.node_request_timeout_ms >= 100 && var.node_request_timeout_ms <= 600000 && floor(var.node_request_timeout_ms) == var.node_request_timeout_ms
    error_message = "node_request_timeout_ms must be a whole number of milliseconds from 100 to 600000."
  }
}

variable "redis_url_secret_arn" {
  description = "ARN of the Secrets Manager secret whose JSON key `url` is the control plane's rediss:// (or rediss+cluster://) URL (the control_plane module's connection_secret_arn), injected as TIDEMQ_REDIS_URL."
  type        = string

  validation {
    condition     = can(regex("^arn:aws[a-z-]*:secretsmanager:", var.redis_url_secret_arn))
    error_message = "redis_url_secret_arn must be a Secrets Manager secret ARN."
  }
}

variable "master_key_secret" {
  description = "The Secrets Manager secret holding TIDEMQ_MASTER_KEY, the base64 of 32 random bytes that access-key secrets are sealed under in the control plane: its ARN and, for a JSON secret, the key to take. Every gateway of a deployment must have the same one, and changing it makes every stored access key unreadable (docs/deploy.md, Secrets)."
  type = object({
    secret_arn = string
    json_key   = optional(string)
  })

  validation {
    condition     = can(regex("^arn:aws[a-z-]*:secretsmanager:", var.master_key_secret.secret_arn))
    error_message = "master_key_secret.secret_arn must be a Secrets Manager secret ARN."
  }
}

variable "secrets" {
  description = "More settings injected from Secrets Manager: environment variable name => the secret's ARN and, for a JSON secret, the key to take. The admin credentials (TIDEMQ_ACCESS_KEY_ID, TIDEMQ_SECRET_ACCESS_KEY) must be the same in every gateway. TIDEMQ_REDIS_URL and TIDEMQ_MASTER_KEY have inputs of their own."
  type = map(object({
    secret_arn = string
    json_key   = optional(string)
  }))
  default = {}

  validation {
    condition = alltrue([
      for key, secret in var.secrets :
      can(regex("^TIDEMQ_[A-Z0-9_]+$", key)) && !contains(["TIDEMQ_REDIS_URL", "TIDEMQ_MASTER_KEY"], key) && can(regex("^arn:aws[a-z-]*:secretsmanager:", secret.secret_arn))
    ])
    error_message = "secrets keys must be TIDEMQ_* settings other than TIDEMQ_REDIS_URL and TIDEMQ_MASTER_KEY (inputs of their own), each with a Secrets Manager secret ARN."
  }
}

variable "environment" {
  description = "More TIDEMQ_* settings for `tidemq gateway`, such as TIDEMQ_MAX_CONNECTIONS. Settings this module derives from its own variables cannot be set here."
  type        = map(string)
  default     = {}

  validation {
    condition = alltrue([
      for key, value in var.environment :
      can(regex("^TIDEMQ_[A-Z0-9_]+$", key)) && !contains([
        "TIDEMQ_HOST", "TIDEMQ_PORT", "TIDEMQ_DATA_DIR", "TIDEMQ_REDIS_URL", "TIDEMQ_MASTER_KEY", "TIDEMQ_PUBLIC_URL",
        "TIDEMQ_LEASE_TTL_MS", "TIDEMQ_NODE_REQUEST_TIMEOUT_MS", "TIDEMQ_LOG_FORMAT", "TIDEMQ_REPLICATION",
      ], key)
    ])
    error_message = "environment keys must be TIDEMQ_* settings other than those the module derives: TIDEMQ_HOST, TIDEMQ_PORT, TIDEMQ_DATA_DIR, TIDEMQ_REDIS_URL, TIDEMQ_MASTER_KEY, TIDEMQ_PUBLIC_URL, TIDEMQ_LEASE_TTL_MS, TIDEMQ_NODE_REQUEST_TIMEOUT_MS, TIDEMQ_LOG_FORMAT and TIDEMQ_REPLICATION."
  }
}

variable "kms_key_arns" {
  description = "Customer managed KMS keys of the secrets, which the task execution role decrypts them with."
  type        = list(string)
  default     = []

  validation {
    condition     = alltrue([for arn in var.kms_key_arns : can(regex("^arn:aws[a-z-]*:kms:", arn))])
    error_message = "kms_key_arns must hold KMS key ARNs (arn:aws:kms:...)."
  }
}

variable "log_group_name" {
  description = "Name of the CloudWatch log group for the gateways' container logs (the observability module's gateway_log_group_name)."
  type        = string

  validation {
    condition     = length(var.log_group_name) > 0
    error_message = "log_group_name must not be empty."
  }
}

variable "metrics_log_group_name" {
  description = "Name of the CloudWatch log group that a collector sidecar writes the scraped /metrics to, as embedded metric format (the observability module's metrics_log_group_name). Null: no sidecar, no metrics in CloudWatch."
  type        = string
  default     = null
}

variable "metrics_namespace" {
  description = "CloudWatch namespace of the metrics scraped from /metrics."
  type        = string
  default     = "TideMQ"

  validation {
    condition     = length(var.metrics_namespace) > 0 && length(var.metrics_namespace) <= 255 && !startswith(var.metrics_namespace, "AWS/")
    error_message = "metrics_namespace must be 1 to 255 characters and not start with AWS/."
  }
}

variable "metric_selectors" {
  description = "Regular expressions of the Prometheus metric names sent to CloudWatch (each a custom metric per queue, billed per dimension set)."
  type        = list(string)
  default     = ["^tidemq_queue_"]
}

variable "collector_image" {
  description = "Image of the AWS Distro for OpenTelemetry collector sidecar that scrapes /metrics when metrics_log_group_name is set."
  type        = string
  default     = "public.ecr.aws/aws-observability/aws-otel-collector:v0.40.0"
}

variable "enable_execute_command" {
  description = "Whether operators may open a shell in a task with ECS Exec."
  type        = bool
  default     = false
}

variable "tags" {
  description = "Tags added to every resource the module creates."
  type        = map(string)
  default     = {}
}
