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
  default     = "tidemq-minimal"

  validation {
    condition     = can(regex("^[a-z][a-z0-9-]{0,30}[a-z0-9]$", var.name))
    error_message = "name must be 2 to 32 lower-case letters, digits or hyphens, start with a letter and not end with a hyphen."
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

variable "subnet_id" {
  description = "ID of a private subnet with a route to S3 and the image registry (NAT gateway or VPC endpoints)."
  type        = string

  validation {
    condition     = can(regex("^subnet-[0-9a-f]+$", var.subnet_id))
    error_message = "subnet_id must be a subnet id (subnet-...)."
  }
}

variable "allowed_cidr_blocks" {
  description = "IPv4 CIDR blocks of the clients that may reach TideMQ on port 9324. The instance serves plain HTTP: keep it to private networks (the complete example puts TLS in front)."
  type        = list(string)

  validation {
    condition     = length(var.allowed_cidr_blocks) > 0 && alltrue([for cidr in var.allowed_cidr_blocks : can(cidrnetmask(cidr)) && cidr != "0.0.0.0/0"])
    error_message = "allowed_cidr_blocks must list IPv4 CIDR blocks, and not 0.0.0.0/0: the instance serves plain HTTP."
  }
}

variable "image" {
  description = "Container image with the `tidemq` command."
  type        = string
}

variable "instance_type" {
  description = "EC2 instance type (x86_64). `tidemq up` runs the gateway, one storage node and Redis in one process tree: two cores serve about what docs/performance.md measures."
  type        = string
  default     = "m7i.large"
}

variable "data_volume_size_gib" {
  description = "Size of the gp3 data volume (TIDEMQ_DATA_DIR: the log, Redis's append-only file, the archive cache). It outlives the instance: replacing the instance keeps the queues."
  type        = number
  default     = 50

  validation {
    condition     = var.data_volume_size_gib >= 10 && floor(var.data_volume_size_gib) == var.data_volume_size_gib
    error_message = "data_volume_size_gib must be a whole number, at least 10."
  }
}

variable "archive_bucket_name" {
  description = "Name of the S3 bucket to create for the archive (tiered segments); globally unique."
  type        = string
}
