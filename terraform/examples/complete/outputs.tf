output "endpoint" {
  description = "URL of the gateways: give it to SQS clients as endpoint_url."
  value       = module.gateway.endpoint
}

output "load_balancer_dns_name" {
  description = "DNS name of the load balancer; point the certificate's DNS name at it (alias record)."
  value       = module.gateway.load_balancer_dns_name
}

output "admin_credentials_secret_arn" {
  description = "ARN of the secret holding the admin access key id and secret (JSON keys access_key_id, secret_access_key)."
  value       = aws_secretsmanager_secret.gateway_credentials.arn
}

output "archive_url" {
  description = "Where the archive is, for Spark jobs (docs/spark.md)."
  value       = module.object_store.archive_url
}

output "alarm_topic_arn" {
  description = "SNS topic of the alarms; subscribe the on-call to it."
  value       = module.observability.alarm_topic_arn
}

output "storage_nodes_autoscaling_group_name" {
  description = "Auto Scaling group of the storage nodes."
  value       = module.storage_nodes.autoscaling_group_name
}

output "kms_key_arn" {
  description = "ARN of the deployment's KMS key."
  value       = aws_kms_key.this.arn
}

output "storage_nodes_security_group_id" {
  description = "Security group of the storage nodes; their HTTP port (/healthz, /readyz, /metrics) opens to more groups through the module's metrics_scraper_security_groups."
  value       = module.storage_nodes.security_group_id
}

output "storage_nodes_ports" {
  description = "The storage nodes' ports: `node` for the node protocol (the gateways), `http` for /healthz, /readyz and /metrics."
  value = {
    node = module.storage_nodes.node_port
    http = module.storage_nodes.port
  }
}
