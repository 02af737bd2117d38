# Observability: the log groups every part writes to, an SNS topic for alarms, and
# alarms on what tells an operator that messages are not flowing: the age of the oldest
# message in any queue, messages reaching a dead-letter queue, and the archive falling
# behind. TideMQ's own metrics reach CloudWatch from /metrics, scraped on each gateway
# task and node (the gateway and storage_nodes modules), with a `deployment` dimension.

data "aws_caller_identity" "current" {}

locals {
  log_group_prefix = "/tidemq/${var.name}"
  alarm_actions    = concat([aws_sns_topic.alarms.arn], var.alarm_actions)
  deployment       = { deployment = var.name }

  # One spec per alarm; the keys name the alarms and are known at plan time.
  alarms = merge(
    {
      queue-age = {
        description        = "The oldest message of a queue is older than ${var.queue_age_threshold_s} s: its consumers are down or falling behind."
        namespace          = var.metrics_namespace
        metric_name        = var.metric_names.queue_oldest_message_age_seconds
        dimensions         = local.deployment
        statistic          = "Maximum"
        period             = 60
        evaluation_periods = 5
        comparison         = "GreaterThanThreshold"
        threshold          = var.queue_age_threshold_s
        treat_missing_data = "notBreaching"
      }
      tiering-lag = {
        description        = "The archive is more than ${var.tiering_lag_threshold_s} s behind the log on a node: uploads are failing or too slow, and local disks fill."
        namespace          = var.metrics_namespace
        metric_name        = var.metric_names.tiering_lag_seconds
        dimensions         = local.deployment
        statistic          = "Maximum"
        period             = 300
        evaluation_periods = 3
        comparison         = "GreaterThanThreshold"
        threshold          = var.tiering_lag_threshold_s
        treat_missing_data = "notBreaching"
      }
    },
    {
      for queue in var.dead_letter_queues : "dlq-${replace(queue, ".", "-")}" => {
        description        = "Dead-letter queue ${queue} holds more than ${var.dlq_depth_threshold} messages: messages failed processing maxReceiveCount times."
        namespace          = var.metrics_namespace
        metric_name        = var.metric_names.queue_visible_messages
        dimensions         = merge(local.deployment, { queue = queue })
        statistic          = "Maximum"
        period             = 60
        evaluation_periods = 1
        comparison         = "GreaterThanThreshold"
        threshold          = var.dlq_depth_threshold
        treat_missing_data = "notBreaching"
      }
    },
    var.gateway == null ? {} : {
      gateway-5xx = {
        description        = "The gateways answered more than ${var.gateway_5xx_threshold} 5xx per minute."
        namespace          = "AWS/ApplicationELB"
        metric_name        = "HTTPCode_Target_5XX_Count"
        dimensions         = { LoadBalancer = var.gateway.load_balancer_arn_suffix, TargetGroup = var.gateway.target_group_arn_suffix }
        statistic          = "Sum"
        period             = 60
        evaluation_periods = 5
        comparison         = "GreaterThanThreshold"
        threshold          = var.gateway_5xx_threshold
        treat_missing_data = "notBreaching"
      }
      gateway-unhealthy-tasks = {
        description        = "A gateway task fails /readyz: it cannot reach the control plane."
        namespace          = "AWS/ApplicationELB"
        metric_name        = "UnHealthyHostCount"
        dimensions         = { LoadBalancer = var.gateway.load_balancer_arn_suffix, TargetGroup = var.gateway.target_group_arn_suffix }
        statistic          = "Maximum"
        period             = 60
        evaluation_periods = 5
        comparison         = "GreaterThanThreshold"
        threshold          = 0
        treat_missing_data = "notBreaching"
      }
    },
    {
      for id in var.control_plane_member_cluster_ids : "control-plane-memory-${id}" => {
        description        = "Control plane node ${id} uses more than ${var.control_plane_memory_threshold_percent}% of its memory; when full it refuses writes (noeviction). Scale the node type or add shards."
        namespace          = "AWS/ElastiCache"
        metric_name        = "DatabaseMemoryUsagePercentage"
        dimensions         = { CacheClusterId = id }
        statistic          = "Maximum"
        period             = 300
        evaluation_periods = 2
        comparison         = "GreaterThanThreshold"
        threshold          = var.control_plane_memory_threshold_percent
        treat_missing_data = "missing"
      }
    },
    var.storage_nodes == null ? {} : {
      nodes-in-service = {
        description        = "Fewer than ${var.storage_nodes.expected_count} storage nodes are in service for 10 minutes."
        namespace          = "AWS/AutoScaling"
        metric_name        = "GroupInServiceInstances"
        dimensions         = { AutoScalingGroupName = var.storage_nodes.autoscaling_group_name }
        statistic          = "Minimum"
        period             = 60
        evaluation_periods = 10
        comparison         = "LessThanThreshold"
        threshold          = var.storage_nodes.expected_count
        treat_missing_data = "breaching"
      }
    },
  )
}

