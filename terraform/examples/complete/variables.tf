variable "region" {
  description = "AWS region to deploy in."
  type        = string

  validation {
    condition     = can(regex("^[a-z]{2}(-[a-z]+)+-[0-9]$", var.region))
    error_message = "region must be an AWS region name, such as eu-west-1."
  }
}

variable "name" {
  description = "Name of the deployment; every resource is named after it."
  type        = string
  default     = "tidemq"

  validation {
    condition     = can(regex("^[a-z][a-z0-9-]{0,22}[a-z0-9]$", var.name))
    error_message = "name must be 2 to 24 lower-case letters, digits or hyphens, start with a letter and not end with a hyphen."
  }
}

variable "vpc_id" {
  description = "ID of the VPC to deploy in."
  type        = string

  validation {
    condition     = can(regex("^vpc-[0-9a-f]+$", var.vpc_id))
    error_message = "vpc_id must be a VPC id (vpc-...)."
  }
}

variable "public_subnet_ids" {
  description = "IDs of public subnets, in at least two Availability Zones, for the load balancer."
  type        = list(string)

  validation {
    condition     = length(var.public_subnet_ids) >= 2
    error_message = "public_subnet_ids must list at least two subnets."
  }
}

variable "private_subnet_ids" {
  description = "IDs of private subnets with a route to AWS APIs (NAT gateway or VPC endpoints), in at least two Availability Zones, for the gateways, the nodes and the control plane."
  type        = list(string)

  validation {
    condition     = length(var.private_subnet_ids) >= 2
    error_message = "private_subnet_ids must list at least two subnets."
  }
}

variable "certificate_arn" {
  description = "ARN of the ACM certificate for the gateways' HTTPS listener; point a DNS name it covers at the load balancer (output load_balancer_dns_name)."
  type        = string

  validation {
    condition     = can(regex("^arn:aws[a-z-]*:acm:", var.certificate_arn))
    error_message = "certificate_arn must be an ACM certificate ARN."
  }
}

variable "public_url" {
  description = "Base of the queue URLs the gateways return, the DNS name on the certificate, such as https://sqs.example.com. Null: from each request's Host header."
  type        = string
  default     = null
}

variable "ingress_cidr_blocks" {
  description = "IPv4 CIDR blocks that may reach the gateways."
  type        = list(string)

  validation {
    condition     = length(var.ingress_cidr_blocks) > 0
    error_message = "ingress_cidr_blocks must list at least one CIDR block."
  }
}

variable "image" {
  description = "Container image with the `tidemq` command, for the gateways and the nodes."
  type        = string
}

variable "archive_bucket_name" {
  description = "Name of the S3 bucket to create for the archive; globally unique."
  type        = string
}

variable "dead_letter_queues" {
  description = "Names of dead-letter queues to alarm on."
  type        = list(string)
  default     = []
}

variable "node_count" {
  description = "Storage nodes to run."
  type        = number
  default     = 3

  validation {
    condition     = var.node_count >= 1 && var.node_count <= 50 && floor(var.node_count) == var.node_count
    error_message = "node_count must be a whole number from 1 to 50."
  }
}

variable "lease_ttl_ms" {
  description = "TIDEMQ_LEASE_TTL_MS of the nodes and the gateways: a node stopped or cut off this long loses its partitions to another node."
  type        = number
  default     = 10000

  validation {
    condition     = var.lease_ttl_ms >= 1000 && var.lease_ttl_ms <= 600000 && floor(var.lease_ttl_ms) == var.lease_ttl_ms
    error_message = "lease_ttl_ms must be a whole number of milliseconds from 1000 to 600000."
  }
}

variable "replication" {
  description = "TIDEMQ_REPLICATION of the gateways: the Replication of new queues and topics that do not name one (none, replica or object; docs/durability.md)."
  type        = string
  default     = "replica"

  validation {
    condition     = contains(["none", "replica", "object"], var.replication)
    error_message = "replication must be none, replica or object."
  }
}

variable "node_request_timeout_ms" {
  description = "TIDEMQ_NODE_REQUEST_TIMEOUT_MS of the gateways: how long a request waits for a node (across a partition's move to a new owner) before it is answered 503."
  type        = number
  default     = 10000

  validation {
    condition     = var.node_request_timeout_ms >= 100 && var.node_request_timeout_ms <= 600000 && floor(var.node_request_timeout_ms) == var.node_request_timeout_ms
    error_message = "node_request_timeout_ms must be a whole number of milliseconds from 100 to 600000."
  }
}
