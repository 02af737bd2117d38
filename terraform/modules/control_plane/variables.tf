variable "name" {
  description = "Name of the deployment: the replication group, its parameter and subnet groups, security group and secret are named after it."
  type        = string

  validation {
    # A replication group id: 1 to 40 characters, a letter first, no two hyphens in a row.
    condition     = can(regex("^[a-z][a-z0-9-]{0,39}$", var.name)) && !can(regex("--|-$", var.name))
    error_message = "name must be 1 to 40 lower-case letters, digits or hyphens, start with a letter, and neither end with a hyphen nor hold two in a row."
  }
}

variable "vpc_id" {
  description = "ID of the VPC the control plane runs in."
  type        = string

  validation {
    condition     = can(regex("^vpc-[0-9a-f]+$", var.vpc_id))
    error_message = "vpc_id must be a VPC id (vpc-...)."
  }
}

variable "subnet_ids" {
  description = "IDs of private subnets, in at least two Availability Zones, for the cache nodes."
  type        = list(string)

  validation {
    condition     = length(var.subnet_ids) >= 2 && alltrue([for id in var.subnet_ids : can(regex("^subnet-[0-9a-f]+$", id))])
    error_message = "subnet_ids must list at least two subnet ids (subnet-...), for Multi-AZ."
  }
}

variable "allowed_security_groups" {
  description = "Security groups whose members may connect, by a label of your choice: the storage nodes' and the gateways'. The labels are map keys so that the rules plan before the groups exist."
  type        = map(string)

  validation {
    condition     = length(var.allowed_security_groups) > 0
    error_message = "allowed_security_groups must name at least one security group: nothing else can reach the control plane."
  }
}

variable "engine" {
  description = "Cache engine: `valkey` (the BSD-licensed continuation of Redis, which TideMQ runs embedded) or `redis`."
  type        = string
  default     = "valkey"

  validation {
    condition     = contains(["valkey", "redis"], var.engine)
    error_message = "engine must be valkey or redis."
  }
}

variable "engine_version" {
  description = "Engine version, major.minor (8.1 for Valkey, 7.1 for Redis OSS). The parameter group family follows from the engine and the major version."
  type        = string
  default     = "8.1"

  validation {
    condition     = can(regex("^[0-9]+\\.[0-9]+$", var.engine_version))
    error_message = "engine_version must be major.minor, such as 8.1."
  }
}

variable "node_type" {
  description = "Cache node type. TideMQ keeps only references, cursors and timers in the control plane, not message bodies (docs/control-plane.md): memory grows with in-flight and delayed messages."
  type        = string
  default     = "cache.r7g.large"

  validation {
    condition     = startswith(var.node_type, "cache.")
    error_message = "node_type must be an ElastiCache node type (cache....)."
  }
}

variable "port" {
  description = "TCP port the cache listens on."
  type        = number
  default     = 6379

  validation {
    condition     = var.port >= 1024 && var.port <= 65535 && floor(var.port) == var.port
    error_message = "port must be a whole number from 1024 to 65535."
  }
}

variable "cluster_mode_enabled" {
  description = "Whether to run in cluster mode, with num_node_groups shards. TideMQ's scripts keep each operation's keys in one hash slot (DESIGN.md section 5), so they run on a cluster unchanged."
  type        = bool
  default     = false
}

variable "num_node_groups" {
  description = "Shards in cluster mode. Ignored (one shard) when cluster_mode_enabled is false."
  type        = number
  default     = 3

  validation {
    condition     = var.num_node_groups >= 1 && var.num_node_groups <= 500 && floor(var.num_node_groups) == var.num_node_groups
    error_message = "num_node_groups must be a whole number from 1 to 500."
  }
}

variable "replicas_per_node_group" {
  description = "Replicas of each shard's primary, spread over the subnets' Availability Zones. At least 1: Multi-AZ failover needs a replica to promote."
  type        = number
  default     = 1

  validation {
    condition     = var.replicas_per_node_group >= 1 && var.replicas_per_node_group <= 5 && floor(var.replicas_per_node_group) == var.replicas_per_node_group
    error_message = "replicas_per_node_group must be a whole number from 1 to 5."
  }
}

variable "parameters" {
  description = "Extra engine parameters for the parameter group. `maxmemory-policy` is always `noeviction` (an evicted lease or timer would lose messages) and `cluster-enabled` follows cluster_mode_enabled; neither may be set here."
  type = list(object({
    name  = string
    value = string
  }))
  default = []

  validation {
    condition     = alltrue([for p in var.parameters : !contains(["maxmemory-policy", "cluster-enabled"], p.name)])
    error_message = "parameters must not set maxmemory-policy or cluster-enabled: the module sets them."
  }
}

variable "kms_key_arn" {
  description = "ARN of a customer managed KMS key for encryption at rest of the cache and its snapshots, and of the connection secret. Null: AWS managed keys."
  type        = string
  default     = null

  validation {
    condition     = var.kms_key_arn == null || can(regex("^arn:aws[a-z-]*:kms:", var.kms_key_arn))
    error_message = "kms_key_arn must be a KMS key ARN (arn:aws:kms:...) or null."
  }
}

variable "snapshot_retention_days" {
  description = "Days automatic daily snapshots are kept; 0 turns them off."
  type        = number
  default     = 7

  validation {
    condition     = var.snapshot_retention_days >= 0 && var.snapshot_retention_days <= 35 && floor(var.snapshot_retention_days) == var.snapshot_retention_days
    error_message = "snapshot_retention_days must be a whole number from 0 to 35."
  }
}

variable "snapshot_window" {
  description = "Daily UTC window of the automatic snapshot, hh24:mi-hh24:mi, at least 60 minutes, not overlapping maintenance_window."
  type        = string
  default     = "03:00-04:00"

  validation {
    condition     = can(regex("^([01][0-9]|2[0-3]):[0-5][0-9]-([01][0-9]|2[0-3]):[0-5][0-9]$", var.snapshot_window))
    error_message = "snapshot_window must be hh24:mi-hh24:mi."
  }
}

variable "maintenance_window" {
  description = "Weekly UTC maintenance window, ddd:hh24:mi-ddd:hh24:mi."
  type        = string
  default     = "sun:05:00-sun:06:00"

  validation {
    condition     = can(regex("^(mon|tue|wed|thu|fri|sat|sun):([01][0-9]|2[0-3]):[0-5][0-9]-(mon|tue|wed|thu|fri|sat|sun):([01][0-9]|2[0-3]):[0-5][0-9]$", var.maintenance_window))
    error_message = "maintenance_window must be ddd:hh24:mi-ddd:hh24:mi, such as sun:05:00-sun:06:00."
  }
}

variable "slow_log_group_name" {
  description = "Name of a CloudWatch log group that receives the engine's slow log (the observability module's control_plane_log_group_name). Null: no slow log delivery."
  type        = string
  default     = null
}

variable "apply_immediately" {
  description = "Whether changes apply at once rather than in the next maintenance window. A node type change restarts nodes one at a time."
  type        = bool
  default     = false
}

variable "secret_recovery_window_days" {
  description = "Days a deleted connection secret can still be restored; 0 deletes it at once."
  type        = number
  default     = 7

  validation {
    condition     = var.secret_recovery_window_days == 0 || (var.secret_recovery_window_days >= 7 && var.secret_recovery_window_days <= 30)
    error_message = "secret_recovery_window_days must be 0 or a number from 7 to 30."
  }
}

variable "tags" {
  description = "Tags added to every resource the module creates."
  type        = map(string)
  default     = {}
}
