variable "name" {
  description = "Name of the deployment, as given to the other modules: log groups are `/tidemq/<name>/...`, and alarms select the TideMQ metrics whose `deployment` dimension is this name."
  type        = string

  validation {
    condition     = can(regex("^[a-z][a-z0-9-]{0,30}[a-z0-9]$", var.name))
    error_message = "name must be 2 to 32 lower-case letters, digits or hyphens, start with a letter and not end with a hyphen."
  }
}

variable "log_retention_days" {
  description = "Days CloudWatch keeps the gateways', nodes' and control plane's logs."
  type        = number
  default     = 365

  validation {
    condition     = contains([1, 3, 5, 7, 14, 30, 60, 90, 120, 150, 180, 365, 400, 545, 731, 1096, 1827, 2192, 2557, 2922, 3288, 3653], var.log_retention_days)
    error_message = "log_retention_days must be a retention CloudWatch Logs offers: 1, 3, 5, 7, 14, 30, 60, 90, 120, 150, 180, 365, 400, 545, 731, 1096, 1827, 2192, 2557, 2922, 3288 or 3653."
  }
}

variable "metrics_log_retention_days" {
  description = "Days CloudWatch keeps the embedded-metric-format log events the metrics are extracted from; the metrics themselves are kept by CloudWatch Metrics (15 months)."
  type        = number
  default     = 7

  validation {
    condition     = contains([1, 3, 5, 7, 14, 30, 60, 90, 120, 150, 180, 365], var.metrics_log_retention_days)
    error_message = "metrics_log_retention_days must be a retention CloudWatch Logs offers, up to 365."
  }
}

variable "kms_key_arn" {
  description = "ARN of a customer managed KMS key for the log groups and the alarm topic. Its key policy must let the CloudWatch Logs service (logs.<region>.amazonaws.com) and CloudWatch alarms (cloudwatch.amazonaws.com) use it. Null: log groups encrypted by CloudWatch, topic without server-side encryption (alarms cannot publish to a topic under the AWS managed SNS key)."
  type        = string
  default     = null

  validation {
    condition     = var.kms_key_arn == null || can(regex("^arn:aws[a-z-]*:kms:", var.kms_key_arn))
    error_message = "kms_key_arn must be a KMS key ARN (arn:aws:kms:...) or null."
  }
}

variable "metrics_namespace" {
  description = "CloudWatch namespace the gateways and nodes write TideMQ's metrics to (their metrics_namespace)."
  type        = string
  default     = "TideMQ"

  validation {
    condition     = length(var.metrics_namespace) > 0 && length(var.metrics_namespace) <= 255 && !startswith(var.metrics_namespace, "AWS/")
    error_message = "metrics_namespace must be 1 to 255 characters and not start with AWS/."
  }
}

variable "metric_names" {
  description = "Names of the Prometheus metrics that the alarms watch, as TideMQ exports them on /metrics."
  type = object({
    queue_oldest_message_age_seconds = optional(string, "tidemq_queue_oldest_message_age_seconds")
    queue_visible_messages           = optional(string, "tidemq_queue_visible_messages")
    tiering_lag_seconds              = optional(string, "tidemq_tiering_lag_seconds")
  })
  default = {}
}

variable "queue_age_threshold_s" {
  description = "Age in seconds of the oldest message of any queue above which the queue-age alarm fires (consumers are down or too slow)."
  type        = number
  default     = 900

  validation {
    condition     = var.queue_age_threshold_s > 0
    error_message = "queue_age_threshold_s must be positive."
  }
}

variable "dead_letter_queues" {
  description = "Names of the dead-letter queues to watch: each gets an alarm when it holds more than dlq_depth_threshold visible messages."
  type        = list(string)
  default     = []

  validation {
    condition     = alltrue([for queue in var.dead_letter_queues : can(regex("^[A-Za-z0-9_-]{1,80}(\\.fifo)?$", queue))])
    error_message = "dead_letter_queues must hold queue names (letters, digits, hyphens, underscores, up to 80, and .fifo)."
  }
}

variable "dlq_depth_threshold" {
  description = "Visible messages in a dead-letter queue above which its alarm fires; 0 fires at the first message."
  type        = number
  default     = 0

  validation {
    condition     = var.dlq_depth_threshold >= 0
    error_message = "dlq_depth_threshold must be 0 or more."
  }
}

variable "tiering_lag_threshold_s" {
  description = "Seconds the archive may fall behind the log on any node before the tiering-lag alarm fires. The lag is normally below TIDEMQ_SEGMENT_MS plus an upload; a growing lag fills the nodes' disks until publishes are refused."
  type        = number
  default     = 7200

  validation {
    condition     = var.tiering_lag_threshold_s > 0
    error_message = "tiering_lag_threshold_s must be positive."
  }
}

variable "gateway" {
  description = "The gateways' load balancer and target group (the gateway module's outputs), for alarms on 5xx answers and unhealthy tasks. Null: no such alarms."
  type = object({
    load_balancer_arn_suffix = string
    target_group_arn_suffix  = string
  })
  default = null
}

variable "gateway_5xx_threshold" {
  description = "5xx answers from the gateways per minute above which an alarm fires (503 is also how TideMQ refuses work it cannot take: a full disk budget, a control plane out of reach)."
  type        = number
  default     = 10

  validation {
    condition     = var.gateway_5xx_threshold >= 0
    error_message = "gateway_5xx_threshold must be 0 or more."
  }
}

variable "control_plane_member_cluster_ids" {
  description = "Cache cluster ids of the control plane's nodes (the control_plane module's member_cluster_ids), for memory alarms: a full control plane refuses writes."
  type        = list(string)
  default     = []
}

variable "control_plane_memory_threshold_percent" {
  description = "Memory use of a control plane node above which its alarm fires."
  type        = number
  default     = 80

  validation {
    condition     = var.control_plane_memory_threshold_percent > 0 && var.control_plane_memory_threshold_percent < 100
    error_message = "control_plane_memory_threshold_percent must be between 0 and 100."
  }
}

variable "storage_nodes" {
  description = "The storage nodes' Auto Scaling group and how many nodes should be in service, for an alarm when fewer are. Null: no such alarm."
  type = object({
    autoscaling_group_name = string
    expected_count         = number
  })
  default = null
}

variable "alarm_actions" {
  description = "More ARNs notified when an alarm fires or clears, besides the module's SNS topic (such as an incident tool's topic)."
  type        = list(string)
  default     = []
}

variable "tags" {
  description = "Tags added to every resource the module creates."
  type        = map(string)
  default     = {}
}
