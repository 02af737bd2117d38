output "replication_group_id" {
  description = "ID of the ElastiCache replication group."
  value       = aws_elasticache_replication_group.this.id
}

output "replication_group_arn" {
  description = "ARN of the ElastiCache replication group."
  value       = aws_elasticache_replication_group.this.arn
}

output "endpoint_address" {
  description = "Address clients connect to: the configuration endpoint in cluster mode, the primary endpoint otherwise."
  value       = local.endpoint
}

output "reader_endpoint_address" {
  description = "Address of the replicas (not in cluster mode), for read-only tools."
  value       = aws_elasticache_replication_group.this.reader_endpoint_address
}

output "port" {
  description = "TCP port of the control plane."
  value       = var.port
}

output "member_cluster_ids" {
  description = "Cache cluster ids of every member node, known at plan time, for per-node CloudWatch alarms."
  value       = local.member_cluster_ids
}

output "security_group_id" {
  description = "ID of the control plane's security group."
  value       = aws_security_group.this.id
}

output "connection_secret_arn" {
  description = "ARN of the Secrets Manager secret holding JSON with `url` (for TIDEMQ_REDIS_URL), `auth_token`, `host` and `port`."
  value       = aws_secretsmanager_secret.connection.arn
}

output "parameter_group_name" {
  description = "Name of the parameter group (maxmemory-policy noeviction)."
  value       = aws_elasticache_parameter_group.this.name
}
