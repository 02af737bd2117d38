variable "name" {
  description = "Name of the deployment. Resources are named `<name>-nodes...`; the nodes' metrics carry it as their `deployment` dimension."
  type        = string

  validation {
    condition     = can(regex("^[a-z][a-z0-9-]{0,30}[a-z0-9]$", var.name))
    error_message = "name must be 2 to 32 lower-case letters, digits or hyphens, start with a letter and not end with a hyphen."
  }
}

variable "vpc_id" {
  description = "ID of the VPC the nodes run in."
  type        = string

  validation {
    condition     = can(regex("^vpc-[0-9a-f]+$", var.vpc_id))
    error_message = "vpc_id must be a VPC id (vpc-...)."
  }
}

variable "subnet_ids" {
  description = "IDs of private subnets for the nodes, one per Availability Zone to spread them. They need a route to S3, Secrets Manager, CloudWatch, Auto Scaling and the image registry (a NAT gateway or VPC endpoints)."
  type        = list(string)

  validation {
    condition     = length(var.subnet_ids) > 0 && alltrue([for id in var.subnet_ids : can(regex("^subnet-[0-9a-f]+$", id))])
    error_message = "subnet_ids must list at least one subnet id (subnet-...)."
  }
}

variable "image" {
  description = "Container image with the `tidemq` command, as `registry/repository:tag` (a digest pins it best). Runs as `tidemq node`."
  type        = string

  validation {
    condition     = length(trimspace(var.image)) > 0 && !can(regex("\\s", var.image))
    error_message = "image must be a container image reference without spaces."
  }
}

variable "ecr_repository_arns" {
  description = "ARNs of the ECR repositories the image is pulled from, if it is in ECR; the nodes may pull from these only."
  type        = list(string)
  default     = []

  validation {
    condition     = alltrue([for arn in var.ecr_repository_arns : can(regex("^arn:aws[a-z-]*:ecr:", arn))])
    error_message = "ecr_repository_arns must hold ECR repository ARNs (arn:aws:ecr:...)."
  }
}

variable "instance_type" {
  description = "EC2 instance type of a node. Its architecture must match `architecture` and the image."
  type        = string
  default     = "m7i.large"
}

variable "architecture" {
  description = "CPU architecture of the instances and the image: `x86_64` or `arm64` (Graviton)."
  type        = string
  default     = "x86_64"

  validation {
    condition     = contains(["x86_64", "arm64"], var.architecture)
    error_message = "architecture must be x86_64 or arm64."
  }
}

variable "ami_id" {
  description = "AMI of the nodes, an Amazon Linux 2023 image (the bootstrap uses dnf and its EBS device names). Null: the latest Amazon Linux 2023 AMI, resolved by EC2 at each launch from its public SSM parameter."
  type        = string
  default     = null

  validation {
    condition     = var.ami_id == null || can(regex("^ami-[0-9a-f]+$", var.ami_id))
    error_message = "ami_id must be an AMI id (ami-...) or null."
  }
}

variable "min_size" {
  description = "Least number of nodes. Partitions are spread over the live nodes by rendezvous hashing; a lost node's partitions move to the others."
  type        = number
  default     = 3

  validation {
    condition     = var.min_size >= 1 && floor(var.min_size) == var.min_size
    error_message = "min_size must be a whole number, at least 1."
  }
}

variable "max_size" {
  description = "Most nodes. At least desired_capacity + 1, so that an instance refresh can launch a replacement before stopping a node."
  type        = number
  default     = 6

  validation {
    condition     = var.max_size >= 1 && floor(var.max_size) == var.max_size
    error_message = "max_size must be a whole number, at least 1."
  }
}

variable "desired_capacity" {
  description = "Nodes to run. A node added takes the partitions that have no live holder (new queues, a lost node's); partitions stay with their holder until it leaves."
  type        = number
  default     = 3

  validation {
    condition     = var.desired_capacity >= 1 && floor(var.desired_capacity) == var.desired_capacity
    error_message = "desired_capacity must be a whole number, at least 1."
  }
}