# --- logs ----------------------------------------------------------------------------

resource "aws_cloudwatch_log_group" "gateways" {
  #checkov:skip=CKV_AWS_158:Encrypted with kms_key_arn when set; CloudWatch Logs encrypts with its own keys otherwise, which the operator chooses (variables.tf).
  name              = "${local.log_group_prefix}/gateways"
  retention_in_days = var.log_retention_days
  kms_key_id        = var.kms_key_arn

  tags = var.tags
}

resource "aws_cloudwatch_log_group" "nodes" {
  #checkov:skip=CKV_AWS_158:Encrypted with kms_key_arn when set; CloudWatch Logs encrypts with its own keys otherwise, which the operator chooses (variables.tf).
  name              = "${local.log_group_prefix}/nodes"
  retention_in_days = var.log_retention_days
  kms_key_id        = var.kms_key_arn

  tags = var.tags
}

resource "aws_cloudwatch_log_group" "control_plane" {
  #checkov:skip=CKV_AWS_158:Encrypted with kms_key_arn when set; CloudWatch Logs encrypts with its own keys otherwise, which the operator chooses (variables.tf).
  name              = "${local.log_group_prefix}/control-plane"
  retention_in_days = var.log_retention_days
  kms_key_id        = var.kms_key_arn

  tags = var.tags
}

resource "aws_cloudwatch_log_group" "metrics" {
  #checkov:skip=CKV_AWS_158:Encrypted with kms_key_arn when set; CloudWatch Logs encrypts with its own keys otherwise, which the operator chooses (variables.tf).
  #checkov:skip=CKV_AWS_338:These events only carry metrics (embedded metric format), extracted into CloudWatch Metrics at ingestion; a year of them would be paid for twice.
  name              = "${local.log_group_prefix}/metrics"
  retention_in_days = var.metrics_log_retention_days
  kms_key_id        = var.kms_key_arn

  tags = var.tags
}

# --- alarms --------------------------------------------------------------------------

resource "aws_sns_topic" "alarms" {
  #checkov:skip=CKV_AWS_26:Encrypted with kms_key_arn when set. CloudWatch alarms cannot publish to a topic under the AWS managed SNS key, so without a customer managed key the topic is not encrypted at rest; alarm texts hold no message data.
  name              = "${var.name}-alarms"
  kms_master_key_id = var.kms_key_arn

  tags = var.tags
}

resource "aws_sns_topic_policy" "alarms" {
  arn = aws_sns_topic.alarms.arn
  policy = jsonencode({
    Version = "2012-10-17"
    Statement = [
      {
        # Only this account's alarms (the confused deputy: another account's alarm
        # naming this topic).
        Sid       = "CloudWatchAlarmsPublish"
        Effect    = "Allow"
        Principal = { Service = "cloudwatch.amazonaws.com" }
        Action    = "sns:Publish"
        Resource  = aws_sns_topic.alarms.arn
        Condition = { StringEquals = { "aws:SourceAccount" = data.aws_caller_identity.current.account_id } }
      },
      {
        Sid       = "DenyInsecureTransport"
        Effect    = "Deny"
        Principal = "*"
        Action    = "sns:Publish"
        Resource  = aws_sns_topic.alarms.arn
        Condition = { Bool = { "aws:SecureTransport" = "false" } }
      },
    ]
  })
}

resource "aws_cloudwatch_metric_alarm" "this" {
  for_each = local.alarms

  alarm_name          = "${var.name}-${each.key}"
  alarm_description   = each.value.description
  namespace           = each.value.namespace
  metric_name         = each.value.metric_name
  dimensions          = each.value.dimensions
  statistic           = each.value.statistic
  period              = each.value.period
  evaluation_periods  = each.value.evaluation_periods
  datapoints_to_alarm = each.value.evaluation_periods
  comparison_operator = each.value.comparison
  threshold           = each.value.threshold
  treat_missing_data  = each.value.treat_missing_data
  alarm_actions       = local.alarm_actions
  ok_actions          = local.alarm_actions

  tags = var.tags
}
