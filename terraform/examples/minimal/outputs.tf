output "endpoint" {
  description = "URL of TideMQ inside the VPC: give it to SQS clients as endpoint_url."
  value       = "http://${aws_instance.this.private_ip}:${local.port}"
}

output "instance_id" {
  description = "ID of the instance; `aws ssm start-session --target <id>` opens a shell, and `sudo cat /var/lib/tidemq/credentials.json` shows the admin credentials."
  value       = aws_instance.this.id
}

output "archive_url" {
  description = "Where the archive is, for Spark jobs (docs/spark.md)."
  value       = module.object_store.archive_url
}