variable "port" {
  description = "TCP port of the node's HTTP for operators (TIDEMQ_PORT): /healthz, /readyz and /metrics only. The on-instance liveness check and the CloudWatch agent reach it on 127.0.0.1; other scrapers need `metrics_scraper_security_groups`."
  type        = number
  default     = 9401

  validation {
    condition     = var.port >= 1024 && var.port <= 65535 && floor(var.port) == var.port
    error_message = "port must be a whole number from 1024 to 65535."
  }
}

variable "node_port" {
  description = "TCP port of the node protocol (TIDEMQ_NODE_PORT), the binary protocol the gateways send appends and reads over (docs/cluster.md). Opened to `allowed_security_groups`."
  type        = number
  default     = 9400

  validation {
    condition     = var.node_port >= 1024 && var.node_port <= 65535 && floor(var.node_port) == var.node_port
    error_message = "node_port must be a whole number from 1024 to 65535."
  }
}

variable "lease_ttl_ms" {
  description = "TIDEMQ_LEASE_TTL_MS: a partition lease's and a node registration's time to live. A node stopped or cut off this long loses its partitions to another node. Give the gateways the same value (the module's output `lease_ttl_ms`)."
  type        = number
  default     = 10000

  validation {
    condition     = var.lease_ttl_ms >= 1000 && var.lease_ttl_ms <= 600000 && floor(var.lease_ttl_ms) == var.lease_ttl_ms
    error_message = "lease_ttl_ms must be a whole number of milliseconds from 1000 to 600000."
  }
}

variable "allowed_security_groups" {
  description = "Security groups whose members may reach the nodes' node protocol port (`node_port`), by a label of your choice: the gateways'. The labels are map keys so that the rules plan before the groups exist."
  type        = map(string)
}

variable "metrics_scraper_security_groups" {
  description = "Security groups whose members may reach the nodes' HTTP port (`port`: /healthz, /readyz, /metrics), such as a Prometheus server's, by a label of your choice. Empty: only the instance itself reaches it (its liveness check and CloudWatch agent)."
  type        = map(string)
  default     = {}

  validation {
    condition     = alltrue([for id in values(var.metrics_scraper_security_groups) : can(regex("^sg-[0-9a-f]+$", id))])
    error_message = "metrics_scraper_security_groups values must be security group ids (sg-...)."
  }
}

