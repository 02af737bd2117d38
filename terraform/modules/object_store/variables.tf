variable "bucket_name" {
  description = "Name of the S3 bucket that holds the archive (tiered segments and their manifests)."
  type        = string

  validation {
    condition     = can(regex("^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$", var.bucket_name))
    error_message = "bucket_name must be 3 to 63 lower-case letters, digits, dots or hyphens, starting and ending with a letter or digit."
  }
}

variable "archive_prefix" {
  description = "Key prefix under which TideMQ writes the archive: the nodes get `s3://<bucket>/<archive_prefix>` as TIDEMQ_ARCHIVE_URL."
  type        = string
  default     = "tidemq"

  validation {
    condition     = can(regex("^[A-Za-z0-9!_.*'()-]+(/[A-Za-z0-9!_.*'()-]+)*$", var.archive_prefix))
    error_message = "archive_prefix must be one or more path segments of safe S3 key characters, without a leading or trailing slash."
  }
}

variable "node_role_arns" {
  description = "ARNs of the IAM roles that read and write the archive: the storage nodes' role. No other principal may write objects, whatever its IAM policies allow."
  type        = list(string)

  validation {
    condition     = length(var.node_role_arns) > 0 && alltrue([for arn in var.node_role_arns : can(regex("^arn:aws[a-z-]*:iam::[0-9]{12}:role/", arn))])
    error_message = "node_role_arns must name at least one IAM role by its ARN (arn:aws:iam::<account>:role/...)."
  }
}

variable "reader_role_arns" {
  description = "ARNs of IAM roles that may only read the archive, such as the role of Spark jobs over the archived segments."
  type        = list(string)
  default     = []

  validation {
    condition     = alltrue([for arn in var.reader_role_arns : can(regex("^arn:aws[a-z-]*:iam::[0-9]{12}:role/", arn))])
    error_message = "reader_role_arns must hold IAM role ARNs (arn:aws:iam::<account>:role/...)."
  }
}

variable "kms_key_arn" {
  description = "ARN of a customer managed KMS key that encrypts the archive (SSE-KMS, with an S3 Bucket Key). Null: SSE-S3 (AES-256, keys managed by S3)."
  type        = string
  default     = null

  validation {
    condition     = var.kms_key_arn == null || can(regex("^arn:aws[a-z-]*:kms:", var.kms_key_arn))
    error_message = "kms_key_arn must be a KMS key ARN (arn:aws:kms:...) or null."
  }
}

variable "noncurrent_version_expiration_days" {
  description = "Days a replaced or deleted object version is kept before S3 expires it. Manifests are replaced at every upload and segments deleted by TideMQ's retention, so this bounds what versioning costs while keeping a window to recover from a mistake."
  type        = number
  default     = 30

  validation {
    condition     = var.noncurrent_version_expiration_days >= 1 && floor(var.noncurrent_version_expiration_days) == var.noncurrent_version_expiration_days
    error_message = "noncurrent_version_expiration_days must be a whole number of days, at least 1."
  }
}

variable "abort_incomplete_multipart_upload_days" {
  description = "Days after which S3 aborts a multipart upload that was never completed (a node that died mid-upload), so its parts stop being billed."
  type        = number
  default     = 1

  validation {
    condition     = var.abort_incomplete_multipart_upload_days >= 1 && floor(var.abort_incomplete_multipart_upload_days) == var.abort_incomplete_multipart_upload_days
    error_message = "abort_incomplete_multipart_upload_days must be a whole number of days, at least 1."
  }
}

variable "intelligent_tiering_after_days" {
  description = "Days after which archived objects move to S3 Intelligent-Tiering, whose access tiers all serve ranged GETs at once. Null: they stay in S3 Standard. Archive tiers (Glacier) are never used: TideMQ reads any archived segment on demand."
  type        = number
  default     = null

  validation {
    condition     = var.intelligent_tiering_after_days == null || try(var.intelligent_tiering_after_days >= 0 && floor(var.intelligent_tiering_after_days) == var.intelligent_tiering_after_days, false)
    error_message = "intelligent_tiering_after_days must be null or a whole number of days, 0 or more."
  }
}

variable "access_log_bucket" {
  description = "Name of an S3 bucket that receives this bucket's server access logs, under `<bucket_name>/`. Null: no access logs."
  type        = string
  default     = null
}

variable "force_destroy" {
  description = "Whether `terraform destroy` may delete the bucket while it still holds objects. Leave false for a bucket that holds the only copy of the archive."
  type        = bool
  default     = false
}

variable "tags" {
  description = "Tags added to every resource the module creates."
  type        = map(string)
  default     = {}
}
