output "gateway_log_group_name" {
  description = "Log group of the gateways' containers (the gateway module's log_group_name)."
  value       = aws_cloudwatch_log_group.gateways.name
}

output "node_log_group_name" {
  description = "Log group of the storage nodes' containers (the storage_nodes module's log_group_name)."
  value       = aws_cloudwatch_log_group.nodes.name
}

output "control_plane_log_group_name" {
  description = "Log group of the control plane's slow log (the control_plane module's slow_log_group_name)."
  value       = aws_cloudwatch_log_group.control_plane.name
}

output "metrics_log_group_name" {
  description = "Log group the scraped /metrics are written to as embedded metric format (the gateway and storage_nodes modules' metrics_log_group_name)."
  value       = aws_cloudwatch_log_group.metrics.name
}

output "log_group_arns" {
  description = "ARNs of every log group, by role: gateways, nodes, control_plane, metrics."
  value = {
    gateways      = aws_cloudwatch_log_group.gateways.arn
    nodes         = aws_cloudwatch_log_group.nodes.arn
    control_plane = aws_cloudwatch_log_group.control_plane.arn
    metrics       = aws_cloudwatch_log_group.metrics.arn
  }
}

output "alarm_topic_arn" {
  description = "ARN of the SNS topic every alarm notifies; subscribe people and tools to it."
  value       = aws_sns_topic.alarms.arn
}

output "alarm_names" {
  description = "Names of the alarms, by key (queue-age, tiering-lag, dlq-<queue>, gateway-5xx, ...)."
  value       = { for key, alarm in aws_cloudwatch_metric_alarm.this : key => alarm.alarm_name }
}

output "metrics_namespace" {
  description = "CloudWatch namespace the alarms read TideMQ's metrics from."
  value       = var.metrics_namespace
}
