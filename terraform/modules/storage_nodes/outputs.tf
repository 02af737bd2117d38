output "autoscaling_group_name" {
  description = "Name of the nodes' Auto Scaling group."
  value       = aws_autoscaling_group.this.name
}

output "autoscaling_group_arn" {
  description = "ARN of the nodes' Auto Scaling group."
  value       = aws_autoscaling_group.this.arn
}

output "security_group_id" {
  description = "ID of the nodes' security group."
  value       = aws_security_group.this.id
}

output "iam_role_arn" {
  description = "ARN of the nodes' IAM role, which the archive bucket's policy must allow."
  value       = aws_iam_role.this.arn
}

output "iam_role_name" {
  description = "Name of the nodes' IAM role, for attaching more policies."
  value       = aws_iam_role.this.name
}

output "launch_template_id" {
  description = "ID of the nodes' launch template."
  value       = aws_launch_template.this.id
}

output "port" {
  description = "TCP port of the nodes' HTTP for operators (TIDEMQ_PORT): /healthz, /readyz, /metrics."
  value       = var.port
}

output "node_port" {
  description = "TCP port of the nodes' node protocol (TIDEMQ_NODE_PORT), which the gateways reach: the gateway module's storage_nodes_port."
  value       = var.node_port
}

output "lease_ttl_ms" {
  description = "TIDEMQ_LEASE_TTL_MS of the nodes: give the gateways the same (the gateway module's lease_ttl_ms)."
  value       = var.lease_ttl_ms
}

output "archive_url" {
  description = "TIDEMQ_ARCHIVE_URL as the nodes have it."
  value       = local.archive_url
}

output "termination_hook_name" {
  description = "Name of the termination lifecycle hook that holds an instance while its node stops."
  value       = local.termination_hook_name
}