variable "control_plane_security_group_id" {
  description = "ID of the control plane's security group; the nodes get an egress rule to it."
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

variable "redis_url_secret_arn" {
  description = "ARN of the Secrets Manager secret whose JSON key `url` is the control plane's rediss:// (or rediss+cluster://) URL (the control_plane module's connection_secret_arn). Read at every start into TIDEMQ_REDIS_URL."
  type        = string

  validation {
    condition     = can(regex("^arn:aws[a-z-]*:secretsmanager:", var.redis_url_secret_arn))
    error_message = "redis_url_secret_arn must be a Secrets Manager secret ARN."
  }
}

variable "archive_bucket_arn" {
  description = "ARN of the archive bucket (the object_store module's bucket_arn)."
  type        = string

  validation {
    condition     = can(regex("^arn:aws[a-z-]*:s3:::[a-z0-9][a-z0-9.-]+$", var.archive_bucket_arn))
    error_message = "archive_bucket_arn must be an S3 bucket ARN (arn:aws:s3:::bucket)."
  }
}

variable "archive_prefix" {
  description = "Key prefix of the archive in the bucket (the object_store module's archive_prefix). The nodes' IAM policy reaches no key outside it."
  type        = string

  validation {
    condition     = length(var.archive_prefix) > 0 && !startswith(var.archive_prefix, "/") && !endswith(var.archive_prefix, "/")
    error_message = "archive_prefix must be non-empty, without a leading or trailing slash."
  }
}

variable "kms_key_arns" {
  description = "Customer managed KMS keys the nodes encrypt and decrypt with: the archive bucket's and the secrets' keys, when they are not AWS managed."
  type        = list(string)
  default     = []

  validation {
    condition     = alltrue([for arn in var.kms_key_arns : can(regex("^arn:aws[a-z-]*:kms:", arn))])
    error_message = "kms_key_arns must hold KMS key ARNs (arn:aws:kms:...)."
  }
}

variable "ebs_kms_key_arn" {
  description = "ARN of a customer managed KMS key for the root and data volumes. Null: the account's default EBS key. A customer managed key must let the Auto Scaling service-linked role use it."
  type        = string
  default     = null

  validation {
    condition     = var.ebs_kms_key_arn == null || can(regex("^arn:aws[a-z-]*:kms:", var.ebs_kms_key_arn))
    error_message = "ebs_kms_key_arn must be a KMS key ARN (arn:aws:kms:...) or null."
  }
}

variable "data_volume_size_gib" {
  description = "Size of each node's gp3 data volume (TIDEMQ_DATA_DIR): the un-tiered tail of its partitions, tiered segments within local retention, and the archive read cache."
  type        = number
  default     = 200

  validation {
    condition     = var.data_volume_size_gib >= 10 && var.data_volume_size_gib <= 65536 && floor(var.data_volume_size_gib) == var.data_volume_size_gib
    error_message = "data_volume_size_gib must be a whole number from 10 to 65536."
  }
}

variable "data_volume_iops" {
  description = "Provisioned IOPS of the gp3 data volume. 3000 is included in gp3's price; fsync-heavy durability (`fsync`) benefits from more."
  type        = number
  default     = 3000

  validation {
    condition     = var.data_volume_iops >= 3000 && var.data_volume_iops <= 80000 && floor(var.data_volume_iops) == var.data_volume_iops
    error_message = "data_volume_iops must be a whole number from 3000 to 80000."
  }
}

variable "data_volume_throughput_mibps" {
  description = "Provisioned throughput of the gp3 data volume in MiB/s; 125 is included in gp3's price."
  type        = number
  default     = 250

  validation {
    condition     = var.data_volume_throughput_mibps >= 125 && var.data_volume_throughput_mibps <= 2000 && floor(var.data_volume_throughput_mibps) == var.data_volume_throughput_mibps
    error_message = "data_volume_throughput_mibps must be a whole number from 125 to 2000."
  }
}

variable "root_volume_size_gib" {
  description = "Size of the root volume (the OS, Docker and the image)."
  type        = number
  default     = 30

  validation {
    condition     = var.root_volume_size_gib >= 8 && floor(var.root_volume_size_gib) == var.root_volume_size_gib
    error_message = "root_volume_size_gib must be a whole number, at least 8."
  }
}

variable "disk_budget_percent" {
  description = "Share of the data volume that the partitions' local segments may fill (TIDEMQ_DISK_BUDGET_BYTES); past it publishes get 503 until tiering catches up. The rest is headroom for the archive cache and the file system."
  type        = number
  default     = 80

  validation {
    condition     = var.disk_budget_percent >= 10 && var.disk_budget_percent <= 95
    error_message = "disk_budget_percent must be from 10 to 95."
  }
}

variable "durability" {
  description = "TIDEMQ_DURABILITY: when a publish is acknowledged; `fsync` (after the batch is on disk, group commit), `interval` or `none`."
  type        = string
  default     = "fsync"

  validation {
    condition     = contains(["fsync", "interval", "none"], var.durability)
    error_message = "durability must be fsync, interval or none."
  }
}

variable "archive_retention_days" {
  description = "Days the archive keeps segments (TIDEMQ_ARCHIVE_RETENTION_MS). Null: forever. At least 14, SQS's longest message retention, so that no message still in a queue leaves the archive."
  type        = number
  default     = null

  validation {
    condition     = var.archive_retention_days == null || try(var.archive_retention_days >= 14 && floor(var.archive_retention_days) == var.archive_retention_days, false)
    error_message = "archive_retention_days must be null or a whole number of days, at least 14."
  }
}

variable "environment" {
  description = "More TIDEMQ_* settings for `tidemq node`, such as TIDEMQ_SEGMENT_BYTES (docs/tiering.md). Settings this module derives from its own variables cannot be set here."
  type        = map(string)
  default     = {}

  validation {
    condition = alltrue([
      for key, value in var.environment :
      can(regex("^TIDEMQ_[A-Z0-9_]+$", key)) && !strcontains(value, "\n") && !contains([
        "TIDEMQ_HOST", "TIDEMQ_PORT", "TIDEMQ_NODE_PORT", "TIDEMQ_NODE_ADDRESS", "TIDEMQ_DATA_DIR",
        "TIDEMQ_REDIS_URL", "TIDEMQ_ARCHIVE_URL", "TIDEMQ_S3_REGION", "TIDEMQ_DURABILITY",
        "TIDEMQ_DISK_BUDGET_BYTES", "TIDEMQ_ARCHIVE_RETENTION_MS", "TIDEMQ_LEASE_TTL_MS", "TIDEMQ_LOG_FORMAT",
      ], key)
    ])
    error_message = "environment keys must be TIDEMQ_* settings not derived by the module (host, ports, node address, data dir, Redis URL, archive URL, S3 region, durability, disk budget, archive retention, lease TTL, log format), with single-line values."
  }
}

variable "secrets" {
  description = "More settings read from Secrets Manager at every start: environment variable name => the secret's ARN and, for a JSON secret, the key to take."
  type = map(object({
    secret_arn = string
    json_key   = optional(string)
  }))
  default = {}

  validation {
    condition = alltrue([
      for key, secret in var.secrets :
      can(regex("^TIDEMQ_[A-Z0-9_]+$", key)) && key != "TIDEMQ_REDIS_URL" && can(regex("^arn:aws[a-z-]*:secretsmanager:", secret.secret_arn))
    ])
    error_message = "secrets keys must be TIDEMQ_* settings other than TIDEMQ_REDIS_URL, each with a Secrets Manager secret ARN."
  }
}

variable "termination_grace_period_s" {
  description = "Seconds a terminating node has after SIGTERM to finish in-flight appends, hand its partitions over and release its leases, before it is killed. The hand-over seals each partition's active segment and uploads what the archive lacks: at most one segment per partition (TIDEMQ_SEGMENT_BYTES, 128 MiB by default) plus any tiering backlog, so allow that many bytes at the instance's S3 upload rate. The termination lifecycle hook holds the instance this long plus a minute."
  type        = number
  default     = 300

  validation {
    condition     = var.termination_grace_period_s >= 30 && var.termination_grace_period_s <= 7080 && floor(var.termination_grace_period_s) == var.termination_grace_period_s
    error_message = "termination_grace_period_s must be a whole number from 30 to 7080 (the lifecycle hook's limit less a minute)."
  }
}

variable "health_check_grace_period_s" {
  description = "Seconds after launch before the node's liveness (/healthz) is checked: boot, image pull and partition recovery."
  type        = number
  default     = 300

  validation {
    condition     = var.health_check_grace_period_s >= 60 && floor(var.health_check_grace_period_s) == var.health_check_grace_period_s
    error_message = "health_check_grace_period_s must be a whole number of seconds, at least 60."
  }
}

variable "instance_refresh_min_healthy_percentage" {
  description = "Share of nodes that stay in service while an instance refresh replaces them after a launch template change; with 3 nodes, 66 replaces one at a time."
  type        = number
  default     = 66

  validation {
    condition     = var.instance_refresh_min_healthy_percentage >= 0 && var.instance_refresh_min_healthy_percentage <= 100
    error_message = "instance_refresh_min_healthy_percentage must be from 0 to 100."
  }
}

variable "log_group_name" {
  description = "Name of the CloudWatch log group for the nodes' container logs (the observability module's node_log_group_name)."
  type        = string

  validation {
    condition     = length(var.log_group_name) > 0
    error_message = "log_group_name must not be empty."
  }
}

variable "metrics_log_group_name" {
  description = "Name of the CloudWatch log group that the CloudWatch agent writes the scraped /metrics to, as embedded metric format (the observability module's metrics_log_group_name). Null: no metrics in CloudWatch."
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
  description = "Regular expressions of the Prometheus metric names sent to CloudWatch (each a custom metric, billed per dimension set)."
  type        = list(string)
  default     = ["^tidemq_tiering_", "^tidemq_fsync_"]
}

variable "enable_ssm_session_manager" {
  description = "Whether the nodes' role has AmazonSSMManagedInstanceCore, for shell access through Session Manager (the nodes have no SSH)."
  type        = bool
  default     = true
}

variable "tags" {
  description = "Tags added to every resource the module creates, and to the instances and volumes it launches."
  type        = map(string)
  default     = {}
}
