output "endpoint" {
  description = "URL clients use: public_url when set, otherwise https:// and the load balancer's DNS name (point a DNS name on the certificate at it)."
  value       = coalesce(var.public_url, "https://${aws_lb.this.dns_name}")
}

output "load_balancer_arn" {
  description = "ARN of the load balancer."
  value       = aws_lb.this.arn
}

output "load_balancer_arn_suffix" {
  description = "ARN suffix of the load balancer, its CloudWatch LoadBalancer dimension."
  value       = aws_lb.this.arn_suffix
}

output "load_balancer_dns_name" {
  description = "DNS name of the load balancer, for an alias record."
  value       = aws_lb.this.dns_name
}

output "load_balancer_zone_id" {
  description = "Route 53 hosted zone id of the load balancer, for an alias record."
  value       = aws_lb.this.zone_id
}

output "target_group_arn_suffix" {
  description = "ARN suffix of the gateways' target group, its CloudWatch TargetGroup dimension."
  value       = aws_lb_target_group.this.arn_suffix
}

output "task_security_group_id" {
  description = "ID of the gateway tasks' security group, which the control plane and the nodes must admit."
  value       = aws_security_group.tasks.id
}

output "load_balancer_security_group_id" {
  description = "ID of the load balancer's security group."
  value       = aws_security_group.alb.id
}

output "cluster_name" {
  description = "Name of the ECS cluster."
  value       = aws_ecs_cluster.this.name
}

output "service_name" {
  description = "Name of the ECS service."
  value       = aws_ecs_service.this.name
}

output "task_role_arn" {
  description = "ARN of the tasks' IAM role."
  value       = aws_iam_role.task.arn
}

output "execution_role_arn" {
  description = "ARN of the task execution role (image pull, logs, secrets)."
  value       = aws_iam_role.execution.arn
}
